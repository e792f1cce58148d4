//! llm-d's `kv-cache-utilization-scorer`: the free share of an endpoint's
//! KV cache, with no comparison between endpoints (llm-d-inference-scheduler
//! v0.8.0, `pkg/epp/framework/plugins/scheduling/scorer/kvcacheutilization/
//! kvcache_utilization.go`).

use alloc::vec::Vec;

/// Per endpoint, `1 − usage`, where usage is the share of its KV cache in
/// use (vLLM's `kv_cache_usage_perc`, a fraction). A value outside [0, 1]
/// is left for the pipeline's clamp, as upstream leaves it.
pub fn scores(usage: &[f64]) -> Vec<f64> {
    usage.iter().map(|u| 1.0 - u).collect()
}
