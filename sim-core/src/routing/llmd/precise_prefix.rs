//! llm-d's `precise-prefix-cache-scorer` (llm-d-inference-scheduler v0.8.0,
//! `pkg/epp/framework/plugins/scheduling/scorer/preciseprefixcache/`, with
//! llm-d-kv-cache v0.8.0 `pkg/kvcache/kvblock_scorer.go`): unlike the
//! approximate scorer it reads what the engines report holding (vLLM's KV
//! events), block by block and tier by tier.
//!
//! An endpoint's raw score is the length of its unbroken run of the
//! request's blocks from the first, each block weighted by the best tier it
//! holds it in (accelerator 1.0, host memory 0.8); an endpoint missing the
//! first block has none. Release v0.8.0 then scales the raw scores min–max
//! over the endpoints that have one (all 1 when they are equal; 0 for the
//! rest). Upstream's main branch has since changed to raw over the
//! request's blocks, which no release carries yet.

use alloc::vec::Vec;

/// Tier weights of upstream's `LongestPrefixScorer` defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierWeights {
    /// A block in accelerator memory.
    pub gpu: f64,
    /// A block in host memory.
    pub cpu: f64,
}

impl Default for TierWeights {
    fn default() -> Self {
        TierWeights { gpu: 1.0, cpu: 0.8 }
    }
}

/// Where one endpoint holds one block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// In accelerator memory.
    pub gpu: bool,
    /// In host memory.
    pub cpu: bool,
}

impl Held {
    /// The best weight among the tiers holding it (None: not held).
    fn weight(self, w: &TierWeights) -> Option<f64> {
        match (self.gpu, self.cpu) {
            (false, false) => None,
            (true, false) => Some(w.gpu),
            (false, true) => Some(w.cpu),
            (true, true) => Some(w.gpu.max(w.cpu)),
        }
    }
}

/// Per endpoint, its raw score: `held[e][i]` says where endpoint `e` holds
/// block `i` of the request; the run stops at the first block it lacks.
/// `None` for an endpoint without the first block.
pub fn raw(held: &[Vec<Held>], w: &TierWeights) -> Vec<Option<f64>> {
    held.iter()
        .map(|blocks| {
            let mut run = blocks.iter().map_while(|h| h.weight(w)).peekable();
            run.peek()?;
            Some(run.sum())
        })
        .collect()
}

/// v0.8.0's scores: min–max over the endpoints with a raw score, 1 for
/// all of them when they are equal, 0 for the others.
pub fn normalised(raw: &[Option<f64>]) -> Vec<f64> {
    let have = raw.iter().flatten();
    let min = have.clone().copied().fold(f64::INFINITY, f64::min);
    let max = have.copied().fold(f64::NEG_INFINITY, f64::max);
    raw.iter()
        .map(|r| match r {
            None => 0.0,
            Some(_) if max == min => 1.0,
            Some(x) => (x - min) / (max - min),
        })
        .collect()
}
