//! LiteLLM's least-busy over the deployments not cooling down: the fewest
//! calls in flight from this router, the first on a tie.

use super::{Gate, Why, WhyKind};
use crate::providers::litellm::least_busy;

/// The deployment with the fewest calls in flight.
pub fn pick(g: &Gate, open: &[usize]) -> Option<(usize, Why)> {
    let counts: alloc::vec::Vec<u32> = open.iter().map(|&d| g.in_flight[d]).collect();
    let i = least_busy::pick(&counts)?;
    Some((open[i], Why::citing(WhyKind::Fewest, counts[i])))
}
