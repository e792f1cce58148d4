//! `cost-based-routing` (`litellm/router_strategy/lowest_cost.py`): the
//! deployment whose input plus output price per token is lowest (an
//! unweighted sum), after the same per-minute limits as latency routing;
//! ties go to the first. A price the router does not know counts as 5.0.

/// Upstream's price for a model missing from its price table.
pub const UNKNOWN_PRICE: f64 = 5.0;

/// One deployment's prices per token.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Price {
    /// Input.
    pub input: Option<f64>,
    /// Output.
    pub output: Option<f64>,
}

impl Price {
    /// What the router sorts by.
    pub fn key(&self) -> f64 {
        self.input.unwrap_or(UNKNOWN_PRICE) + self.output.unwrap_or(UNKNOWN_PRICE)
    }
}

/// The first cheapest deployment.
pub fn pick(prices: &[Price]) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, p) in prices.iter().enumerate() {
        if best.is_none_or(|(_, b)| p.key() < b) {
            best = Some((i, p.key()));
        }
    }
    best.map(|(i, _)| i)
}
