//! LiteLLM's latency-based-routing over the deployments not cooling down:
//! the lowest mean of the last 10 times to first token (a deployment never
//! seen counts 0 and is tried first), buffer 0, a uniform draw among ties.
//! A server error or timeout records upstream's 1,000 s penalty.

use super::{Gate, Why, WhyKind};
use crate::providers::litellm::latency::{candidates, mean, record, TIMEOUT_PENALTY};

/// The fastest deployment by its window's mean.
pub fn pick(g: &Gate, open: &[usize], u: f64) -> Option<(usize, Why)> {
    let means: alloc::vec::Vec<f64> = open.iter().map(|&d| mean(&g.latency[d])).collect();
    let c = candidates(&means, 0.0);
    if c.is_empty() {
        return None;
    }
    let i = c[((u * c.len() as f64) as usize).min(c.len() - 1)];
    let ms = (means[i] * 1000.0) as u32;
    Some((open[i], Why::citing(WhyKind::Fastest, ms)))
}

/// A failed call's penalty sample.
pub fn record_timeout(g: &mut Gate, d: usize) {
    record(&mut g.latency[d], TIMEOUT_PENALTY);
}
