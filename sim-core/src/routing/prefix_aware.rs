//! Prefix-aware routing in the shape of SGLang's `cache_aware` policy
//! (`sgl-model-gateway/src/policies/cache_aware.rs`; article §5.5), with the
//! article's §6.1 player as a second way of measuring the load gap.
//!
//! Load is outstanding requests. With [`GapRule::Pool`] (SGLang), `max` and
//! `min` are the highest and lowest load in the pool:
//! 1. if `max − min > abs_threshold` **and** `max > min × rel_threshold`, the pool
//!    is imbalanced: take the least-loaded replica (affinity dropped);
//! 2. otherwise find the replica holding the longest cached prefix of the prompt;
//!    if it covers more than `cache_threshold` of the prompt, take it;
//! 3. otherwise take the least-loaded replica.
//!
//! With [`GapRule::Holder`] (the §6.1 player) step 1 compares the replica that
//! would win on affinity with the least loaded, and only when the prompt is
//! cached somewhere: affinity is dropped only for a holder that is too far ahead.
//!
//! Among equal matches the lighter replica wins, then the chooser's tie-break.
//! Cache state is read from the replicas' own prefix caches, as a router
//! subscribed to KV events sees it (Dynamo's approach), rather than a router-side
//! approximate tree; the lab's model notes found no difference between the two
//! here. The defaults (4, 1.5, 0.3) are sized for a 4-replica lab: SGLang's
//! gateway defaults (abs 32–64) never trigger at these loads.

use serde::{Deserialize, Serialize};

use crate::params::{narrow, Param, Show};

use super::{Chooser, Rule, Decision, ReplicaState, Reason, RouteContext, Router, HasRules, Rows};

/// Which load gap decides that affinity is abandoned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GapRule {
    /// Busiest against idlest replica of the pool, before looking at the cache
    /// (SGLang's `cache_aware`).
    #[default]
    Pool,
    /// The replica holding the prompt against the idlest (the article's §6.1
    /// player).
    Holder,
}

/// Thresholds of the prefix-aware rule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PrefixAwareParams {
    /// Imbalance needs a load gap above this many requests.
    pub abs_threshold: u32,
    /// …and the higher load above the lower times this.
    pub rel_threshold: f64,
    /// Share of the prompt (0–1) a cached match must exceed to win on affinity.
    pub cache_threshold: f64,
    /// Which gap is compared with the thresholds.
    #[serde(default)]
    pub gap: GapRule,
}

impl Default for PrefixAwareParams {
    fn default() -> Self {
        PrefixAwareParams {
            abs_threshold: 8,
            rel_threshold: 2.0,
            cache_threshold: 0.2,
            gap: GapRule::Pool,
        }
    }
}

impl PrefixAwareParams {
    fn imbalanced(&self, high: u32, low: u32) -> bool {
        high.saturating_sub(low) > self.abs_threshold
            && f64::from(high) > f64::from(low) * self.rel_threshold
    }
}

/// Shorthand for the parameter rows below.
/// SGLang-style cache-aware router.
#[derive(Clone, Debug, Default)]
pub struct PrefixAware {
    params: PrefixAwareParams,
}

impl PrefixAware {
    /// A prefix-aware router with `params`.
    pub fn new(params: PrefixAwareParams) -> PrefixAware {
        PrefixAware { params }
    }
}

impl Router for PrefixAware {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let loads = ctx.replicas.iter().map(|r| r.outstanding());
        let max = loads.clone().max()?;
        let min = loads.min()?;
        let least = |choose: &mut Chooser<'_>| {
            choose.argmin(ctx.replicas.iter().map(|r| r.outstanding()).enumerate())
        };
        if self.params.gap == GapRule::Pool && self.params.imbalanced(max, min) {
            let (i, _) = least(choose)?;
            return Some(Decision {
                replica: i as u32,
                reason: Reason::ImbalanceEscape {
                    max_load: max,
                    min_load: min,
                },
            });
        }
        // Longest match; among equal matches the lighter replica, then the tie-break.
        let key = |r: &S| {
            (
                u32::MAX - r.cached_tokens(ctx.request, ctx.block_tokens),
                r.outstanding(),
            )
        };
        let (best, (inv_matched, holder_load)) =
            choose.argmin(ctx.replicas.iter().map(key).enumerate())?;
        let matched = u64::from(u32::MAX - inv_matched);
        let prompt = u64::from(ctx.request.prompt_tokens.max(1));
        let permille = (matched.min(prompt) * 1000 / prompt) as u32;
        if f64::from(permille) / 1000.0 > self.params.cache_threshold {
            if self.params.gap == GapRule::Holder && self.params.imbalanced(holder_load, min) {
                let (i, least_load) = least(choose)?;
                return Some(Decision {
                    replica: i as u32,
                    reason: Reason::AffinityDropped {
                        holder: best as u32,
                        holder_load,
                        least_load,
                    },
                });
            }
            return Some(Decision {
                replica: best as u32,
                reason: Reason::CacheAffinity {
                    match_permille: permille,
                },
            });
        }
        let (i, load) = least(choose)?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::LowMatch {
                match_permille: permille,
                load,
            },
        })
    }
}

impl Rule for PrefixAware {
    const NAME: &'static str = "prefix-aware";
    const TITLE: &'static str = "Prefix-aware";
    const SIGNAL: &'static str = "Follows the longest cached prefix unless load is imbalanced, then the least loaded.";
    type Settings = PrefixAwareParams;
    fn build(settings: &PrefixAwareParams) -> Self {
        PrefixAware::new(*settings)
    }
}

impl<C: HasRules> Rows<C> for PrefixAware {
    const ROWS: &'static [Param<C>] = &[
        Param::<C>::whole(
            "abs-threshold",
            "Prefix-aware: absolute imbalance",
            "requests",
            (0, 1_000_000, 1),
            |c| c.rules().prefix_aware.abs_threshold.into(),
            |c, x| c.rules_mut().prefix_aware.abs_threshold = narrow(x),
        )
        .doc("Prefix-aware drops affinity when max − min load exceeds this…")
        .advanced(),
        Param::<C>::real(
            "rel-threshold",
            "Prefix-aware: relative imbalance",
            "",
            (1.0, 1000.0, 0.05),
            |c| c.rules().prefix_aware.rel_threshold,
            |c, x| c.rules_mut().prefix_aware.rel_threshold = x,
        )
        .doc("…and max load exceeds min load times this.")
        .advanced(),
        Param::<C>::real(
            "cache-threshold",
            "Prefix-aware: cache threshold",
            "",
            (0.0, 1.0, 0.05),
            |c| c.rules().prefix_aware.cache_threshold,
            |c, x| c.rules_mut().prefix_aware.cache_threshold = x,
        )
        .doc("Prefix-aware follows a cached match only above this share of the prompt.")
        .show(Show::Percent(0))
        .advanced(),
    ];
}
