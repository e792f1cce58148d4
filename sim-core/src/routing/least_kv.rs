//! Least KV usage: the fewest KV blocks held by running and prefilling sequences.
//!
//! The waiting count only breaks ties; it is never added to the gauge. That is
//! the article's point (§4.2): a queued request holds no KV blocks until it is
//! admitted, so a replica whose slots are full of short or cache-hit sequences
//! reads as light while its queue grows.

use super::{argmin_random_tie, Decision, Reason, RouteContext, Router};
use crate::rng::Rng;

/// Fewest KV blocks in use, then fewest waiting, then random.
#[derive(Clone, Debug)]
pub struct LeastKv {
    rng: Rng,
}

impl LeastKv {
    /// A least-KV router breaking ties with `rng`.
    pub fn new(rng: Rng) -> LeastKv {
        LeastKv { rng }
    }
}

impl Router for LeastKv {
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision> {
        let keys = ctx
            .replicas
            .iter()
            .map(|r| (r.kv_used(), r.waiting()))
            .enumerate();
        let (i, (kv_blocks, waiting)) = argmin_random_tie(keys, &mut self.rng)?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::LeastKv { kv_blocks, waiting },
        })
    }
}
