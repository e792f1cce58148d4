//! The tours' steps opened as the page opens them, natively: the link's
//! pairs through the page's own readers, the run through the worker's
//! server, the step the player shows.

use sim_core::choice::Choice;
use sim_core::labs::serve::{Answer, Server};
use sim_core::labs::{agents, autoscale, batching, disagg, herding, prefix, queueing, routing};

use super::{Claim, Stop, TOURS};
use crate::page::state::{opening_step, read_items, read_wanted_step, recorded, OPENING};
use crate::page::{Shared, Snap, Step};
use crate::platform::worker::Job;

/// One step opened: its lab's page, configuration, run, items and step.
pub struct Opened {
    /// The configuration the link describes.
    pub config: Shared,
    /// Its run, decoded as the page decodes the worker's answer.
    pub outcome: Shared,
    /// The item in focus.
    pub focus: Option<usize>,
    /// The side-by-side item.
    pub vs: Option<usize>,
    /// The player's step the page shows (0-based).
    pub step: usize,
}

impl Opened {
    /// Run `f` on the snapshot the page shows.
    pub fn with<R>(&self, f: impl FnOnce(&Snap<'_>) -> R) -> R {
        let step = self.step;
        let snap = Snap {
            config: &self.config,
            outcome: &self.outcome,
            focus: self.focus,
            vs: self.vs,
            pickable: true,
            step: Step(&|| step),
        };
        f(&snap)
    }
}

/// Open `stop` as the page would.
pub fn open(stop: &Stop) -> Opened {
    let page = crate::labs::page(stop.lab()).expect("a lab with a page");
    let pairs: Vec<(String, String)> = stop
        .pairs()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut notices = Vec::new();
    let config = page.read_config(&pairs, &mut notices);
    let (focus, vs) = read_items(page, &pairs, &mut notices);
    let wanted = read_wanted_step(page.entry(), &pairs, &mut notices);
    assert!(notices.is_empty(), "{}: {notices:?}", stop.link);
    let job = Job {
        lab: page.entry().info.id,
        pairs: page.all_pairs(&config),
        only: Vec::new(),
        trace: None,
        record: recorded(page, focus, vs),
    };
    let mut bytes = None;
    Server::new().answer(&job.ask(), &|| 0.0, &mut |a| match a {
        Answer::Done { bytes: b, .. } => bytes = Some(b),
        Answer::Failed { why, .. } => panic!("{}: {why}", stop.link),
        _ => {}
    });
    let outcome = page
        .decode(&bytes.expect("an outcome"), &config)
        .expect("decodes");
    let mut opened = Opened {
        config,
        outcome,
        focus,
        vs,
        step: 0,
    };
    let wanted = match wanted {
        OPENING => opened.with(|s| opening_step(page, s)),
        w => w,
    };
    let len = opened.with(|s| page.player_len(s));
    opened.step = if len == 0 {
        wanted
    } else {
        wanted.min(len - 1)
    };
    opened
}

/// A measured figure and whether the claim holds on it.
type Measured = (bool, String);

impl Opened {
    /// The outcome as lab type `O`'s.
    fn out<O: 'static>(&self) -> &O {
        self.outcome.get::<O>().expect("the lab's outcome")
    }

    /// The item in focus, as item type `I`.
    fn item<I: Choice>(&self) -> I {
        I::ALL[self.focus.expect("an item in focus")]
    }
}

/// Measure `claim` on the opened step.
fn measure(claim: Claim, o: &Opened) -> Measured {
    use Claim::*;
    match claim {
        InTurn | PastLighter { .. } | RulesPart | QueueOnlyBeside => routing_claim(claim, o),
        VariationShrinksLoad => {
            let out = o.out::<queueing::knee::Outcome>();
            let mut curves: Vec<_> = out.curves.iter().collect();
            curves.sort_by(|a, b| a.cv2.total_cmp(&b.cv2));
            let usable: Vec<f64> = curves.iter().map(|c| c.usable_utilization).collect();
            // Two curves may share a variation (the reader's and a reference).
            let holds = usable.len() >= 2
                && usable.windows(2).all(|w| w[1] <= w[0])
                && usable[usable.len() - 1] < usable[0];
            let text = curves
                .iter()
                .map(|c| format!("cv² {} → {:.0}%", c.cv2, c.usable_utilization * 100.0))
                .collect::<Vec<_>>()
                .join(", ");
            (holds, format!("usable load {text}"))
        }
        SameOldNumbers | Pile { .. } | NoPile { .. } | RoutersDiffer => herding_claim(claim, o),
        PrefixSaves | HotMiss | LetsGo => prefix_claim(claim, o),
        AdmitsOnlyEmpty | IdleSlot { .. } | RefillStalls | ChunksKeepFlowing => {
            batching_claim(claim, o)
        }
        SplitCostsShort | SplitWinsLong | Crossover { .. } | SplitOverwhelmed => {
            disagg_claim(claim, o)
        }
        OrdersHalfEmpty { .. } | OrderWaitsCold | FreshTakesAll | FreshHeldBack => {
            autoscale_claim(claim, o)
        }
        BurstOnOne { .. } | BurstSpread | CacheButSlowest | CapHolds { .. } => {
            agents_claim(claim, o)
        }
    }
}

fn routing_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<routing::Outcome>();
    let tl = out.timeline.as_ref().expect("a recording");
    let t = o.step;
    let routed = |k: usize, t: usize| -> Vec<(u32, u32)> {
        tl.rules[k]
            .at(t)
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
    match claim {
        Claim::InTurn => {
            let sent: Vec<u32> = (0..=t).flat_map(|t| routed(0, t)).map(|(_, r)| r).collect();
            let n = tl.replicas;
            let holds = sent.len() >= n as usize
                && sent.iter().enumerate().all(|(i, &r)| r == i as u32 % n);
            (
                holds,
                format!("{} requests sent, to replicas {:?}", sent.len(), sent),
            )
        }
        Claim::PastLighter { times } => match tl.rules[0].at(t).and_then(|a| a.moment) {
            Some(routing::player::RoutingMoment::SentPastLighter {
                replica,
                load,
                lighter,
                lighter_load,
                ..
            }) => (
                load >= times * lighter_load,
                format!(
                    "sent to replica {} holding {load}, lightest replica {} holding {lighter_load}",
                    replica + 1,
                    lighter + 1
                ),
            ),
            m => (
                false,
                format!("no request sent past a lighter replica ({m:?})"),
            ),
        },
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
                .map(|(q, r, s)| format!("request {q}: replica {} against {}", r + 1, s + 1))
                .collect::<Vec<_>>()
                .join("; ");
            (!parted.is_empty(), format!("parted at tick {t}: {text}"))
        }
        _ => {
            let waiting = |k: usize| -> Vec<usize> {
                tl.rules[k]
                    .at(t)
                    .map(|a| a.waiting.iter().map(Vec::len).collect())
                    .unwrap_or_default()
            };
            let (focus, beside) = (waiting(0), waiting(1));
            let holds = focus.iter().all(|&w| w == 0)
                && beside.iter().any(|&w| w > 0)
                && beside.contains(&0);
            (
                holds,
                format!("waiting per replica: focus {focus:?}, beside {beside:?}"),
            )
        }
    }
}

fn herding_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<herding::Outcome>();
    let run = out.rule(o.item()).expect("the rule's run");
    let ticks = &run.timeline.ticks;
    let now = &ticks[o.step];
    let most = now.outstanding.iter().copied().max().unwrap_or(0);
    let mean = now.outstanding.iter().sum::<u32>() as f64 / now.outstanding.len().max(1) as f64;
    let sent: Vec<(usize, u32, u32)> = now
        .routers
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.dispatched.iter().map(move |&d| (i + 1, r.age, d + 1)))
        .collect();
    match claim {
        Claim::SameOldNumbers => {
            let ages: Vec<u32> = now.routers.iter().map(|r| r.age).collect();
            let holds =
                ages.windows(2).all(|w| w[0] == w[1]) && ages.first().is_some_and(|&a| a > 0);
            (holds, format!("router ages {ages:?} ticks"))
        }
        Claim::Pile { load } => {
            let unanimous = matches!(now.moment, Some(herding::HerdMoment::Stampede { routers, .. }) if routers as usize == now.routers.len());
            (
                unanimous && most == load,
                format!(
                    "busiest holds {most} (mean {mean:.1}), moment {:?}",
                    now.moment
                ),
            )
        }
        Claim::NoPile { most: bound } => {
            let piled = ticks[..=o.step].iter().any(|t| t.moment.is_some());
            (
                !piled && most <= bound,
                format!(
                    "busiest holds {most} (mean {mean:.1}, {:?}), a pile so far: {piled}",
                    now.outstanding
                ),
            )
        }
        _ => {
            let targets: Vec<u32> = sent.iter().map(|s| s.2).collect();
            let differ = targets.iter().any(|&r| r != targets[0]);
            (differ, format!("(router, age, replica) sent: {sent:?}"))
        }
    }
}

fn prefix_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<prefix::Outcome>();
    let router = |k: prefix::RouterKind| {
        out.routers
            .iter()
            .find(|r| r.router == k)
            .expect("both routers")
    };
    let (load, aware) = (
        router(prefix::RouterKind::Load),
        router(prefix::RouterKind::PrefixAware),
    );
    match claim {
        Claim::PrefixSaves => (
            aware.prefill_tokens < load.prefill_tokens,
            format!(
                "prefilled tokens: prefix-aware {}, load only {}",
                aware.prefill_tokens, load.prefill_tokens
            ),
        ),
        Claim::HotMiss => {
            let s = &load.steps[o.step];
            let holder = match s.moment {
                Some(prefix::PrefixMoment::HotMiss { holder }) => Some(holder),
                _ => None,
            };
            (
                !s.hit && holder.is_some_and(|h| h != s.target),
                format!(
                    "load only: request {} to replica {}, hit {}, prefix held on {:?}",
                    s.request,
                    s.target + 1,
                    s.hit,
                    holder.map(|h| h + 1)
                ),
            )
        }
        _ => {
            let s = &aware.steps[o.step];
            let holder = match s.moment {
                Some(prefix::PrefixMoment::Escape { holder }) => Some(holder),
                _ => None,
            };
            (
                holder.is_some_and(|h| h != s.target),
                format!(
                    "prefix-aware: request {} to replica {}, prefix held on {:?}",
                    s.request,
                    s.target + 1,
                    holder.map(|h| h + 1)
                ),
            )
        }
    }
}

fn batching_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<batching::Outcome>();
    let mode: batching::Mode = o.item();
    let run = out
        .modes
        .iter()
        .find(|m| m.mode == mode)
        .expect("the mode's run");
    let it = &run.iterations_detail[o.step];
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
    match claim {
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
                    format!(
                        "iteration {}: {} admitted, {} idle",
                        d.iteration,
                        admitted(d),
                        idle(d)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            (
                holds,
                format!("admissions into an empty engine only: {text}"),
            )
        }
        Claim::IdleSlot { waiting } => (
            idle(it) >= 1 && it.waiting.len() == waiting as usize,
            format!("{} slot(s) empty, {} waiting", idle(it), it.waiting.len()),
        ),
        Claim::RefillStalls => (
            admitted(it) > 0 && it.output_tokens == 0,
            format!("{} admitted, {} tokens out", admitted(it), it.output_tokens),
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
            (
                prefilling && it.output_tokens > 0 && stalls == 0,
                format!("prefilling and {} tokens out at once; {stalls} iterations without output after the first token", it.output_tokens),
            )
        }
    }
}

fn disagg_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<disagg::Outcome>();
    let setup = |s: disagg::Setup| {
        out.runs
            .iter()
            .find(|r| r.setup == s)
            .expect("every setup runs")
    };
    let (co, split) = (
        setup(disagg::Setup::Colocated),
        setup(disagg::Setup::Disagg),
    );
    match claim {
        Claim::SplitCostsShort => (
            (split.tpot_p50 - co.tpot_p50).abs() <= 0.01 * co.tpot_p50 && split.ttft_p50 > co.ttft_p50,
            format!("TPOT P50 {:.2} ms colocated, {:.2} split; TTFT P50 {:.0} ms against {:.0}", co.tpot_p50, split.tpot_p50, split.ttft_p50, co.ttft_p50),
        ),
        Claim::SplitWinsLong => (
            split.tpot_p95 < co.tpot_p95 && split.e2e < co.e2e,
            format!("TPOT P95 {:.2} ms colocated, {:.2} split; mean latency {:.0} ms colocated, {:.0} split", co.tpot_p95, split.tpot_p95, co.e2e, split.e2e),
        ),
        Claim::Crossover { from, to } => match out.crossover {
            disagg::Crossover::At(x) => ((from as f64..=to as f64).contains(&x), format!("crossover at {x:.0} tokens")),
            c => (false, format!("crossover {c:?}")),
        },
        _ => {
            let load = setup(disagg::Setup::Load);
            (
                split.e2e > 60_000.0 && load.e2e <= 1.5 * co.e2e,
                format!("mean latency: split {:.0} s, prefill-load {:.1} s, colocated {:.1} s", split.e2e / 1000.0, load.e2e / 1000.0, co.e2e / 1000.0),
            )
        }
    }
}

fn autoscale_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<autoscale::Outcome>();
    let c = &out.config;
    let run = out.run(o.item()).expect("the scaler's run");
    let t = o.step;
    let now = &run.timeline[t];
    let ready: Vec<usize> = (0..now.pool.len())
        .filter(|&i| now.pool[i].life == autoscale::Life::Ready)
        .collect();
    match claim {
        Claim::OrdersHalfEmpty { used } => match now.moment {
            Some(autoscale::Moment::Pinned { busy, kv }) => (
                kv * 100.0 <= used as f64,
                format!(
                    "busy fraction {:.0}%, slots in use {:.0}%",
                    busy * 100.0,
                    kv * 100.0
                ),
            ),
            m => (false, format!("no order on a pinned signal ({m:?})")),
        },
        Claim::OrderWaitsCold => match now.moment {
            Some(autoscale::Moment::Ordered { ready_at, .. }) => (
                ready_at as usize - t >= c.cold as usize && 2 * c.cold == c.surge_for,
                format!(
                    "ordered at {t} s, ready at {ready_at} s; cold start {} s, surge {} s",
                    c.cold, c.surge_for
                ),
            ),
            m => (false, format!("no order ({m:?})")),
        },
        _ => {
            // The newest replica taking requests: the highest place ready.
            let newest = *ready.last().expect("a replica ready");
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
            let others: Vec<u32> = ready
                .iter()
                .filter(|&&i| i != newest)
                .map(|&i| now.pool[i].waiting)
                .collect();
            let text = format!(
                "newest replica {}: took {took} of {arrived} arrivals in {} s, {} running, {} waiting; others waiting {:?}",
                newest + 1, t + 1 - since, spot.running, spot.waiting, others
            );
            let holds = if claim == Claim::FreshTakesAll {
                took == arrived && spot.running == c.slots && others.iter().all(|&w| w > 0)
            } else {
                spot.waiting == 0 && 2 * spot.running < c.slots && others.iter().all(|&w| w > 0)
            };
            (holds, text)
        }
    }
}

fn agents_claim(claim: Claim, o: &Opened) -> Measured {
    let out = o.out::<agents::Outcome>();
    let key: agents::Key = o.item();
    let run = out.run(key).expect("the key's run");
    let now = &run.timeline[o.step];
    let burst = match now.moment {
        Some(agents::Moment::Burst {
            children,
            replicas,
            took,
            waiting,
            free,
            ..
        }) => Some((children, replicas, took, waiting, free)),
        _ => None,
    };
    match claim {
        Claim::BurstOnOne { waiting, free } => (
            burst.is_some_and(|b| b.1 == 1 && b.2 == b.0 && b.3 == waiting && b.4 == free),
            format!(
                "fan-out (children, replicas, on the busiest, waiting, free elsewhere): {burst:?}"
            ),
        ),
        Claim::BurstSpread => (
            burst.is_some_and(|b| b.1 == out.config.replicas && 4 * b.2 <= b.0 && b.3 == 0),
            format!(
                "fan-out (children, replicas, on the busiest, waiting, free elsewhere): {burst:?}"
            ),
        ),
        Claim::CacheButSlowest => {
            let best_cache = out.runs.iter().all(|r| r.cache_share <= run.cache_share);
            let slowest = out.runs.iter().all(|r| r.session_p95 <= run.session_p95);
            let text = out
                .runs
                .iter()
                .map(|r| {
                    format!(
                        "{}: cache {:.0}%, session P95 {:.0} s",
                        r.key.name(),
                        r.cache_share * 100.0,
                        r.session_p95
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            (best_cache && slowest, text)
        }
        _ => {
            let Claim::CapHolds { held, p95_s } = claim else {
                unreachable!()
            };
            (
                now.held == held && run.others_p95 < p95_s as f64,
                format!(
                    "gateway holds {}, other sessions' TTFT P95 {:.1} s",
                    now.held, run.others_p95
                ),
            )
        }
    }
}

/// Every step's claim, measured on the step's own run: every step but the
/// playground has one, and it holds. One line per step says what was
/// measured.
#[test]
fn every_step_claim_holds_on_its_own_run() {
    let mut failed = Vec::new();
    for t in TOURS {
        for (i, s) in t.stops.iter().enumerate() {
            if s.playground {
                continue;
            }
            let Some(claim) = s.claim else {
                failed.push(format!("{} {}: no claim", t.id, i + 1));
                continue;
            };
            let o = open(s);
            let (holds, figure) = measure(claim, &o);
            println!("{} {}: {figure}", t.id, i + 1);
            if !holds {
                failed.push(format!(
                    "{} {} ({claim:?}) does not hold: {figure}",
                    t.id,
                    i + 1
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
