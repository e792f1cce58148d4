//! The prefix player's two routers: the shared least-outstanding and
//! prefix-aware rules, over replicas whose load is their assignment count and
//! whose cache holds whole prefixes. Ties go to the lowest index so the
//! article's figures are exact.

use alloc::vec;
use alloc::vec::Vec;

use super::outcome::{
    CacheEntry, Outcome, PrefixMoment, PrefixReason, RouterKind, RouterRun, Step, SweepPoint,
};
use super::{Config, PrefixRequest};
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::routing::{
    AnyRouter, Chooser, GapRule, PrefixAwareParams, Reason, ReplicaState, RouteContext, Router,
    RuleKind, RuleSettings, Ties,
};
use crate::time::Tick;
use crate::workload::Request;

/// Route the config's trace with both routers, plus the threshold sweep.
pub fn run(config: &Config) -> Result<Outcome, ParamError> {
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

/// One replica as the player's routers see it: load is cumulative assignments
/// (requests never finish here, which isolates placement from timing), and the
/// cache either holds the current request's whole prefix or not.
#[derive(Clone, Copy, Debug)]
struct SlotView {
    assignments: u32,
    /// Prefix tokens of the current request cached here (0 or the whole prefix).
    cached: u32,
}

impl ReplicaState for SlotView {
    fn outstanding(&self) -> u32 {
        self.assignments
    }

    fn waiting(&self) -> u32 {
        0
    }

    fn kv_used(&self) -> u32 {
        0
    }

    fn cached_tokens(&self, _request: &Request, _block_tokens: u32) -> u32 {
        self.cached
    }
}

/// The shared rule behind each of the player's routers. Prefix-aware compares
/// the holder with the least loaded ([`GapRule::Holder`]); any cached prefix is
/// worth following (cache threshold 0).
fn router_for(kind: RouterKind, threshold: Option<u32>) -> AnyRouter {
    match kind {
        RouterKind::Load => RuleKind::LeastOutstanding.build(&RuleSettings::default()),
        RouterKind::PrefixAware => RuleKind::PrefixAware.build(&RuleSettings {
            prefix_aware: PrefixAwareParams {
                abs_threshold: threshold.unwrap_or(u32::MAX),
                rel_threshold: 1.0,
                cache_threshold: 0.0,
                gap: GapRule::Holder,
            },
            ..RuleSettings::default()
        }),
    }
}

/// What every replica looks like to the router for `req`: its assignments
/// so far, and the prefix tokens it holds for this request (all or none).
fn fill_views(
    views: &mut Vec<SlotView>,
    caches: &[Vec<CacheEntry>],
    loads: &[u32],
    req: &PrefixRequest,
) {
    views.clear();
    views.extend(
        caches
            .iter()
            .zip(loads)
            .map(|(cache, &assignments)| SlotView {
                assignments,
                cached: if cache.iter().any(|e| e.prefix == req.prefix) {
                    req.prefix_tokens
                } else {
                    0
                },
            }),
    );
}

/// The router's reason in the player's words: affinity, an escape from a
/// busy holder, a first sight of the prefix, a prefix evicted since, or load.
fn prefix_reason(reason: &Reason, first_sight: bool) -> PrefixReason {
    match *reason {
        Reason::CacheAffinity { .. } => PrefixReason::Affinity,
        Reason::AffinityDropped {
            holder,
            holder_load,
            least_load,
        } => PrefixReason::AffinityDropped {
            holder,
            holder_load,
            least_load,
        },
        Reason::LowMatch { .. } if first_sight => PrefixReason::FirstSight,
        Reason::LowMatch { .. } => PrefixReason::Evicted,
        _ => PrefixReason::Load,
    }
}

/// Use `prefix` in a replica's cache of `slots` entries (LRU, newest last):
/// a hit moves it to the back; a miss adds it, evicting the oldest when
/// full. Returns whether it hit and what was evicted.
fn touch(cache: &mut Vec<CacheEntry>, prefix: u8, slots: usize) -> (bool, Option<u8>) {
    match cache.iter().position(|e| e.prefix == prefix) {
        Some(pos) => {
            let mut entry = cache.remove(pos);
            entry.hits += 1;
            cache.push(entry);
            (true, None)
        }
        None => {
            let evicted = (cache.len() >= slots).then(|| cache.remove(0).prefix);
            cache.push(CacheEntry { prefix, hits: 0 });
            (false, evicted)
        }
    }
}

/// The step's key moment, if any: an escape, a miss on a prefix another
/// replica holds, or an eviction.
fn moment_of(
    reason: PrefixReason,
    holder: Option<usize>,
    evicted: Option<u8>,
) -> Option<PrefixMoment> {
    match (reason, holder, evicted) {
        (PrefixReason::AffinityDropped { holder, .. }, _, _) => {
            Some(PrefixMoment::Escape { holder })
        }
        (_, Some(h), _) => Some(PrefixMoment::HotMiss { holder: h as u32 }),
        (_, None, Some(prefix)) => Some(PrefixMoment::Eviction { prefix }),
        _ => None,
    }
}

/// Route `trace` with one router over `replicas` replicas of `slots` cache slots.
pub fn simulate(
    trace: &[PrefixRequest],
    replicas: usize,
    slots: usize,
    router: RouterKind,
    threshold: Option<u32>,
) -> RouterRun {
    let mut selector = router_for(router, threshold);
    // Ties go to the lowest index, so no draw is ever taken from this stream.
    let mut rng = Rng::new(0, stream::TIE_BREAKS);
    let mut caches: Vec<Vec<CacheEntry>> = vec![Vec::new(); replicas];
    let mut loads = vec![0u32; replicas];
    let mut seen: Vec<u8> = Vec::new();
    let mut steps = Vec::with_capacity(trace.len());
    let mut views = Vec::with_capacity(replicas);
    let (mut hits, mut escapes, mut total) = (0u32, 0u32, 0u64);
    for (i, req) in trace.iter().enumerate() {
        fill_views(&mut views, &caches, &loads, req);
        let request = Request {
            adapter: 0,
            arrival: Tick(i as u64),
            prompt_tokens: req.prompt_tokens(),
            output_tokens: 1,
            blocks: Vec::new(),
            long: false,
        };
        let ctx = RouteContext {
            now: request.arrival,
            request: &request,
            block_tokens: 1,
            kv_block_tokens: 1,
            replicas: &views,
        };
        let Some(decision) = selector.select(&ctx, &mut Chooser::new(&mut rng, Ties::First)) else {
            break;
        };
        let first_sight = !seen.contains(&req.prefix);
        let reason = prefix_reason(&decision.reason, first_sight);
        escapes += u32::from(matches!(reason, PrefixReason::AffinityDropped { .. }));
        if first_sight {
            seen.push(req.prefix);
        }
        let target = decision.replica as usize;
        let holder = views
            .iter()
            .position(|v| v.cached > 0)
            .filter(|_| views[target].cached == 0);
        let (hit, evicted) = touch(&mut caches[target], req.prefix, slots);
        let prefill = if hit {
            req.suffix_tokens
        } else {
            req.prompt_tokens()
        };
        hits += u32::from(hit);
        total += u64::from(prefill);
        loads[target] += 1;
        let moment = moment_of(reason, holder, evicted);
        steps.push(Step {
            request: i as u32,
            target: target as u32,
            hit,
            reason,
            prefill_tokens: prefill,
            cumulative_prefill: total,
            assignments: loads.clone(),
            caches: caches.clone(),
            evicted,
            moment,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_cache_is_lru_with_the_newest_last() {
        let mut cache = Vec::new();
        assert_eq!(touch(&mut cache, 1, 2), (false, None));
        assert_eq!(touch(&mut cache, 2, 2), (false, None));
        // A hit moves 1 behind 2, so 2 is the oldest when 3 arrives.
        assert_eq!(touch(&mut cache, 1, 2), (true, None));
        assert_eq!(touch(&mut cache, 3, 2), (false, Some(2)));
        let held: Vec<u8> = cache.iter().map(|e| e.prefix).collect();
        assert_eq!(held, [1, 3]);
        assert_eq!(cache[0].hits, 1);
    }

    #[test]
    fn moments_rank_an_escape_over_a_hot_miss_over_an_eviction() {
        let escape = PrefixReason::AffinityDropped {
            holder: 2,
            holder_load: 5,
            least_load: 1,
        };
        assert_eq!(
            moment_of(escape, Some(1), Some(4)),
            Some(PrefixMoment::Escape { holder: 2 })
        );
        assert_eq!(
            moment_of(PrefixReason::Load, Some(1), Some(4)),
            Some(PrefixMoment::HotMiss { holder: 1 })
        );
        assert_eq!(
            moment_of(PrefixReason::Load, None, Some(4)),
            Some(PrefixMoment::Eviction { prefix: 4 })
        );
        assert_eq!(moment_of(PrefixReason::Affinity, None, None), None);
    }
}
