//! Least KV usage: the fewest KV blocks held by running and prefilling sequences.
//!
//! The waiting count only breaks ties; it is never added to the gauge. That is
//! the article's point (§4.2): a queued request holds no KV blocks until it is
//! admitted, so a replica whose slots are full of short or cache-hit sequences
//! reads as light while its queue grows.

use super::{Chooser, Rule, Decision, ReplicaState, Reason, RouteContext, Router, HasRules, Rows};

/// Fewest KV blocks in use, then fewest waiting, then the chooser's tie-break.
#[derive(Clone, Debug, Default)]
pub struct LeastKv;

impl Router for LeastKv {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let keys = ctx
            .replicas
            .iter()
            .map(|r| (r.kv_used(), r.waiting()))
            .enumerate();
        let (i, (kv_blocks, waiting)) = choose.argmin(keys)?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::LeastKv { kv_blocks, waiting },
        })
    }
}

impl Rule for LeastKv {
    const NAME: &'static str = "least-kv";
    const TITLE: &'static str = "Least KV usage";
    const SIGNAL: &'static str = "Reads the KV blocks in use; queued requests hold none, so it cannot see queues.";
    type Settings = ();
    fn build(_settings: &()) -> Self {
        LeastKv
    }
}

impl<C: HasRules> Rows<C> for LeastKv {}
