//! The prefix player's two routers.

use alloc::vec;
use alloc::vec::Vec;

use super::outcome::{CacheEntry, Outcome, PrefixReason, RouterKind, RouterRun, Step, SweepPoint};
use super::{Config, PrefixRequest};
use crate::labs::RangeError;

/// Route the config's trace with both routers, plus the threshold sweep.
pub fn run(config: &Config) -> Result<Outcome, RangeError> {
    config.validate()?;
    let trace = config.requests();
    let n = config.replicas as usize;
    let slots = config.slots as usize;
    let load = simulate(&trace, n, slots, RouterKind::Load, config.threshold);
    let aware = simulate(&trace, n, slots, RouterKind::PrefixAware, config.threshold);
    let reduction = if load.prefill_tokens == 0 {
        0.0
    } else {
        1.0 - aware.prefill_tokens as f64 / load.prefill_tokens as f64
    };
    let sweep = (0..=10u32)
        .map(Some)
        .chain(core::iter::once(None))
        .map(|t| {
            let r = simulate(&trace, n, slots, RouterKind::PrefixAware, t);
            let max = r.assignments.iter().max().copied().unwrap_or(0);
            let min = r.assignments.iter().min().copied().unwrap_or(0);
            SweepPoint {
                threshold: t,
                hits: r.hits,
                assignment_gap: max - min,
            }
        })
        .collect();
    Ok(Outcome {
        config: config.clone(),
        trace,
        routers: vec![load, aware],
        prefill_reduction: reduction,
        sweep,
    })
}

/// Lowest-index replica with the fewest assignments among `candidates`.
fn least(loads: &[u32], candidates: impl Iterator<Item = usize>) -> Option<usize> {
    candidates.min_by_key(|&i| (loads[i], i))
}

/// Route `trace` with one router over `replicas` replicas of `slots` cache slots.
pub fn simulate(
    trace: &[PrefixRequest],
    replicas: usize,
    slots: usize,
    router: RouterKind,
    threshold: Option<u32>,
) -> RouterRun {
    let mut caches: Vec<Vec<CacheEntry>> = vec![Vec::new(); replicas];
    let mut loads = vec![0u32; replicas];
    let mut seen: Vec<u8> = Vec::new();
    let mut steps = Vec::with_capacity(trace.len());
    let (mut hits, mut escapes, mut total) = (0u32, 0u32, 0u64);
    for (i, req) in trace.iter().enumerate() {
        let least_all = least(&loads, 0..replicas).unwrap_or(0);
        let (target, reason) = match router {
            RouterKind::Load => (least_all, PrefixReason::Load),
            RouterKind::PrefixAware => {
                let holder = least(
                    &loads,
                    (0..replicas).filter(|&r| caches[r].iter().any(|e| e.prefix == req.prefix)),
                );
                match holder {
                    _ if !seen.contains(&req.prefix) => (least_all, PrefixReason::FirstSight),
                    Some(h) => {
                        let gap = loads[h] - loads[least_all];
                        if threshold.is_some_and(|t| gap > t) {
                            escapes += 1;
                            let reason = PrefixReason::AffinityDropped {
                                holder: h as u32,
                                holder_load: loads[h],
                                least_load: loads[least_all],
                            };
                            (least_all, reason)
                        } else {
                            (h, PrefixReason::Affinity)
                        }
                    }
                    None => (least_all, PrefixReason::Evicted),
                }
            }
        };
        if !seen.contains(&req.prefix) {
            seen.push(req.prefix);
        }
        let cache = &mut caches[target];
        let hit = match cache.iter().position(|e| e.prefix == req.prefix) {
            Some(pos) => {
                let mut entry = cache.remove(pos);
                entry.hits += 1;
                cache.push(entry);
                true
            }
            None => {
                if cache.len() >= slots {
                    cache.remove(0);
                }
                cache.push(CacheEntry {
                    prefix: req.prefix,
                    hits: 0,
                });
                false
            }
        };
        let prefill = if hit {
            req.suffix_tokens
        } else {
            req.prompt_tokens()
        };
        hits += u32::from(hit);
        total += u64::from(prefill);
        loads[target] += 1;
        steps.push(Step {
            request: i as u32,
            target: target as u32,
            hit,
            reason,
            prefill_tokens: prefill,
            cumulative_prefill: total,
            assignments: loads.clone(),
            caches: caches.clone(),
        });
    }
    RouterRun {
        router,
        hits,
        prefill_tokens: total,
        escapes,
        assignments: loads,
        steps,
    }
}
