//! Each tour step's claim measured on a run: whether it holds, the figure in
//! words (the tours' test prints it), and the live numbers the step's
//! sentence shows in its `{…}` slots. The same code serves the native test
//! (on the step's own run: the numbers must equal what the sentence says)
//! and the page (on the reader's run: the numbers follow the control and the
//! player), so words and figure cannot drift apart.

use sim_core::choice::Choice;
use sim_core::labs::{
    agents, autoscale, batching, disagg, evaluate, first_token, herding, lora, prefix, providers,
    queueing, routing,
};

use super::Claim;
use crate::page::live::Live;
use crate::page::Snap;
use crate::ui::format::{fixed, percent, thousands};

/// The figure in words, for the test only: the page reads only the live
/// numbers, and formatting run data with `{:?}` would bring every type's
/// `Debug` into the page's module (about 20 KB).
macro_rules! figure {
    ($($arg:tt)*) => {{
        #[cfg(test)]
        let text = format!($($arg)*);
        // Type-checked (so its arguments count as used) but never called:
        // no formatting code reaches the page.
        #[cfg(not(test))]
        let text = {
            let _ = || format!($($arg)*);
            String::new()
        };
        text
    }};
}

/// A claim measured on one run at one step. The page reads only the live
/// numbers; whether the claim holds, and the figure, are the test's.
#[derive(Clone, Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct Reading {
    /// Whether the claim holds there.
    pub holds: bool,
    /// What was measured, in words.
    pub figure: String,
    /// The sentence's numbers, slot by slot.
    pub live: Vec<Live>,
}

impl Reading {
    fn new(holds: bool, figure: String, live: Vec<Live>) -> Reading {
        Reading {
            holds,
            figure,
            live,
        }
    }
}

/// The snapshot's outcome as lab type `O`'s (`None`: another lab's run).
fn out<'a, O: 'static>(s: &'a Snap<'_>) -> Option<&'a O> {
    s.outcome.get::<O>()
}

/// The item in focus, as item type `I`.
fn item<I: Choice>(s: &Snap<'_>) -> Option<I> {
    I::ALL.get(s.focus?).copied()
}

/// A duration in seconds as the sentences write it: whole minutes as
/// "4 min", anything else in seconds.
fn duration(secs: u32) -> String {
    if secs >= 60 && secs.is_multiple_of(60) {
        format!("{} min", secs / 60)
    } else {
        format!("{secs} s")
    }
}

/// Measure `claim` on the snapshot (`None` when the run is another lab's or
/// lacks what the claim reads).
pub fn read(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    use Claim::*;
    match claim {
        InTurn | PastLighter { .. } | RulesPart | QueueOnlyBeside | CacheAndPile { .. } => {
            routing_claim(claim, s)
        }
        VariationShrinksLoad => knee_claim(s),
        SameOldNumbers | Pile { .. } | NoPile { .. } | RoutersDiffer => herding_claim(claim, s),
        PrefixSaves | HotMiss | LetsGo => prefix_claim(claim, s),
        AdmitsOnlyEmpty | IdleSlot { .. } | RefillStalls | ChunksKeepFlowing => {
            batching_claim(claim, s)
        }
        SplitCostsShort | SplitWinsLong | Crossover { .. } | SplitOverwhelmed => {
            disagg_claim(claim, s)
        }
        OrdersHalfEmpty { .. } | OrderWaitsCold | FreshTakesAll | FreshHeldBack => {
            autoscale_claim(claim, s)
        }
        BurstOnOne { .. } | BurstSpread | CacheButSlowest | CapHolds { .. } => {
            agents_claim(claim, s)
        }
        RetryHidesEarly | ResumeSaves | HedgeCost { .. } => first_token_claim(claim, s),
        CanaryUnderstates | SessionKeepsTurns | ColdUnderstates | ClosedHides | LimitShortens => {
            evaluate_claim(claim, s)
        }
        AdapterHotSpot | PipelineBeatsBoth | TierGapShrinks => lora_claim(claim, s),
        SpillCheaper | SpillRises | RegionsScatter | GroupTwoIdle => providers_claim(claim, s),
    }
}

/// The providers lab's claims, read off the whole outcome.
fn providers_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    use providers::Strategy;
    let out = out::<providers::Outcome>(s)?;
    let dollars = |x: f64| format!("${}", fixed(x, 2));
    Some(match claim {
        Claim::SpillCheaper => {
            let (a, b) = (out.run(Strategy::Spillover)?, out.run(Strategy::Shuffle)?);
            Reading::new(
                a.cost_per_1k < b.cost_per_1k,
                figure!(
                    "$/1k spillover {:.3}, equal weights {:.3}",
                    a.cost_per_1k,
                    b.cost_per_1k
                ),
                vec![
                    Live::plain(format!("{}%", fixed(100.0 * a.spill_share, 1))),
                    Live::plain(dollars(a.cost_per_1k)),
                    Live::plain(dollars(b.cost_per_1k)),
                ],
            )
        }
        Claim::SpillRises => {
            // The last point below 90% load spills least of those below it.
            let below = out.sweep.iter().rfind(|p| p.load < 0.9)?;
            let top = out.sweep.last()?;
            Reading::new(
                below.spill_share < 0.01 && top.spill_share > 0.1,
                figure!(
                    "spill {:.3} at load {:.2}, {:.3} at {:.2}",
                    below.spill_share,
                    below.load,
                    top.spill_share,
                    top.load
                ),
                vec![
                    Live::plain(percent(below.spill_share)),
                    Live::plain(percent(below.load)),
                    Live::plain(percent(top.spill_share)),
                    Live::plain(percent(top.load)),
                ],
            )
        }
        Claim::RegionsScatter => {
            let (w, p) = (out.run(Strategy::Shuffle)?, out.run(Strategy::Sticky)?);
            Reading::new(
                (0.4..=0.6).contains(&w.moved_share) && w.history_hits < p.history_hits,
                figure!(
                    "moved {:.3}; history found {:.3} against pinned {:.3}",
                    w.moved_share,
                    w.history_hits,
                    p.history_hits
                ),
                vec![
                    Live::plain(percent(w.moved_share)),
                    Live::plain(percent(w.history_hits)),
                    Live::plain(percent(p.history_hits)),
                ],
            )
        }
        _ => {
            let r = out.run(Strategy::PriorityPool)?;
            let metered: u32 = r.per_deploy.iter().skip(out.config.reserved as usize).sum();
            Reading::new(
                metered == 0 && r.client_429 > 0,
                figure!("metered served {metered}, 429s {}", r.client_429),
                vec![
                    Live::plain(metered.to_string()),
                    Live::plain(thousands(r.client_429.into())),
                ],
            )
        }
    })
}

/// The LoRA lab's claims, read off the whole outcome.
fn lora_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<lora::Outcome>(s)?;
    let ms = |x: f64| fixed(x, 0);
    Some(match claim {
        Claim::AdapterHotSpot => {
            let r = out.run(lora::Rule::Residency)?;
            Reading::new(
                r.hottest_share >= 1.5 * out.twin.hottest_share,
                figure!(
                    "busiest replica: residency {:.3}, prefix twin {:.3}",
                    r.hottest_share,
                    out.twin.hottest_share
                ),
                vec![
                    Live::plain(percent(r.hottest_share)),
                    Live::plain(percent(out.twin.hottest_share)),
                ],
            )
        }
        Claim::PipelineBeatsBoth => {
            let p95 = |rule| out.run(rule).map(|r: &lora::RuleRun| r.ttft_p95);
            let (l, a, b) = (
                p95(lora::Rule::Llmd)?,
                p95(lora::Rule::Residency)?,
                p95(lora::Rule::LeastLoad)?,
            );
            Reading::new(
                l < a && l < b,
                figure!("TTFT P95 llm-d {l:.0}, residency {a:.0}, least load {b:.0} ms"),
                vec![Live::plain(ms(l)), Live::plain(ms(a)), Live::plain(ms(b))],
            )
        }
        _ => {
            let (first, last) = (out.tiers.first()?, out.tiers.last()?);
            let gap = |p: &lora::tiers::TierPoint| p.least_mean - p.prefix_mean;
            Reading::new(
                gap(first) > 0.0 && gap(last) < 0.25 * gap(first),
                figure!(
                    "mean-TTFT gap {:.0} ms without a store, {:.0} at the fastest",
                    gap(first),
                    gap(last)
                ),
                vec![
                    Live::plain(ms(first.least_p95)),
                    Live::plain(ms(first.prefix_p95)),
                    Live::plain(ms(last.least_p95)),
                ],
            )
        }
    })
}

/// A share of pairs as the sentences print it, two decimals.
fn pair_share(both: u32, pairs: u32) -> String {
    format!(
        "{}%",
        fixed(100.0 * f64::from(both) / f64::from(pairs.max(1)), 2)
    )
}

/// The evaluate lab's claims, read off the whole outcome.
fn evaluate_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    use evaluate::{Design, Warmth};
    let out = out::<evaluate::Outcome>(s)?;
    let signed = |x: f64| fixed(x, 1);
    Some(match claim {
        Claim::CanaryUnderstates => {
            let d = out.design(item(s)?)?;
            Reading::new(
                d.measured.abs() < out.truth.abs() && (d.measured < 0.0) == (out.truth < 0.0),
                figure!(
                    "measured {:.2} against a true {:.2}; {} of {} pairs both new",
                    d.measured,
                    out.truth,
                    d.both,
                    d.pairs
                ),
                vec![
                    Live::plain(signed(out.truth)),
                    Live::plain(signed(d.measured)),
                    Live::plain(thousands(d.both.into())),
                    Live::plain(thousands(d.pairs.into())),
                ],
            )
        }
        Claim::SessionKeepsTurns => {
            let (r, ses) = (out.design(Design::Request)?, out.design(Design::Session)?);
            let share = |d: &evaluate::DesignRun| f64::from(d.both) / f64::from(d.pairs.max(1));
            Reading::new(
                share(ses) >= 10.0 * share(r),
                figure!(
                    "pairs both new: per session {:.4}, per request {:.4}",
                    share(ses),
                    share(r)
                ),
                vec![
                    Live::plain(pair_share(ses.both, ses.pairs)),
                    Live::plain(pair_share(r.both, r.pairs)),
                    Live::plain(percent(ses.canary.history_share)),
                ],
            )
        }
        Claim::ColdUnderstates => {
            let gap = |w| out.warmth.iter().find(|r| r.warmth == w).map(|r| r.gap);
            let (cold, warm) = (gap(Warmth::Cold)?, gap(Warmth::Warm)?);
            Reading::new(
                cold < warm,
                figure!("gap cold {cold:.2}, warm {warm:.2}"),
                vec![Live::plain(fixed(cold, 1)), Live::plain(fixed(warm, 1))],
            )
        }
        Claim::ClosedHides => {
            let p = out
                .loads
                .iter()
                .find(|p| p.open.within < 0.95 && p.closed.within >= 0.95);
            Reading::new(
                p.is_some(),
                figure!("{:?}", p.map(|p| (p.scale, p.open.within, p.closed.within))),
                match p {
                    Some(p) => vec![
                        Live::plain(format!("{}×", fixed(p.scale, 2))),
                        Live::plain(percent(p.open.within)),
                        Live::plain(percent(p.closed.within)),
                    ],
                    None => vec![Live::plain("–"), Live::plain("–"), Live::plain("–")],
                },
            )
        }
        _ => {
            let u = out.outage.as_ref()?;
            Reading::new(
                u.below_unlimited > u.below_limited,
                figure!(
                    "below: {} without the limit, {} with it",
                    u.below_unlimited,
                    u.below_limited
                ),
                vec![
                    Live::plain(thousands(u.below_unlimited)),
                    Live::plain(thousands(u.below_limited)),
                ],
            )
        }
    })
}

/// The first-token lab's claims, read off the whole runs (no player).
fn first_token_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<first_token::Outcome>(s)?;
    let focus: first_token::Recovery = item(s)?;
    let of = |r: first_token::Recovery| out.runs.iter().find(|x| x.recovery == r);
    let (run, none, retry) = (
        of(focus)?,
        of(first_token::Recovery::None)?,
        of(first_token::Recovery::Retry)?,
    );
    let text = figure!(
        "{}",
        out.runs
            .iter()
            .map(|r| format!(
                "{}: errors {}, broken {}, resumed {}, hedges {} at {:.2} of an answer",
                r.recovery.name(),
                r.errors,
                r.broken,
                r.resumed,
                r.hedges,
                r.hedge_cost
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
    Some(match claim {
        Claim::RetryHidesEarly => Reading::new(
            run.errors == 0 && none.errors > 0 && run.broken > 0,
            text,
            vec![
                Live::plain(none.errors.to_string()),
                Live::plain(run.errors.to_string()),
                Live::plain(run.broken.to_string()),
            ],
        ),
        Claim::ResumeSaves => Reading::new(
            run.broken == 0 && run.resumed > 0 && retry.broken > 0,
            text,
            vec![
                Live::plain(retry.broken.to_string()),
                Live::plain(run.resumed.to_string()),
            ],
        ),
        _ => {
            let Claim::HedgeCost { above, pct } = claim else {
                return None;
            };
            let cost = run.hedge_cost * 100.0;
            let bound = f64::from(pct);
            Reading::new(
                run.hedges > 0 && if above { cost >= bound } else { cost <= bound },
                text,
                vec![
                    Live::plain(run.hedges.to_string()),
                    Live::plain(percent(run.hedge_cost)),
                ],
            )
        }
    })
}

fn knee_claim(s: &Snap<'_>) -> Option<Reading> {
    let out = out::<queueing::knee::Outcome>(s)?;
    let mut curves: Vec<_> = out.curves.iter().collect();
    curves.sort_by(|a, b| a.cv2.total_cmp(&b.cv2));
    let usable: Vec<f64> = curves.iter().map(|c| c.usable_utilization).collect();
    // Two curves may share a variation (the reader's and a reference).
    let holds = usable.len() >= 2
        && usable.windows(2).all(|w| w[1] <= w[0])
        && usable[usable.len() - 1] < usable[0];
    let text = curves
        .iter()
        .map(|c| figure!("cv² {} → {:.0}%", c.cv2, c.usable_utilization * 100.0))
        .collect::<Vec<_>>()
        .join(", ");
    // The reader's curve: the fourth (after cv² 0, 1 and 4).
    let mine = out.curves.get(3)?;
    Some(Reading::new(
        holds,
        figure!("usable load {text}"),
        vec![
            Live::plain(crate::ui::format::real_text(out.config.cv2)),
            Live::plain(percent(mine.usable_utilization)),
        ],
    ))
}

/// The focus rule's request sent past a lighter replica at tick `t`, if the
/// tick's key moment is one: whether it holds `times` the lighter's load, the
/// figure, and the numbers (the chosen replica and its load, the lighter and
/// its load, lit in the focus panel).
fn past_lighter(tl: &routing::player::Timeline, t: usize, times: u32) -> (bool, String, Vec<Live>) {
    match tl
        .rules
        .first()
        .and_then(|r| r.at(t))
        .and_then(|a| a.moment)
    {
        Some(routing::player::RoutingMoment::SentPastLighter {
            replica,
            load,
            lighter,
            lighter_load,
            ..
        }) => (
            load >= times * lighter_load,
            figure!(
                "sent to replica {} holding {load}, lightest replica {} holding {lighter_load}",
                replica + 1,
                lighter + 1
            ),
            vec![
                Live::lit((replica + 1).to_string(), Some(0), vec![replica]),
                Live::lit(load.to_string(), Some(0), vec![replica]),
                Live::lit((lighter + 1).to_string(), Some(0), vec![lighter]),
                Live::lit(lighter_load.to_string(), Some(0), vec![lighter]),
            ],
        ),
        m => (
            false,
            figure!("no request sent past a lighter replica ({m:?})"),
            vec![Live::missing(); 4],
        ),
    }
}

fn routing_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<routing::Outcome>(s)?;
    let tl = out.timeline.as_ref()?;
    let t = (s.step.0)();
    let routed = |k: usize, t: usize| -> Vec<(u32, u32)> {
        tl.rules
            .get(k)
            .and_then(|r| r.at(t))
            .map(|a| {
                a.events
                    .iter()
                    .filter_map(|e| match *e {
                        routing::player::TickEvent::Routed {
                            request, replica, ..
                        } => Some((request, replica)),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let reading = match claim {
        Claim::InTurn => {
            let sent: Vec<u32> = (0..=t).flat_map(|t| routed(0, t)).map(|(_, r)| r).collect();
            let n = tl.replicas;
            let holds = sent.len() >= n as usize
                && sent.iter().enumerate().all(|(i, &r)| r == i as u32 % n);
            Reading::new(
                holds,
                figure!("{} requests sent, to replicas {:?}", sent.len(), sent),
                Vec::new(),
            )
        }
        Claim::PastLighter { times } => {
            let (holds, figure, live) = past_lighter(tl, t, times);
            Reading::new(holds, figure, live)
        }
        Claim::CacheAndPile { times } => {
            let (piled, figure, _) = past_lighter(tl, t, times);
            let share = |k: Option<usize>| {
                let rule = sim_core::routing::RuleKind::ALL.get(k?)?;
                out.rule(*rule).map(|r| r.cache_hit_share)
            };
            let (mine, other) = (share(s.focus)?, share(s.vs)?);
            Reading::new(
                piled && mine > other,
                figure!("{figure}; cache hit share {mine:.3} against {other:.3}"),
                vec![Live::plain(percent(mine)), Live::plain(percent(other))],
            )
        }
        Claim::RulesPart => {
            let (a, b) = (routed(0, t), routed(1, t));
            let parted: Vec<_> = a
                .iter()
                .filter_map(|&(q, r)| {
                    let other = b.iter().find(|(q2, _)| *q2 == q)?.1;
                    (other != r).then_some((q, r, other))
                })
                .collect();
            let text = parted
                .iter()
                .map(|(q, r, s)| figure!("request {q}: replica {} against {}", r + 1, s + 1))
                .collect::<Vec<_>>()
                .join("; ");
            Reading::new(
                !parted.is_empty(),
                figure!("parted at tick {t}: {text}"),
                Vec::new(),
            )
        }
        _ => {
            let waiting = |k: usize| -> Vec<usize> {
                tl.rules
                    .get(k)
                    .and_then(|r| r.at(t))
                    .map(|a| a.waiting.iter().map(Vec::len).collect())
                    .unwrap_or_default()
            };
            let (focus, beside) = (waiting(0), waiting(1));
            let holds = focus.iter().all(|&w| w == 0)
                && beside.iter().any(|&w| w > 0)
                && beside.contains(&0);
            let queued: Vec<u32> = (0..beside.len() as u32)
                .filter(|&r| beside[r as usize] > 0)
                .collect();
            let load = s
                .focus
                .and_then(|k| sim_core::routing::RuleKind::ALL.get(k))
                .and_then(|r| out.rule(*r))?
                .offered_load;
            let mine: usize = focus.iter().sum();
            Reading::new(
                holds,
                figure!("waiting per replica: focus {focus:?}, beside {beside:?}"),
                vec![
                    Live::plain(percent(load)),
                    Live::lit(queued.len().to_string(), Some(1), queued),
                    Live::plain(if mine == 0 {
                        "none".to_string()
                    } else {
                        mine.to_string()
                    }),
                ],
            )
        }
    };
    Some(reading)
}

fn herding_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<herding::Outcome>(s)?;
    let run = out.rule(item(s)?)?;
    let ticks = &run.timeline.ticks;
    let step = (s.step.0)();
    let now = ticks.get(step)?;
    let most = now.outstanding.iter().copied().max().unwrap_or(0);
    let busiest: Vec<u32> = (0..now.outstanding.len() as u32)
        .filter(|&r| now.outstanding[r as usize] == most)
        .take(1)
        .collect();
    let mean = now.outstanding.iter().sum::<u32>() as f64 / now.outstanding.len().max(1) as f64;
    let sent: Vec<(usize, u32, u32)> = now
        .routers
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.dispatched.iter().map(move |&d| (i + 1, r.age, d + 1)))
        .collect();
    let reading = match claim {
        Claim::SameOldNumbers => {
            let ages: Vec<u32> = now.routers.iter().map(|r| r.age).collect();
            let holds =
                ages.windows(2).all(|w| w[0] == w[1]) && ages.first().is_some_and(|&a| a > 0);
            let age = ages.first().copied().unwrap_or(0);
            Reading::new(
                holds,
                figure!("router ages {ages:?} ticks"),
                vec![Live::plain(age.to_string())],
            )
        }
        Claim::Pile { load } => {
            let unanimous = matches!(now.moment, Some(herding::HerdMoment::Stampede { routers, .. }) if routers as usize == now.routers.len());
            Reading::new(
                unanimous && most == load,
                figure!(
                    "busiest holds {most} (mean {mean:.1}), moment {:?}",
                    now.moment
                ),
                vec![Live::at(most.to_string(), busiest)],
            )
        }
        Claim::NoPile { most: bound } => {
            let piled = ticks[..=step].iter().any(|t| t.moment.is_some());
            Reading::new(
                !piled && most <= bound,
                figure!(
                    "busiest holds {most} (mean {mean:.1}, {:?}), a pile so far: {piled}",
                    now.outstanding
                ),
                vec![Live::at(most.to_string(), busiest)],
            )
        }
        _ => {
            let mut targets: Vec<u32> = sent.iter().map(|s| s.2 - 1).collect();
            let differ = targets.iter().any(|&r| r != targets[0]);
            targets.sort_unstable();
            targets.dedup();
            Reading::new(
                differ,
                figure!("(router, age, replica) sent: {sent:?}"),
                vec![Live::at(targets.len().to_string(), targets)],
            )
        }
    };
    Some(reading)
}

fn prefix_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<prefix::Outcome>(s)?;
    let router = |k: prefix::RouterKind| out.routers.iter().find(|r| r.router == k);
    let (load, aware) = (
        router(prefix::RouterKind::Load)?,
        router(prefix::RouterKind::PrefixAware)?,
    );
    let step = (s.step.0)();
    let reading = match claim {
        Claim::PrefixSaves => Reading::new(
            aware.prefill_tokens < load.prefill_tokens,
            figure!(
                "prefilled tokens: prefix-aware {}, load only {}",
                aware.prefill_tokens,
                load.prefill_tokens
            ),
            Vec::new(),
        ),
        Claim::HotMiss => {
            let st = load.steps.get(step)?;
            let holder = match st.moment {
                Some(prefix::PrefixMoment::HotMiss { holder }) => Some(holder),
                _ => None,
            };
            Reading::new(
                !st.hit && holder.is_some_and(|h| h != st.target),
                figure!(
                    "load only: request {} to replica {}, hit {}, prefix held on {:?}",
                    st.request,
                    st.target + 1,
                    st.hit,
                    holder.map(|h| h + 1)
                ),
                vec![holder.map_or_else(Live::missing, |h| Live::at((h + 1).to_string(), vec![h]))],
            )
        }
        _ => {
            let st = aware.steps.get(step)?;
            let holder = match st.moment {
                Some(prefix::PrefixMoment::Escape { holder }) => Some(holder),
                _ => None,
            };
            Reading::new(
                holder.is_some_and(|h| h != st.target),
                figure!(
                    "prefix-aware: request {} to replica {}, prefix held on {:?}; {} escapes in the run",
                    st.request,
                    st.target + 1,
                    holder.map(|h| h + 1),
                    aware.escapes
                ),
                vec![Live::plain(aware.escapes.to_string())],
            )
        }
    };
    Some(reading)
}

fn batching_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<batching::Outcome>(s)?;
    let mode: batching::Mode = item(s)?;
    let run = out.modes.iter().find(|m| m.mode == mode)?;
    let it = run.iterations_detail.get((s.step.0)())?;
    let idle = |d: &batching::IterationDetail| {
        d.slots
            .iter()
            .filter(|s| matches!(s, batching::SlotState::Idle))
            .count()
    };
    let admitted = |d: &batching::IterationDetail| {
        d.events
            .iter()
            .filter(|e| matches!(e, batching::BatchEvent::Admitted { .. }))
            .count()
    };
    let reading = match claim {
        Claim::AdmitsOnlyEmpty => {
            // An admitting iteration holds only the requests it admitted:
            // the batch before it has wholly finished.
            let admitting: Vec<_> = run
                .iterations_detail
                .iter()
                .filter(|d| admitted(d) > 0)
                .collect();
            let holds = admitting
                .iter()
                .all(|d| admitted(d) + idle(d) == d.slots.len());
            let text = admitting
                .iter()
                .map(|d| {
                    figure!(
                        "iteration {}: {} admitted, {} idle",
                        d.iteration,
                        admitted(d),
                        idle(d)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            Reading::new(
                holds,
                figure!("admissions into an empty engine only: {text}"),
                Vec::new(),
            )
        }
        Claim::IdleSlot { waiting } => Reading::new(
            idle(it) >= 1 && it.waiting.len() == waiting as usize,
            figure!("{} slot(s) empty, {} waiting", idle(it), it.waiting.len()),
            vec![Live::plain(it.waiting.len().to_string())],
        ),
        Claim::RefillStalls => Reading::new(
            admitted(it) > 0 && it.output_tokens == 0,
            figure!("{} admitted, {} tokens out", admitted(it), it.output_tokens),
            Vec::new(),
        ),
        _ => {
            let prefilling = it
                .slots
                .iter()
                .any(|s| matches!(s, batching::SlotState::Prefill { .. }));
            // Before the first token nothing decodes, so only later
            // iterations can stall the stream.
            let first = run
                .iterations_detail
                .iter()
                .position(|d| d.output_tokens > 0)
                .unwrap_or(0);
            let stalls = run.iterations_detail[first..]
                .iter()
                .filter(|d| d.zero_output)
                .count();
            Reading::new(
                prefilling && it.output_tokens > 0 && stalls == 0,
                figure!("prefilling and {} tokens out at once; {stalls} iterations without output after the first token", it.output_tokens),
                vec![Live::plain(stalls.to_string())],
            )
        }
    };
    Some(reading)
}

fn disagg_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<disagg::Outcome>(s)?;
    let setup = |k: disagg::Setup| out.runs.iter().find(|r| r.setup == k);
    let (co, split) = (
        setup(disagg::Setup::Colocated)?,
        setup(disagg::Setup::Disagg)?,
    );
    let ms = |x: f64, d: u32| Live::plain(fixed(x, d));
    let reading = match claim {
        Claim::SplitCostsShort => Reading::new(
            (split.tpot_p50 - co.tpot_p50).abs() <= 0.01 * co.tpot_p50 && split.ttft_p50 > co.ttft_p50,
            figure!("TPOT P50 {:.2} ms colocated, {:.2} split; TTFT P50 {:.0} ms against {:.0}", co.tpot_p50, split.tpot_p50, split.ttft_p50, co.ttft_p50),
            vec![ms(co.tpot_p50, 2), ms(split.tpot_p50, 2), ms(split.ttft_p50, 0), ms(co.ttft_p50, 0)],
        ),
        Claim::SplitWinsLong => Reading::new(
            split.tpot_p95 < co.tpot_p95 && split.e2e < co.e2e,
            figure!("TPOT P95 {:.2} ms colocated, {:.2} split; mean latency {:.0} ms colocated, {:.0} split", co.tpot_p95, split.tpot_p95, co.e2e, split.e2e),
            vec![ms(co.tpot_p95, 2), ms(split.tpot_p95, 2)],
        ),
        Claim::Crossover { from, to } => {
            let bandwidth = Live::plain(crate::ui::format::real_text(out.config.bandwidth));
            match out.crossover {
                disagg::Crossover::At(x) => Reading::new(
                    (from as f64..=to as f64).contains(&x),
                    figure!("crossover at {x:.0} tokens"),
                    // "About": to the nearest hundred.
                    vec![bandwidth, Live::plain(thousands(((x / 100.0).round() * 100.0) as u64))],
                ),
                c => Reading::new(false, figure!("crossover {c:?}"), vec![bandwidth, Live::missing()]),
            }
        }
        _ => {
            let load = setup(disagg::Setup::Load)?;
            Reading::new(
                split.e2e > 60_000.0 && load.e2e <= 1.5 * co.e2e,
                figure!("mean latency: split {:.0} s, prefill-load {:.1} s, colocated {:.1} s", split.e2e / 1000.0, load.e2e / 1000.0, co.e2e / 1000.0),
                vec![ms(split.e2e / 1000.0, 0), ms(load.e2e / 1000.0, 1), ms(co.e2e / 1000.0, 1)],
            )
        }
    };
    Some(reading)
}

fn autoscale_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<autoscale::Outcome>(s)?;
    let c = &out.config;
    let run = out.run(item(s)?)?;
    let t = (s.step.0)();
    let now = run.timeline.get(t)?;
    let ready: Vec<usize> = (0..now.pool.len())
        .filter(|&i| now.pool[i].life == autoscale::Life::Ready)
        .collect();
    let reading = match claim {
        Claim::OrdersHalfEmpty { used } => match now.moment {
            Some(autoscale::Moment::Pinned { busy, kv }) => Reading::new(
                kv * 100.0 <= used as f64,
                figure!(
                    "busy fraction {:.0}%, slots in use {:.0}%",
                    busy * 100.0,
                    kv * 100.0
                ),
                vec![Live::plain(percent(1.0 - kv))],
            ),
            m => Reading::new(
                false,
                figure!("no order on a pinned signal ({m:?})"),
                vec![Live::missing()],
            ),
        },
        Claim::OrderWaitsCold => {
            let live = vec![
                Live::plain(duration(c.cold)),
                Live::plain(duration(c.surge_for)),
            ];
            match now.moment {
                Some(autoscale::Moment::Ordered { ready_at, .. }) => Reading::new(
                    ready_at as usize - t >= c.cold as usize && 2 * c.cold == c.surge_for,
                    figure!(
                        "ordered at {t} s, ready at {ready_at} s; cold start {} s, surge {} s",
                        c.cold,
                        c.surge_for
                    ),
                    live,
                ),
                m => Reading::new(false, figure!("no order ({m:?})"), live),
            }
        }
        _ => {
            // The newest replica taking requests: the highest place ready.
            let newest = *ready.last()?;
            let since = (0..=t)
                .rev()
                .take_while(|&s| {
                    run.timeline[s]
                        .pool
                        .get(newest)
                        .is_some_and(|p| p.life == autoscale::Life::Ready)
                })
                .last()
                .unwrap_or(t);
            let took: u32 = (since..=t).map(|s| run.timeline[s].pool[newest].sent).sum();
            let arrived: u32 = (since..=t).map(|s| run.timeline[s].arrivals).sum();
            let spot = &now.pool[newest];
            let rest: Vec<usize> = ready.iter().copied().filter(|&i| i != newest).collect();
            let others: Vec<u32> = rest.iter().map(|&i| now.pool[i].waiting).collect();
            let text = figure!(
                "newest replica {}: took {took} of {arrived} arrivals in {} s, {} running, {} waiting; others waiting {:?}",
                newest + 1, t + 1 - since, spot.running, spot.waiting, others
            );
            let new = vec![newest as u32];
            let least = others.iter().copied().min().unwrap_or(0);
            if claim == Claim::FreshTakesAll {
                Reading::new(
                    took == arrived && spot.running == c.slots && others.iter().all(|&w| w > 0),
                    text,
                    vec![
                        Live::at(took.to_string(), new.clone()),
                        Live::at((t + 1 - since).to_string(), new.clone()),
                        Live::at(spot.running.to_string(), new),
                        Live::at(least.to_string(), rest.iter().map(|&i| i as u32).collect()),
                    ],
                )
            } else {
                Reading::new(
                    spot.waiting == 0
                        && 2 * spot.running < c.slots
                        && others.iter().all(|&w| w > 0),
                    text,
                    vec![
                        Live::plain(duration(c.slow_start)),
                        Live::at(spot.running.to_string(), new.clone()),
                        Live::at(c.slots.to_string(), new),
                    ],
                )
            }
        }
    };
    Some(reading)
}

fn agents_claim(claim: Claim, s: &Snap<'_>) -> Option<Reading> {
    let out = out::<agents::Outcome>(s)?;
    let key: agents::Key = item(s)?;
    let run = out.run(key)?;
    let now = run.timeline.get((s.step.0)())?;
    let burst = match now.moment {
        Some(agents::Moment::Burst {
            children,
            replicas,
            busiest,
            took,
            waiting,
            free,
            ..
        }) => Some((children, replicas, took, waiting, free, busiest)),
        _ => None,
    };
    let figure = figure!(
        "fan-out (children, replicas, on the busiest, waiting, free elsewhere, busiest): {burst:?}"
    );
    let reading = match claim {
        Claim::BurstOnOne { waiting, free } => Reading::new(
            burst.is_some_and(|b| b.1 == 1 && b.2 == b.0 && b.3 == waiting && b.4 == free),
            figure,
            match burst {
                Some(b) => {
                    let others: Vec<u32> = (0..out.config.replicas).filter(|&r| r != b.5).collect();
                    vec![
                        Live::at(b.0.to_string(), vec![b.5]),
                        Live::at((b.5 + 1).to_string(), vec![b.5]),
                        Live::at(b.3.to_string(), vec![b.5]),
                        Live::at(b.4.to_string(), others),
                    ]
                }
                None => vec![Live::missing(); 4],
            },
        ),
        Claim::BurstSpread => Reading::new(
            burst.is_some_and(|b| b.1 == out.config.replicas && 4 * b.2 <= b.0 && b.3 == 0),
            figure,
            vec![burst.map_or_else(Live::missing, |b| Live::plain(b.1.to_string()))],
        ),
        Claim::CacheButSlowest => {
            let best_cache = out.runs.iter().all(|r| r.cache_share <= run.cache_share);
            let slowest = out.runs.iter().all(|r| r.session_p95 <= run.session_p95);
            let text = out
                .runs
                .iter()
                .map(|r| {
                    figure!(
                        "{}: cache {:.0}%, session P95 {:.0} s",
                        r.key.name(),
                        r.cache_share * 100.0,
                        r.session_p95
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            let load = out.run(agents::Key::Load)?;
            Reading::new(
                best_cache && slowest,
                text,
                vec![
                    Live::plain(percent(run.cache_share)),
                    Live::plain(fixed(run.session_p95, 0)),
                    Live::plain(fixed(load.session_p95, 0)),
                ],
            )
        }
        _ => {
            let Claim::CapHolds { held, p95_s } = claim else {
                return None;
            };
            Reading::new(
                now.held == held && run.others_p95 < p95_s as f64,
                figure!(
                    "gateway holds {}, other sessions' TTFT P95 {:.1} s",
                    now.held,
                    run.others_p95
                ),
                vec![
                    Live::plain(out.config.cap.to_string()),
                    Live::plain(now.held.to_string()),
                    Live::plain(fixed(run.others_p95, 1)),
                ],
            )
        }
    };
    Some(reading)
}
