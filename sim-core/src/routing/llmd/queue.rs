//! llm-d's `queue-scorer`: the shortest waiting queue scores 1, the longest
//! 0, linearly between (llm-d-inference-scheduler v0.8.0,
//! `pkg/epp/framework/plugins/scheduling/scorer/queuedepth/queue.go`; the
//! same in gateway-api-inference-extension `1748e829`).

use alloc::vec::Vec;

/// Per endpoint, `(max − q) / (max − min)` over the requests each has
/// waiting (vLLM's `num_requests_waiting`), among the endpoints given; 1 for
/// every endpoint when all queues are equal (one endpoint included).
pub fn scores(waiting: &[u32]) -> Vec<f64> {
    let (Some(&min), Some(&max)) = (waiting.iter().min(), waiting.iter().max()) else {
        return Vec::new();
    };
    waiting
        .iter()
        .map(|&q| {
            if max == min {
                1.0
            } else {
                f64::from(max - q) / f64::from(max - min)
            }
        })
        .collect()
}
