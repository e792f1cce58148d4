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

pub mod aibrix_placement;
mod chooser;
pub mod lora_residency;
mod reason;
pub mod tier_cost;
#[macro_use]
mod registry;

pub use chooser::{Chooser, OrdF64, Ties};
pub use prefix_aware::{GapRule, PrefixAwareParams};
pub use reason::Reason;
pub use registry::{HasRules, Origin, Rows, Rule};

// The registry: one line per rule, in table order (a rule's position also picks
// its tie-break stream, so new rules go at the end).
rules! {
    random::Random,
    round_robin::RoundRobin,
    least_outstanding::LeastOutstanding,
    power_of_two::PowerOfTwo,
    least_kv::LeastKv,
    prefix_aware::PrefixAware,
    sglang_cache_aware::SglangCacheAware,
    sglang_prefix_hash::SglangPrefixHash,
    dynamo_kv::DynamoKv,
    envoy_least_request::EnvoyLeastRequest,
    llmd::Llmd,
}

use crate::time::Tick;
use crate::workload::Request;

/// Prompt tokens of a request cached on one replica, by storage tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tiers {
    /// In accelerator memory (reusable as is).
    pub device: u32,
    /// In host memory (reusable after a transfer).
    pub host: u32,
    /// On disk or an external store.
    pub disk: u32,
}

/// What a rule may read of one replica, as the router sees it (possibly stale).
/// The first four are what every view provides; the rest have defaults for
/// views that do not model them (a standard, always-present replica with no
/// load monitor and no lower cache tiers).
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
    /// [`ReplicaState::cached_tokens`] split by tier (all on the device unless
    /// the view models lower tiers).
    fn cached_tiers(&self, request: &Request, block_tokens: u32) -> Tiers {
        Tiers {
            device: self.cached_tokens(request, block_tokens),
            ..Tiers::default()
        }
    }
    /// Prompt tokens accepted and not yet prefilled: queued prompts plus the
    /// unfinished part of prompts being prefilled.
    fn prefill_backlog(&self) -> u64 {
        0
    }
    /// Tokens in flight as an external load monitor reports them, if one does.
    fn token_load(&self) -> Option<u64> {
        None
    }
    /// KV blocks the replica holds in all, if it reports its size (vLLM's
    /// block count: what llm-d reads to turn use into a share).
    fn kv_capacity(&self) -> Option<u32> {
        None
    }
    /// Capacity relative to a standard replica (a 2× faster one is 2).
    fn weight(&self) -> f64 {
        1.0
    }
    /// When the replica joined the pool.
    fn joined_at(&self) -> Tick {
        Tick::ZERO
    }
    /// Where LoRA adapters sit on the replica, if the view models them.
    fn adapters(&self) -> Option<crate::engine::AdapterView> {
        None
    }
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
    /// Tokens per KV block of the engines (the unit of KV-block costs).
    pub kv_block_tokens: u32,
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

    /// Where this rule would send `ctx.request` right now, leaving its history
    /// untouched (for counterfactuals). The default asks a copy; rules whose
    /// history is large (a router-side tree) answer from a shared borrow.
    fn peek<S: ReplicaState>(
        &self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision>
    where
        Self: Clone,
    {
        self.clone().select(ctx, choose)
    }
}
