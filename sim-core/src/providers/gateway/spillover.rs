//! Azure OpenAI spillover (article §12.1; Microsoft's "Manage traffic with
//! spillover for provisioned deployments"): a call goes to the reserved
//! deployment; when that answers 429 (capacity used), 400 (context longer
//! than it supports) or 500/503, the platform sends the same call on to
//! the metered deployment of the same resource at once. The client sees the
//! reserved deployment's error only when the spill fails too. The spill
//! itself happens in the lab's run ([`spill_to`]); the router's pick is
//! always the reserved deployment (the first metered one when none is).

use super::{Gate, Why, WhyKind};

/// Reserved first, else the first deployment.
pub fn pick(g: &Gate) -> Option<(usize, Why)> {
    match g.declared.iter().position(|d| d.reserved) {
        Some(d) => Some((d, Why::of(WhyKind::Reserved))),
        None => Some((0, Why::of(WhyKind::NoReserved))),
    }
}

/// Whether an answer of `status` spills over.
pub fn spills(status: u16) -> bool {
    matches!(status, 429 | 400 | 500 | 503)
}

/// Where a call refused by reserved deployment `from` spills to: the first
/// metered deployment in the same region, else the first metered one.
pub fn spill_to(g: &Gate, from: usize, region: &dyn Fn(usize) -> u8) -> Option<usize> {
    let metered = || (0..g.declared.len()).filter(|&d| !g.declared[d].reserved);
    metered()
        .find(|&d| region(d) == region(from))
        .or_else(|| metered().next())
}
