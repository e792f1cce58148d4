//! NVIDIA Dynamo's KV router cost function, pinned to `ai-dynamo/dynamo` commit
//! `07a6c9ce3bb096cfaf353fe69ee578e105c6a512`
//! (`lib/kv-router/src/scheduling/selector/default.rs`; article §5.4).
//!
//! Every worker gets a cost in KV blocks, and the cheapest wins:
//!
//! ```text
//! credit   = overlap_score_credit × decay × device_overlap
//!          + host_cache_hit_weight × host_overlap + disk_cache_hit_weight × disk_overlap
//! decay    = 1 / (1 + overlap_score_credit_decay × normalized_excess_prefill)
//! cost     = prefill_load_scale × max(raw_prefill − credit, 0)
//!          + decode_blocks + decode_active_request_weight × active_requests
//! ```
//!
//! - `raw_prefill` is the worker's prompt tokens not yet prefilled plus this
//!   prompt, in KV blocks; `decode_blocks` the worker's KV blocks in use plus the
//!   blocks this request will hold (its prompt).
//! - `normalized_excess_prefill` is the worker's prefill backlog above the
//!   least-backlogged worker, in blocks, divided by this request's blocks: a
//!   cache-holding worker that is far behind loses its device credit gradually.
//!   The decay is off by default (0), so out of the box affinity has no brake.
//! - At temperature 0 the minimum wins (ties at random, as upstream's reservoir
//!   draw); above 0 a worker is drawn with probability ∝ exp(−(cost − min) /
//!   ((max − min) × temperature)), the softmax over costs normalised to [0, 1].
//!
//! Defaults are upstream's: credit 1, decay 0, prefill scale 1, host 0.75,
//! disk 0.25, active-request weight 0, temperature 0. The lab's engines have a
//! device cache only, so the host and disk weights matter only for views that
//! report lower tiers (the conformance tests).

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{Chooser, Origin, Decision, OrdF64, Reason, ReplicaState, RouteContext, Router, Rule, HasRules, Rows};
use crate::params::Param;

/// Settings of [`DynamoKv`] (upstream's names).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DynamoSettings {
    /// `overlap_score_credit`: credit per device-cached block (0–1).
    pub overlap_score_credit: f64,
    /// `overlap_score_credit_decay` (0 disables it).
    pub overlap_score_credit_decay: f64,
    /// `prefill_load_scale`.
    pub prefill_load_scale: f64,
    /// `host_cache_hit_weight`.
    pub host_cache_hit_weight: f64,
    /// `disk_cache_hit_weight`.
    pub disk_cache_hit_weight: f64,
    /// `decode_active_request_weight`, in blocks per active request.
    pub decode_active_request_weight: f64,
    /// `router_temperature` (0: deterministic minimum).
    pub temperature: f64,
}

impl Default for DynamoSettings {
    fn default() -> Self {
        DynamoSettings {
            overlap_score_credit: 1.0,
            overlap_score_credit_decay: 0.0,
            prefill_load_scale: 1.0,
            host_cache_hit_weight: 0.75,
            disk_cache_hit_weight: 0.25,
            decode_active_request_weight: 0.0,
            temperature: 0.0,
        }
    }
}

/// What the cost of one worker is computed from, in KV blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CostInputs {
    /// Prompt blocks still to prefill there, this request included.
    pub raw_prefill_blocks: f64,
    /// This request's blocks cached on the device, in host memory, on disk.
    pub overlap_blocks: [f64; 3],
    /// KV blocks it would hold, this request included.
    pub decode_blocks: f64,
    /// Requests active there.
    pub active_requests: f64,
    /// Prefill backlog above the least-backlogged worker, over this request's blocks.
    pub normalized_excess_prefill: f64,
}

/// The cost of one worker (upstream's `worker_logit`).
pub fn cost(s: &DynamoSettings, x: &CostInputs) -> f64 {
    let decay = if s.overlap_score_credit_decay > 0.0 {
        1.0 / (1.0 + s.overlap_score_credit_decay * x.normalized_excess_prefill)
    } else {
        1.0
    };
    let credit = s.overlap_score_credit * decay * x.overlap_blocks[0]
        + s.host_cache_hit_weight * x.overlap_blocks[1]
        + s.disk_cache_hit_weight * x.overlap_blocks[2];
    let adjusted_prefill = (x.raw_prefill_blocks - credit).max(0.0);
    s.prefill_load_scale * adjusted_prefill
        + x.decode_blocks
        + s.decode_active_request_weight * x.active_requests
}

/// The worker drawn from the softmax over normalised costs, given a uniform
/// draw `u` in [0, 1) (upstream's `softmax_sample_index`).
pub fn softmax_pick(costs: &[f64], temperature: f64, u: f64) -> usize {
    let min = costs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = costs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = if max == min {
        costs.iter().map(|_| 1.0).collect()
    } else {
        costs
            .iter()
            .map(|c| libm::exp(-(c - min) / ((max - min) * temperature)))
            .collect()
    };
    let total: f64 = weights.iter().sum();
    let mut cumulative = 0.0;
    for (i, w) in weights.iter().enumerate() {
        cumulative += w / total;
        if u <= cumulative {
            return i;
        }
    }
    costs.len().saturating_sub(1)
}

/// Dynamo's KV-aware router.
#[derive(Clone, Debug, Default)]
pub struct DynamoKv {
    settings: DynamoSettings,
}

impl DynamoKv {
    /// A router with `settings`.
    pub fn new(settings: DynamoSettings) -> DynamoKv {
        DynamoKv { settings }
    }
}

impl Router for DynamoKv {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        if ctx.replicas.is_empty() {
            return None;
        }
        let b = f64::from(ctx.kv_block_tokens.max(1));
        let prompt = f64::from(ctx.request.prompt_tokens);
        let request_blocks = libm::ceil(prompt / b).max(1.0);
        let min_backlog = ctx
            .replicas
            .iter()
            .map(ReplicaState::prefill_backlog)
            .min()
            .unwrap_or(0);
        let costs: Vec<f64> = ctx
            .replicas
            .iter()
            .map(|r| {
                let tiers = r.cached_tiers(ctx.request, ctx.block_tokens);
                let backlog = r.prefill_backlog();
                cost(
                    &self.settings,
                    &CostInputs {
                        raw_prefill_blocks: (backlog as f64 + prompt) / b,
                        overlap_blocks: [
                            f64::from(tiers.device) / b,
                            f64::from(tiers.host) / b,
                            f64::from(tiers.disk) / b,
                        ],
                        decode_blocks: f64::from(r.kv_used()) + request_blocks,
                        active_requests: f64::from(r.outstanding()),
                        normalized_excess_prefill: (backlog - min_backlog) as f64
                            / b
                            / request_blocks,
                    },
                )
            })
            .collect();
        let pick = if self.settings.temperature > 0.0 {
            softmax_pick(&costs, self.settings.temperature, choose.unit())
        } else {
            choose
                .argmin(costs.iter().map(|&c| OrdF64(c)).enumerate())
                .map(|(i, _)| i)?
        };
        Some(Decision {
            replica: pick as u32,
            reason: Reason::LowestCost {
                cost_blocks: libm::round(costs[pick]).max(0.0) as u32,
            },
        })
    }
}

/// Shorthand for the parameter rows below.
impl Rule for DynamoKv {
    const NAME: &'static str = "dynamo-kv";
    const TITLE: &'static str = "Dynamo KV cost";
    const SIGNAL: &'static str = "Scores every replica in KV blocks: prompt left to prefill minus cache credit, plus decode load; the cheapest wins.";
    const ORIGIN: Origin = Origin::Upstream {
        project: "NVIDIA Dynamo",
        version: "07a6c9ce",
        file: "lib/kv-router/src/scheduling/selector/default.rs",
    };
    type Settings = DynamoSettings;
    fn build(settings: &DynamoSettings) -> Self {
        DynamoKv::new(*settings)
    }
}

impl<C: HasRules> Rows<C> for DynamoKv {
    const ROWS: &'static [Param<C>] = &[
        Param::<C>::real(
            "dynamo-overlap-credit",
            "Dynamo: overlap credit",
            "",
            (0.0, 1.0, 0.05),
            |c| c.rules().dynamo_kv.overlap_score_credit,
            |c, x| c.rules_mut().dynamo_kv.overlap_score_credit = x,
        )
        .doc("Blocks of prefill a cached block saves in Dynamo's cost (1 counts it fully).")
        .advanced(),
        Param::<C>::real(
            "dynamo-credit-decay",
            "Dynamo: credit decay",
            "",
            (0.0, 10.0, 0.1),
            |c| c.rules().dynamo_kv.overlap_score_credit_decay,
            |c, x| c.rules_mut().dynamo_kv.overlap_score_credit_decay = x,
        )
        .doc("Weakens the credit of a cache holder that is behind on prefill; 0 turns it off.")
        .advanced(),
        Param::<C>::real(
            "dynamo-prefill-scale",
            "Dynamo: prefill load scale",
            "",
            (0.0, 10.0, 0.1),
            |c| c.rules().dynamo_kv.prefill_load_scale,
            |c, x| c.rules_mut().dynamo_kv.prefill_load_scale = x,
        )
        .doc("Weight of prefill work against decode load in Dynamo's cost.")
        .advanced(),
        Param::<C>::real(
            "dynamo-active-weight",
            "Dynamo: active-request weight",
            "blocks",
            (0.0, 100.0, 0.5),
            |c| c.rules().dynamo_kv.decode_active_request_weight,
            |c, x| c.rules_mut().dynamo_kv.decode_active_request_weight = x,
        )
        .doc("Blocks charged per active request; 0 leaves it out.")
        .advanced(),
        Param::<C>::real(
            "dynamo-temperature",
            "Dynamo: temperature",
            "",
            (0.0, 10.0, 0.05),
            |c| c.rules().dynamo_kv.temperature,
            |c, x| c.rules_mut().dynamo_kv.temperature = x,
        )
        .doc("0 takes the cheapest replica; above 0 draws from a softmax over normalised costs.")
        .advanced(),
    ];
}
