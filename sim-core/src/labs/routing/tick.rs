//! The Routing Lab's tick loop: one rule's run on one workload, tick by
//! tick, with its metrics; an observer, if given, sees every tick (the
//! player's timeline is recorded this way, so it replays the very run whose
//! metrics the lab reports).

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::arrivals::Arrivals;
use super::outcome::{DecisionDetail, ReasonCount, ReplicaOutcome, RuleOutcome};
use super::player::PLAYER_TICKS;
use super::series::QueueSampler;
use super::shadows::Shadows;
use super::{work, Config};
use crate::choice::Choice;
use crate::engine::{EngineEvent, Replica};
use crate::labs::work::Meter;
use crate::rng::{stream, Rng};
use crate::routing::{Chooser, RouteContext, Router, RuleKind, Ties};
use crate::stats::percentile_sorted;
use crate::time::Tick;
use crate::workload::Workload;

/// The work the run's requests brought, per tick of the arrival window
/// (ticks 0 to the last arrival), over what the pool can do in that window.
/// A request's work at full efficiency is its uncached prompt in whole
/// prefill steps plus its output at a full batch (`slots` tokens per decode
/// step); a replica runs `speed` steps per tick from when it joined. This is
/// the least work the requests need, so offered load above 1 means the pool
/// cannot keep up whatever the rule does.
fn offered_load(
    config: &Config,
    workload: &Workload,
    cached: &[Option<u32>],
    replicas: &[Replica],
    last_arrival: u64,
) -> f64 {
    let reqs = &workload.requests;
    let window = last_arrival + 1;
    let budget = config.prefill_budget.max(1);
    let slots = f64::from(config.slots.max(1));
    let cost = config.step_cost();
    let work: f64 = reqs
        .iter()
        .zip(cached)
        .map(|(r, c)| {
            let cached = r.prompt_tokens.saturating_sub(1).min(c.unwrap_or(0));
            let uncached = r.prompt_tokens - cached;
            match &cost {
                None => f64::from(uncached.div_ceil(budget)) + f64::from(r.output_tokens) / slots,
                // Milliseconds: the request's prefill chunks alone, and its
                // share of full-batch decode steps whose sequences have
                // contexts like its own (at mid-output).
                Some(cost) => {
                    let mut ms = 0.0;
                    let mut done = cached;
                    while done < r.prompt_tokens {
                        let take = (r.prompt_tokens - done).min(budget);
                        ms += cost.prefill_s(f64::from(take), f64::from(done)) * 1000.0;
                        done += take;
                    }
                    let context = f64::from(r.prompt_tokens) + f64::from(r.output_tokens) / 2.0;
                    let step = cost.decode_s(slots, slots * context) * 1000.0;
                    ms + f64::from(r.output_tokens) * step / slots
                }
            }
        })
        .sum();
    let capacity: f64 = replicas
        .iter()
        .map(|r| r.speed() * window.saturating_sub(r.joined_at().0).max(1) as f64)
        .sum();
    if capacity <= 0.0 {
        0.0
    } else {
        work / capacity
    }
}

/// A decision as the observer sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Routed {
    /// The request.
    pub request: u32,
    /// The rule's pick and why.
    pub decision: crate::routing::Decision,
    /// Outstanding requests on the pick just before this request joined.
    pub load: u32,
    /// The replica with the fewest outstanding at that moment (lowest index
    /// among ties) and its count.
    pub lightest: (u32, u32),
}

/// What the tick loop shows an observer after each tick: the tick, the
/// replicas after their step, the decisions taken at this tick and the
/// engines' events (replica, event).
pub(super) type Observer<'a> =
    &'a mut dyn FnMut(Tick, &[Replica], &[Routed], &[(u32, EngineEvent)]);

pub(super) fn run_one(
    config: &Config,
    workload: &Workload,
    rule: RuleKind,
    meter: &Meter,
) -> RuleOutcome {
    run_observed(config, workload, rule, None, meter, false)
}

/// One rule's run; with an observer, every tick is shown to it (the
/// player's timeline is recorded this way, so it replays the very run whose
/// metrics the lab reports). `stepwise` runs every tick through this loop
/// (tests compare it with the stretches run in one call).
pub(super) fn run_observed(
    config: &Config,
    workload: &Workload,
    rule: RuleKind,
    mut observer: Option<Observer<'_>>,
    meter: &Meter,
    stepwise: bool,
) -> RuleOutcome {
    let watching = observer.is_some();
    // Stretches between arrivals run in one call per replica, and idle ones
    // are jumped over, from here on (a recording sees every tick it keeps;
    // `stepwise`, for tests, ticks through the whole run).
    let skip_from = if stepwise {
        u64::MAX
    } else if watching {
        PLAYER_TICKS
    } else {
        0
    };
    let mut routed_now: Vec<Routed> = Vec::new();
    let mut events_now: Vec<(u32, EngineEvent)> = Vec::new();
    let n = config.replicas as usize;
    let reqs = &workload.requests;
    let new_replica =
        |i: usize, at: Tick| config.replica(workload.block_tokens, config.speed(i), at);
    let mut replicas: Vec<Replica> = (0..n).map(|i| new_replica(i, Tick::ZERO)).collect();
    // One router per gateway copy, each with its own state; request k
    // reaches gateway k mod N (round robin, as a load balancer in front of
    // the gateways spreads connections).
    let gateways = config.gateways.max(1) as usize;
    let mut routers: Vec<_> = (0..gateways).map(|_| rule.build(&config.rules)).collect();
    // Its own stream, so a random spread leaves the tie-breaks as they are.
    let mut spread = Rng::new(config.seed, stream::GATEWAYS + rule.index() as u64);
    // Each rule draws from its own stream, so every rule replays the same trace
    // and a rule's choices do not depend on which other rules ran.
    let mut rng = Rng::new(config.seed, stream::TIE_BREAKS + rule.index() as u64);
    let mut shadows = config.counterfactuals.then(|| Shadows::new(config, rule));
    let mut counterfactuals = Vec::new();
    let mut ttft: Vec<Option<u64>> = vec![None; reqs.len()];
    let mut e2e: Vec<Option<u64>> = vec![None; reqs.len()];
    let mut finished_at: Vec<Option<u64>> = vec![None; reqs.len()];
    let mut cached: Vec<Option<u32>> = vec![None; reqs.len()];
    let mut decisions = Vec::with_capacity(reqs.len());
    let mut events = Vec::new();
    let mut sampler = QueueSampler::new(n);
    let mut arrivals = Arrivals::new(config, workload);
    // Scratch for the stretches, reused pass after pass (the loop runs once
    // per arrival; allocating them anew each time cost about 4% of the
    // Routing Lab's run in the browser's wasm).
    let mut counts: Vec<u32> = Vec::new();
    let mut finishes: Vec<(u64, usize)> = Vec::new();
    let mut idle_from: Vec<u64> = Vec::new();
    let mut now = Tick::ZERO;
    let mut last_finish: Option<u64> = None;
    let mut output_done: u64 = 0;
    let mut completed = 0u32;

    // What the meter charges: a tick of the pool, and a preemption with the
    // re-admission of its prompt blocks (routing/work.rs, fitted on release
    // runs).
    let tick_ns = work::TICK_NS * (n as f64 + f64::from(u8::from(config.scale_up_at > 0)));
    let in_ms = config.timing.in_ms();
    while now.0 < config.max_ticks {
        if !meter.tick(tick_ns) {
            break;
        }
        if config.scale_up_at > 0 && now.0 == config.scale_up_at {
            // A cold replica joins before this tick's arrivals are routed.
            replicas.push(config.replica(workload.block_tokens, 1.0, now));
            sampler.add_replica();
        }
        while let Some(next) = arrivals.due(now) {
            let ctx = RouteContext {
                now,
                request: &reqs[next],
                block_tokens: workload.block_tokens,
                kv_block_tokens: config.kv_block_tokens,
                replicas: &replicas,
            };
            let gateway = if gateways == 1 {
                0
            } else if config.gateway_random {
                spread.index(gateways)
            } else {
                next % gateways
            };
            let router = &mut routers[gateway];
            let Some(decision) = router.select(&ctx, &mut Chooser::new(&mut rng, Ties::Random))
            else {
                break;
            };
            if let Some(shadows) = shadows.as_mut() {
                counterfactuals.push(DecisionDetail {
                    request: next as u32,
                    tick: now.0,
                    prompt_tokens: reqs[next].prompt_tokens,
                    decision,
                    others: shadows.consult(&ctx, decision.replica),
                });
            }
            if watching {
                routed_now.push(Routed {
                    request: next as u32,
                    decision,
                    load: replicas[decision.replica as usize].outstanding(),
                    lightest: replicas
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (r.outstanding(), i as u32))
                        .min()
                        .map_or((0, 0), |(load, i)| (i, load)),
                });
            }
            replicas[decision.replica as usize].enqueue(next as u32, reqs[next].prompt_tokens);
            decisions.push(decision);
            arrivals.take(now);
        }
        // Outside a recording, replicas are coupled only by routing, so
        // until the next arrival (or the pool growing) each runs all its
        // ticks in one call; the queue series is rebuilt from the finish
        // ticks. What comes out is what ticking through would give, in far
        // fewer passes of this loop. (Not with closed-loop clients: a
        // finish in the stretch would send a request into it.)
        let until = if now.0 >= skip_from && !arrivals.closed() {
            let mut to = arrivals.next_at().unwrap_or(config.max_ticks);
            if config.scale_up_at > now.0 {
                to = to.min(config.scale_up_at);
            }
            to.min(config.max_ticks).max(now.0 + 1)
        } else {
            now.0 + 1
        };
        let batch = until > now.0 + 1;
        // Asked before the stretch: its answers can open the next stage.
        let draining = arrivals.waiting_on_answers();
        let ran = now;
        counts.clear();
        finishes.clear();
        idle_from.clear();
        let mut stopped = now.0 + 1;
        if batch {
            counts.extend(replicas.iter().map(Replica::outstanding));
        }
        for (index, replica) in replicas.iter_mut().enumerate() {
            events.clear();
            if batch {
                let s = replica.advance(now, Tick(until), workload, &mut events).0;
                idle_from.push(s);
                stopped = stopped.max(s);
            } else {
                replica.tick(now, workload, &mut events);
            }
            if watching {
                events_now.extend(events.iter().map(|&e| (index as u32, e)));
            }
            for ev in &events {
                match *ev {
                    EngineEvent::Admitted {
                        request,
                        cached_tokens,
                    } => {
                        cached[request as usize].get_or_insert(cached_tokens);
                    }
                    EngineEvent::FirstToken { request, tick } => {
                        let at = arrivals.arrival(request as usize);
                        ttft[request as usize].get_or_insert(tick.next().since(at));
                    }
                    EngineEvent::Finished { request, tick } => {
                        let r = &reqs[request as usize];
                        e2e[request as usize] =
                            Some(tick.next().since(arrivals.arrival(request as usize)));
                        finished_at[request as usize] = Some(tick.next().0);
                        arrivals.finished(request as usize, tick);
                        output_done += u64::from(r.output_tokens);
                        completed += 1;
                        last_finish = Some(last_finish.map_or(tick.0, |l: u64| l.max(tick.0)));
                        if batch {
                            finishes.push((tick.0, index));
                        }
                    }
                    EngineEvent::Preempted { request } => {
                        let blocks = reqs[request as usize].blocks.len() as f64;
                        meter.preemption(work::PREEMPT_NS + work::BLOCK_NS * blocks);
                    }
                }
            }
        }
        if batch {
            // With no arrival left, the run ends when the last replica
            // falls idle, as it would tick by tick.
            let end = if draining && config.scale_up_at <= now.0 {
                stopped.min(until)
            } else {
                until
            };
            if !in_ms {
                // Ticks mode, as the tick-by-tick loop has it: every replica
                // ticks (idle ones only move their speed credit) until the
                // whole pool is idle, each of those ticks charged to the
                // meter; then the jump to the next arrival below.
                let all_idle = stopped.min(until);
                for (replica, &s) in replicas.iter_mut().zip(&idle_from) {
                    replica.idle_ticks(all_idle - s);
                    if end > all_idle {
                        replica.idle_for(end - all_idle);
                    }
                }
                // The first of these ticks was charged at the loop's top.
                if (now.0 + 1..all_idle).any(|_| !meter.tick(tick_ns)) {
                    break;
                }
            }
            // By tick; the order within a tick does not matter.
            finishes.sort_unstable_by_key(|f| f.0);
            let mut t = now.0;
            for &(f, i) in &finishes {
                if f > t {
                    sampler.push_counts(&counts, f - t);
                    t = f;
                }
                counts[i] -= 1;
            }
            sampler.push_counts(&counts, end - t);
            now = Tick(end);
        } else {
            sampler.push(&replicas);
            now = now.next();
        }
        if let Some(observe) = observer.as_mut() {
            observe(ran, &replicas, &routed_now, &events_now);
            routed_now.clear();
            events_now.clear();
        }
        let scale_up_pending = config.scale_up_at > 0 && now.0 <= config.scale_up_at;
        let idle = replicas.iter().all(Replica::is_idle);
        if arrivals.all_routed() && idle && !scale_up_pending {
            break;
        }
        // An idle pool waits for the next arrival: jump there rather than
        // tick through (a trace's quiet night would otherwise cost a tick
        // per millisecond). Nothing happens in such ticks but the clock,
        // each replica's speed credit and the queue series' zeros, which the
        // jump keeps; a recording player sees every tick it records.
        if idle && now.0 >= skip_from {
            let mut to = arrivals.next_at().unwrap_or(config.max_ticks);
            if scale_up_pending {
                to = to.min(config.scale_up_at);
            }
            let to = to.min(config.max_ticks);
            if to > now.0 {
                let gap = to - now.0;
                for r in replicas.iter_mut() {
                    r.idle_for(gap);
                }
                sampler.push_idle(gap);
                now = Tick(to);
            }
        }
    }

    let ticks = last_finish.map_or(now.0, |t| t + 1).max(1);
    let mut ttfts: Vec<f64> = ttft.iter().flatten().map(|&t| t as f64).collect();
    ttfts.sort_by(f64::total_cmp);
    let mut e2es: Vec<f64> = e2e.iter().flatten().map(|&t| t as f64).collect();
    e2es.sort_by(f64::total_cmp);
    let met = ttft
        .iter()
        .flatten()
        .filter(|&&t| t <= config.slo_ticks())
        .count();
    let (mut hit_tokens, mut prompt_tokens) = (0u64, 0u64);
    for (c, r) in cached.iter().zip(reqs) {
        if let Some(c) = c {
            hit_tokens += u64::from(*c);
            prompt_tokens += u64::from(r.prompt_tokens);
        }
    }
    let stats: Vec<_> = replicas.iter().map(Replica::stats).collect();
    let assigned = stats.iter().map(|s| s.assigned);
    let gap = assigned.clone().max().unwrap_or(0) - assigned.min().unwrap_or(0);
    let mut reasons: Vec<ReasonCount> = Vec::new();
    for d in &decisions {
        let name = d.reason.name();
        match reasons.iter_mut().find(|r| r.reason == name) {
            Some(r) => r.count += 1,
            None => reasons.push(ReasonCount {
                reason: String::from(name),
                count: 1,
            }),
        }
    }
    RuleOutcome {
        rule,
        ttft_p50: percentile_sorted(&ttfts, 50.0),
        ttft_p95: percentile_sorted(&ttfts, 95.0),
        e2e_p95: percentile_sorted(&e2es, 95.0),
        slo_attainment: met as f64 / reqs.len().max(1) as f64,
        cache_hit_share: if prompt_tokens == 0 {
            0.0
        } else {
            hit_tokens as f64 / prompt_tokens as f64
        },
        assignment_gap: gap,
        output_throughput: output_done as f64 / ticks as f64,
        completed,
        outstanding: reqs.len() as u32 - completed,
        ticks,
        preemptions: stats.iter().map(|s| s.preemptions).sum(),
        offered_load: offered_load(config, workload, &cached, &replicas, arrivals.last()),
        replicas: replicas
            .iter()
            .zip(&stats)
            .enumerate()
            .map(|(i, (r, s))| {
                // Capacity: iterations it could have run since it joined.
                let alive = ticks.saturating_sub(r.joined_at().0).max(1) as f64;
                let capacity = alive * r.speed();
                // In milliseconds mode a tick is a millisecond of the
                // replica's time, and iterations are counted in microseconds.
                let (busy, prefill) = if config.timing.in_ms() {
                    (s.busy_us as f64 / 1000.0, s.prefill_us as f64 / 1000.0)
                } else {
                    (s.busy_ticks as f64, s.prefill_ticks as f64)
                };
                ReplicaOutcome {
                    assigned: s.assigned,
                    completed: s.completed,
                    utilization: busy / capacity,
                    prefill_share: prefill / capacity,
                    mean_outstanding: sampler.mean(i, r.joined_at().0),
                    speed: r.speed(),
                    joined_at: r.joined_at().0,
                }
            })
            .collect(),
        reasons,
        queue: sampler.finish(),
        decisions,
        ttfts,
        finished_at,
        ttft_by_request: ttft,
        sent_at: arrivals.times(),
        counterfactuals,
    }
}
