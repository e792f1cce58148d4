//! The herding lab's tick loop.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::outcome::{Outcome, RouterView, RuleSummary, TickSnapshot, Timeline};
use super::{Config, HerdingRule};
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::routing::{Chooser, RouteContext, Router, RuleSettings, Ties};
use crate::time::Tick;
use crate::workload::Request;

/// Run every rule on the same arrivals.
pub fn run(config: &Config) -> Result<Outcome, ParamError> {
    run_rules(config, HerdingRule::ALL)
}

/// Run one rule.
pub fn run_rule(config: &Config, rule: HerdingRule) -> Result<Outcome, ParamError> {
    run_rules(config, &[rule])
}

/// Run the given rules on the same arrivals.
pub fn run_rules(config: &Config, rules: &[HerdingRule]) -> Result<Outcome, ParamError> {
    config.validate()?;
    let mut arrivals_rng = Rng::new(config.seed, stream::ARRIVALS);
    let arrivals: Vec<u32> = (0..config.ticks)
        .map(|t| {
            if config.even_arrivals {
                config.even_count(t)
            } else {
                arrivals_rng.poisson(config.arrival_rate)
            }
        })
        .collect();
    Ok(Outcome {
        config: config.clone(),
        rules: rules
            .iter()
            .map(|&r| simulate(config, &arrivals, r))
            .collect(),
        arrivals,
    })
}

struct RouterState {
    snapshot: Vec<u32>,
    taken_at: u32,
    own: Vec<u32>,
}

fn simulate(config: &Config, arrivals: &[u32], rule: HerdingRule) -> RuleSummary {
    let n = config.replicas as usize;
    let k = config.routers as usize;
    let t_scrape = config.scrape_interval;
    // One decision stream, read in arrival order across all routers and shared
    // by every rule's run: rules differ only in logic, and in-phase stale
    // least-outstanding makes the same choices whatever the router count.
    let mut rng = Rng::new(config.seed, stream::TIE_BREAKS);
    let mut selector = rule.rule().build(&RuleSettings::default());
    // Herding requests carry no prompt: only the count matters.
    let request = Request {
        arrival: Tick::ZERO,
        prompt_tokens: 1,
        output_tokens: 1,
        blocks: Vec::new(),
        long: false,
    };
    let mut views = Vec::with_capacity(n);
    let mut routers: Vec<RouterState> = (0..k)
        .map(|_| RouterState {
            snapshot: vec![0; n],
            taken_at: 0,
            own: vec![0; n],
        })
        .collect();
    let mut outstanding = vec![0u32; n];
    // (finish tick, replica) in dispatch order; finish ticks are non-decreasing.
    let mut in_flight: VecDeque<(u32, usize)> = VecDeque::new();
    let mut next_router = 0usize;
    let mut ticks = Vec::with_capacity(arrivals.len());
    let mut skews = Vec::with_capacity(arrivals.len());
    let (mut multi_ticks, mut piled_ticks) = (0u32, 0u32);

    for (t, &count) in arrivals.iter().enumerate() {
        let t = t as u32;
        while let Some(&(finish, r)) = in_flight.front() {
            if finish > t {
                break;
            }
            outstanding[r] -= 1;
            in_flight.pop_front();
        }
        let mut scraped = vec![false; k];
        for (i, router) in routers.iter_mut().enumerate() {
            let offset = config.offset(i as u32);
            if t >= offset && (t - offset) % t_scrape == 0 {
                router.snapshot.copy_from_slice(&outstanding);
                router.taken_at = t;
                router.own.iter_mut().for_each(|o| *o = 0);
                scraped[i] = true;
            }
        }
        let mut new = vec![0u32; n];
        let mut dispatched: Vec<Vec<u32>> = vec![Vec::new(); k];
        for _ in 0..count {
            let ri = next_router;
            next_router = (next_router + 1) % k;
            let router = &mut routers[ri];
            views.clear();
            views.extend(
                router
                    .snapshot
                    .iter()
                    .zip(&router.own)
                    .map(|(&seen, &own)| rule.view(seen, own)),
            );
            let ctx = RouteContext {
                now: Tick(u64::from(t)),
                request: &request,
                block_tokens: 1,
                kv_block_tokens: 1,
                replicas: &views,
            };
            let Some(decision) = selector.select(&ctx, &mut Chooser::new(&mut rng, Ties::Random))
            else {
                continue;
            };
            let target = decision.replica as usize;
            router.own[target] += 1;
            outstanding[target] += 1;
            new[target] += 1;
            in_flight.push_back((t + config.service_time, target));
            dispatched[ri].push(target as u32);
        }
        let skew = outstanding.iter().max().copied().unwrap_or(0)
            - outstanding.iter().min().copied().unwrap_or(0);
        if count >= 2 {
            multi_ticks += 1;
            if new.iter().filter(|&&x| x > 0).count() == 1 {
                piled_ticks += 1;
            }
        }
        skews.push(skew);
        ticks.push(TickSnapshot {
            tick: t,
            outstanding: outstanding.clone(),
            new,
            arrivals: count,
            skew,
            routers: routers
                .iter()
                .zip(scraped)
                .zip(dispatched)
                .map(|((r, scraped), dispatched)| RouterView {
                    snapshot: r.snapshot.clone(),
                    age: t - r.taken_at,
                    own: r.own.clone(),
                    scraped,
                    dispatched,
                })
                .collect(),
        });
    }

    let mean = |xs: &[u32]| {
        if xs.is_empty() {
            0.0
        } else {
            xs.iter().map(|&x| f64::from(x)).sum::<f64>() / xs.len() as f64
        }
    };
    let diffs: Vec<u32> = skews.windows(2).map(|w| w[1].abs_diff(w[0])).collect();
    RuleSummary {
        rule,
        peak_skew: skews.iter().max().copied().unwrap_or(0),
        mean_skew: mean(&skews),
        oscillation: mean(&diffs),
        pile_up_share: if multi_ticks == 0 {
            0.0
        } else {
            f64::from(piled_ticks) / f64::from(multi_ticks)
        },
        skew: skews,
        timeline: Timeline { ticks },
    }
}
