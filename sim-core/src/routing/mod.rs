//! Selection rules: which replica gets the next request.
//!
//! Every rule implements [`Router`] in a file of its own and receives one
//! [`RouteContext`] (the request, the replicas as the router sees them, the
//! time), so a new input never changes every signature. What a rule may read of
//! a replica is the [`ReplicaState`] trait: the Routing Lab hands rules its live
//! engines, the herding lab a stale snapshot, the prefix player a pool of
//! assignment counters with one-prefix caches — the same rule code runs on all
//! three. Rules return `Option<Decision>`: `None` only when there is no replica.
//! Each [`Decision`] carries a [`Reason`] the UI can show.
//!
//! Randomness (tie-breaks, samples) comes from the [`Chooser`] the caller
//! passes in, never from the rule: the Routing Lab gives each rule its own
//! seeded stream so every rule replays the very same trace, the herding lab
//! shares one stream across its routers, and the prefix player breaks ties
//! by lowest index. [`RuleKind`] is the one registry the CLI, the tests and the
//! web page list rules from: a new rule is one file here plus one line there.

mod chooser;
mod reason;
#[macro_use]
mod registry;

pub use chooser::{Chooser, Ties};
pub use prefix_aware::{GapRule, PrefixAwareParams};
pub use reason::Reason;
pub use registry::Rule;

// The registry: one line per rule, in table order (a rule's position also picks
// its tie-break stream, so new rules go at the end).
rules! {
    random::Random,
    round_robin::RoundRobin,
    least_outstanding::LeastOutstanding,
    power_of_two::PowerOfTwo,
    least_kv::LeastKv,
    prefix_aware::PrefixAware,
}

use crate::time::Tick;
use crate::workload::Request;

/// What a rule may read of one replica, as the router sees it (possibly stale).
pub trait ReplicaState {
    /// Requests accepted and not finished: waiting plus running.
    fn outstanding(&self) -> u32;
    /// Requests queued and not yet admitted.
    fn waiting(&self) -> u32;
    /// KV blocks held by running sequences.
    fn kv_used(&self) -> u32;
    /// Prompt tokens of `request` this replica holds in its prefix cache (the
    /// longest cached leading run), given `block_tokens` tokens per hash block.
    fn cached_tokens(&self, request: &Request, block_tokens: u32) -> u32;
}

/// Everything a rule may look at for one decision.
#[derive(Clone, Copy, Debug)]
pub struct RouteContext<'a, S> {
    /// The current tick.
    pub now: Tick,
    /// The request to place.
    pub request: &'a Request,
    /// Tokens per hash block of the request's `blocks`.
    pub block_tokens: u32,
    /// Every replica, in index order, as the router sees it at this moment.
    pub replicas: &'a [S],
}

/// Where a request goes, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    /// Index of the chosen replica.
    pub replica: u32,
    /// Why the rule chose it.
    pub reason: Reason,
}

/// A selection rule.
pub trait Router {
    /// Choose a replica for `ctx.request`, drawing any randomness from
    /// `choose`; `None` only if there are no replicas. A rule that keeps
    /// history (a rotation, a router-side tree) updates it here, as if the
    /// request were sent where it chose.
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision>;

    /// Learn that `ctx.request` went to replica `chosen` (picked by another
    /// rule). Used by counterfactual "shadow" routers, which must keep their
    /// history in step with what really happened without deciding anything.
    /// Rules without history need not override it.
    fn observe<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>, chosen: u32) {
        let _ = (ctx, chosen);
    }
}
