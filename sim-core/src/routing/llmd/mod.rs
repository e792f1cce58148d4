//! llm-d's endpoint picker (EPP) as a pipeline, pinned to
//! llm-d-inference-scheduler v0.8.0 (`05c91f0d`), where the EPP now lives
//! (gateway-api-inference-extension removed it after `1748e829`, whose
//! scorers behave the same).
//!
//! A scheduling profile runs its filters, then its scorers. Each scorer
//! gives every remaining endpoint a score, clamped to [0, 1] and multiplied
//! by the scorer's weight; the weighted scores are summed, not averaged
//! (`pkg/epp/scheduling/scheduler_profile.go`). The max-score picker takes
//! the highest sum, ties uniformly at random (it shuffles, then sorts
//! stably). With no configuration llm-d runs no filters and three scorers:
//! queue (weight 2), KV-cache utilisation (2) and the approximate prefix
//! cache (3) (`pkg/epp/config/loader/defaults.go`, the Helm chart and the
//! inference-scheduling guide agree).
//!
//! One file per scorer, each with upstream's formula and its unit tests'
//! vectors in `tests/llmd_conformance.rs`. The pipeline here reads a
//! replica's waiting queue, its KV use and its capacity, and keeps the
//! approximate scorer's index; the LoRA scorer reads a replica's adapters
//! when its weight is above 0 (the LoRA lab), and the precise-prefix
//! scorer reads each replica's cached run by tier when its weight is above
//! 0 (the validation page's llm-d pipeline scenario).

pub mod active_request;
pub mod kv_utilization;
pub mod load_aware;
pub mod lora_affinity;
pub mod precise_prefix;
pub mod prefix;
pub mod queue;

use alloc::vec::Vec;

use super::{
    Chooser, Decision, HasRules, OrdF64, Origin, Reason, ReplicaState, RouteContext, Router, Rows,
    Rule,
};
use crate::params::Param;

/// The weights of the default profile's scorers (0 leaves one out).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct LlmdWeights {
    /// `queue-scorer`.
    pub queue: f64,
    /// `kv-cache-utilization-scorer`.
    pub kv_cache: f64,
    /// `prefix-cache-scorer` (approximate).
    pub prefix: f64,
    /// `load-aware-scorer` (not in the default profile).
    pub load_aware: f64,
    /// `lora-affinity-scorer` (not in the default profile; a profile that
    /// names it without a weight gives it the loader's default, 1).
    pub lora: f64,
    /// `precise-prefix-cache-scorer` (not in the default profile; llm-d's
    /// precise sample profile gives it 2, with KV use and queue at 1). It
    /// reads what the engines hold, tier by tier, instead of the gateway's
    /// own index.
    pub precise: f64,
}

impl Default for LlmdWeights {
    fn default() -> Self {
        LlmdWeights {
            queue: 2.0,
            kv_cache: 2.0,
            prefix: 3.0,
            load_aware: 0.0,
            lora: 0.0,
            precise: 0.0,
        }
    }
}

/// The weighted sum per endpoint: each `(weight, scores)` pair's scores
/// clamped to [0, 1], times the weight, added up (upstream's
/// `enforceScoreRange` and profile loop).
pub fn weighted_sum(n: usize, scorers: &[(f64, &[f64])]) -> Vec<f64> {
    let mut total = alloc::vec![0.0; n];
    for (w, scores) in scorers {
        for (t, s) in total.iter_mut().zip(scores.iter()) {
            *t += s.clamp(0.0, 1.0) * w;
        }
    }
    total
}

/// The max-score picker: the endpoint with the highest total, ties broken
/// uniformly at random by `choose`.
pub fn pick(total: &[f64], choose: &mut Chooser<'_>) -> Option<usize> {
    choose
        .argmin(total.iter().map(|&t| OrdF64(-t)).enumerate())
        .map(|(i, _)| i)
}

/// The LoRA-affinity scorer's score for every replica (all 0 when its
/// weight is 0, the request runs on the base model, or a replica does not
/// report adapters).
fn lora_scores<S: ReplicaState>(ctx: &RouteContext<'_, S>, weight: f64) -> Vec<f64> {
    let adapter = u32::from(ctx.request.adapter);
    ctx.replicas
        .iter()
        .map(|r| match r.adapters() {
            Some(v) if weight > 0.0 && adapter != 0 => {
                let wide = |a: &[u16]| a.iter().map(|&x| u32::from(x)).collect::<Vec<u32>>();
                let (active, waiting) = (wide(&v.running), wide(&v.waiting));
                lora_affinity::score(
                    adapter,
                    &lora_affinity::Adapters {
                        active: &active,
                        waiting: &waiting,
                        max: v.slots,
                    },
                )
            }
            _ => 0.0,
        })
        .collect()
}

/// The precise prefix scorer's score for every replica from the tiers it
/// reports holding the prompt's leading blocks in (all 0 when its weight is
/// 0): the device run at the GPU weight, the host run beyond it at the CPU
/// weight, scaled min–max as release v0.8.0 does.
fn precise_scores<S: ReplicaState>(ctx: &RouteContext<'_, S>, weight: f64) -> Vec<f64> {
    if weight <= 0.0 {
        return alloc::vec![0.0; ctx.replicas.len()];
    }
    let w = precise_prefix::TierWeights::default();
    let bt = ctx.block_tokens.max(1);
    let raw: Vec<Option<f64>> = ctx
        .replicas
        .iter()
        .map(|r| {
            let t = r.cached_tiers(ctx.request, bt);
            let (device, host) = (t.device / bt, t.host / bt);
            (device + host > 0).then(|| f64::from(device) * w.gpu + f64::from(host) * w.cpu)
        })
        .collect();
    precise_prefix::normalised(&raw)
}

/// llm-d's default profile over a pool of replicas.
#[derive(Clone, Debug, Default)]
pub struct Llmd {
    weights: LlmdWeights,
    index: prefix::Index,
}

impl Llmd {
    /// A picker with `weights`.
    pub fn new(weights: LlmdWeights) -> Llmd {
        Llmd {
            weights,
            index: prefix::Index::new(),
        }
    }
}

impl Llmd {
    /// The profile's choice for `ctx.request`, reading the index without
    /// changing it: the endpoint, its hashes' prefix, and the decision.
    fn decide<S: ReplicaState>(
        &self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let n = ctx.replicas.len();
        if n == 0 {
            return None;
        }
        let waiting: Vec<u32> = ctx.replicas.iter().map(ReplicaState::waiting).collect();
        // A replica that does not report its KV size reads as empty.
        let usage: Vec<f64> = ctx
            .replicas
            .iter()
            .map(|r| {
                r.kv_capacity()
                    .filter(|&c| c > 0)
                    .map_or(0.0, |c| f64::from(r.kv_used()) / f64::from(c))
            })
            .collect();
        let hashes = prefix::Index::hashes(&ctx.request.blocks);
        let matched = self.index.matches(hashes, n);
        let prefix: Vec<f64> = matched
            .iter()
            .map(|&m| prefix::score(m, hashes.len()))
            .collect();
        let load: Vec<f64> = waiting
            .iter()
            .map(|&q| load_aware::score(q, load_aware::THRESHOLD))
            .collect();
        let w = self.weights;
        let lora = lora_scores(ctx, w.lora);
        let precise = precise_scores(ctx, w.precise);
        let total = weighted_sum(
            n,
            &[
                (w.queue, &queue::scores(&waiting)),
                (w.kv_cache, &kv_utilization::scores(&usage)),
                (w.prefix, &prefix),
                (w.load_aware, &load),
                (w.lora, &lora),
                (w.precise, &precise),
            ],
        );
        let i = pick(&total, choose)?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::HighestScore {
                score_milli: libm::round(total[i] * 1000.0) as u32,
                prefix_permille: libm::round(prefix[i] * 1000.0) as u32,
            },
        })
    }

    /// Size the index for the pool: each endpoint's LRU holds as many
    /// prompt blocks as its KV cache holds tokens (upstream sizes it in
    /// vLLM's own blocks).
    fn ensure<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>) {
        let (bt, kt) = (ctx.block_tokens.max(1), ctx.kv_block_tokens.max(1));
        self.index.ensure(ctx.replicas.len(), |i| {
            ctx.replicas[i]
                .kv_capacity()
                .map_or(prefix::DEFAULT_CAPACITY, |c| {
                    (u64::from(c) * u64::from(kt) / u64::from(bt)) as usize
                })
        });
    }
}

impl Router for Llmd {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        self.ensure(ctx);
        let d = self.decide(ctx, choose)?;
        self.index
            .add(d.replica as usize, prefix::Index::hashes(&ctx.request.blocks));
        Some(d)
    }

    /// The gateway's index records where the request went, whoever chose.
    fn observe<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>, chosen: u32) {
        self.ensure(ctx);
        self.index
            .add(chosen as usize, prefix::Index::hashes(&ctx.request.blocks));
    }

    /// Read-only: the index is large, and choosing does not change it.
    fn peek<S: ReplicaState>(
        &self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        self.decide(ctx, choose)
    }
}

impl Rule for Llmd {
    const NAME: &'static str = "llm-d";
    const TITLE: &'static str = "llm-d scorers";
    const SIGNAL: &'static str = "Sums llm-d's weighted scores: queue 2, KV use 2, prefix the gateway sent there 3; the highest total wins.";
    const ORIGIN: Origin = Origin::Upstream {
        project: "llm-d inference scheduler",
        version: "v0.8.0 (05c91f0d)",
        file: "pkg/epp/scheduling/scheduler_profile.go",
    };
    type Settings = LlmdWeights;
    fn build(settings: &LlmdWeights) -> Self {
        Llmd::new(*settings)
    }
}

impl<C: HasRules> Rows<C> for Llmd {
    const ROWS: &'static [Param<C>] = &[
        Param::<C>::real(
            "llmd-queue",
            "llm-d: queue weight",
            "",
            (0.0, 100.0, 0.5),
            |c| c.rules().llmd.queue,
            |c, x| c.rules_mut().llmd.queue = x,
        )
        .doc("Weight of llm-d's queue scorer (default 2).")
        .advanced(),
        Param::<C>::real(
            "llmd-kv",
            "llm-d: KV-use weight",
            "",
            (0.0, 100.0, 0.5),
            |c| c.rules().llmd.kv_cache,
            |c, x| c.rules_mut().llmd.kv_cache = x,
        )
        .doc("Weight of llm-d's KV-cache utilisation scorer (default 2).")
        .advanced(),
        Param::<C>::real(
            "llmd-prefix",
            "llm-d: prefix weight",
            "",
            (0.0, 100.0, 0.5),
            |c| c.rules().llmd.prefix,
            |c, x| c.rules_mut().llmd.prefix = x,
        )
        .doc("Weight of llm-d's approximate prefix-cache scorer (default 3).")
        .advanced(),
        Param::<C>::real(
            "llmd-precise",
            "llm-d: precise prefix weight",
            "",
            (0.0, 100.0, 0.5),
            |c| c.rules().llmd.precise,
            |c, x| c.rules_mut().llmd.precise = x,
        )
        .doc("Weight of llm-d's precise prefix-cache scorer, which reads what the engines hold (default 0: not in the default profile).")
        .advanced(),
    ];
}
