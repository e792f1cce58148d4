//! LiteLLM's cost-based-routing over the deployments not cooling down: the
//! lowest configured input plus output price per token, the first on a tie.
//! Reserved capacity is configured at price 0, as a team paying for it by
//! the hour would.

use super::{Gate, Why, WhyKind};
use crate::providers::litellm::cost::{pick as cheapest, Price};

/// The cheapest deployment.
pub fn pick(g: &Gate, open: &[usize]) -> Option<(usize, Why)> {
    let prices: alloc::vec::Vec<Price> = open
        .iter()
        .map(|&d| Price {
            input: Some(g.declared[d].price),
            output: Some(0.0),
        })
        .collect();
    let i = cheapest(&prices)?;
    Some((open[i], Why::of(WhyKind::Cheapest)))
}
