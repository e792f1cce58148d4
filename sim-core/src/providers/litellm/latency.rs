//! `latency-based-routing` (`litellm/router_strategy/lowest_latency.py`):
//! each deployment keeps its last 10 samples (seconds per output token, or
//! time to first token for streams); one never seen counts as 0 and so is
//! tried first. The router keeps every deployment within
//! `lowest × (1 + buffer)` of the lowest mean and draws among them
//! uniformly (buffer 0 by default: only the lowest).

use alloc::vec::Vec;

/// Samples kept per deployment (`max_latency_list_size`).
pub const WINDOW: usize = 10;

/// Upstream's penalty sample for a call that timed out, in seconds.
pub const TIMEOUT_PENALTY: f64 = 1000.0;

/// Add `sample` to a deployment's window, dropping the oldest when full.
pub fn record(window: &mut Vec<f64>, sample: f64) {
    if window.len() >= WINDOW {
        window.remove(0);
    }
    window.push(sample);
}

/// The mean of a window (0 for a deployment never seen).
pub fn mean(window: &[f64]) -> f64 {
    let kept: Vec<f64> = window.iter().copied().filter(|x| *x >= 0.0).collect();
    if kept.is_empty() {
        0.0
    } else {
        kept.iter().sum::<f64>() / kept.len() as f64
    }
}

/// The deployments within `buffer` of the lowest mean.
pub fn candidates(means: &[f64], buffer: f64) -> Vec<usize> {
    let Some(lowest) = means.iter().copied().reduce(f64::min) else {
        return Vec::new();
    };
    (0..means.len())
        .filter(|&i| means[i] <= lowest + buffer * lowest)
        .collect()
}
