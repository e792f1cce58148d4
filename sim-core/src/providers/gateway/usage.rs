//! LiteLLM's usage-based-routing-v2 over the deployments not cooling down:
//! the fewest tokens used this calendar minute among those under their
//! limits (a reserved deployment's limit is its capacity), a uniform draw
//! among ties.

use super::{Gate, Why, WhyKind};
use crate::providers::litellm::usage::candidates;

/// The least-used deployment with headroom.
pub fn pick(g: &Gate, open: &[usize], tokens: u64, u: f64) -> Option<(usize, Why)> {
    let minutes: alloc::vec::Vec<_> = open.iter().map(|&d| g.minute.1[d]).collect();
    let c = candidates(&minutes, tokens);
    if c.is_empty() {
        return None;
    }
    let i = c[((u * c.len() as f64) as usize).min(c.len() - 1)];
    let used = minutes[i].tokens.min(u64::from(u32::MAX)) as u32;
    Some((open[i], Why::citing(WhyKind::Headroom, used)))
}
