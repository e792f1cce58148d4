//! LiteLLM's simple-shuffle over the deployments not cooling down, with
//! weighted failover: a deployment that failed this call is excluded
//! (`tried`) and the draw made again among the rest. Every deployment has
//! weight 1, as in the article's §14.3 configuration.

use super::{Gate, Why, WhyKind};
use crate::providers::litellm::shuffle::{pick as draw, Declared};

/// A weighted draw among `open`.
pub fn pick(_g: &Gate, open: &[usize], u: f64) -> Option<(usize, Why)> {
    let declared: alloc::vec::Vec<Declared> = open
        .iter()
        .map(|_| Declared {
            weight: Some(1.0),
            ..Declared::default()
        })
        .collect();
    let i = draw(&declared, u)?;
    let permille = (1000 / open.len()) as u32;
    Some((open[i], Why::citing(WhyKind::Weighted, permille)))
}
