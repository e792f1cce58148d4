//! Random: a uniform draw, reading no signal. The baseline every rule must beat.

use super::{Decision, Reason, RouteContext, Router};
use crate::rng::Rng;

/// Uniformly random replica.
#[derive(Clone, Debug)]
pub struct Random {
    rng: Rng,
}

impl Random {
    /// A random router drawing from `rng`.
    pub fn new(rng: Rng) -> Random {
        Random { rng }
    }
}

impl Router for Random {
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision> {
        if ctx.replicas.is_empty() {
            return None;
        }
        Some(Decision {
            replica: self.rng.index(ctx.replicas.len()) as u32,
            reason: Reason::Random,
        })
    }
}
