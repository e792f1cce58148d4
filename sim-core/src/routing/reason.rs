//! Why a rule made a decision, in a form the UI can count and explain.

use alloc::format;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// The reason recorded with every [`super::Decision`]. Loads are outstanding
/// requests (waiting + running) at decision time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Uniform draw; no signal read.
    Random,
    /// Next replica in the rotation.
    RoundRobin,
    /// Fewest outstanding requests over the whole pool.
    LeastLoaded {
        /// Outstanding requests on the chosen replica.
        load: u32,
    },
    /// The lighter of two distinct random replicas.
    TwoChoices {
        /// The replica sampled alongside the chosen one.
        other: u32,
        /// Outstanding requests on the chosen replica.
        load: u32,
        /// Outstanding requests on the other sampled replica.
        other_load: u32,
    },
    /// The lighter of two distinct random replicas, compared on the tokens a
    /// load monitor reports for both.
    TwoChoicesTokens {
        /// The replica sampled alongside the chosen one.
        other: u32,
        /// Tokens in flight on the chosen replica.
        tokens: u64,
        /// Tokens in flight on the other sampled replica.
        other_tokens: u64,
    },
    /// Fewest KV blocks held by running sequences; waiting count broke ties.
    LeastKv {
        /// KV blocks held on the chosen replica.
        kv_blocks: u32,
        /// Requests queued there (invisible to the primary signal).
        waiting: u32,
    },
    /// The replica holding the longest cached prefix, over the cache threshold.
    CacheAffinity {
        /// Share of the prompt already cached there, in thousandths.
        match_permille: u32,
    },
    /// Loads were imbalanced beyond both thresholds: affinity dropped for the least loaded.
    ImbalanceEscape {
        /// Highest load in the pool.
        max_load: u32,
        /// Lowest load in the pool (the chosen replica's).
        min_load: u32,
    },
    /// The replica holding the prompt was too far ahead of the least loaded:
    /// affinity dropped for the least loaded ([`super::GapRule::Holder`]).
    AffinityDropped {
        /// Replica (0-based) that would have won on affinity.
        holder: u32,
        /// Its outstanding requests.
        holder_load: u32,
        /// Outstanding requests on the least-loaded replica (the chosen one).
        least_load: u32,
    },
    /// The owner of the prompt's head on a consistent-hash ring, within its
    /// load bound.
    RingOwner {
        /// Outstanding requests on the owner.
        load: u32,
    },
    /// The ring's owner was above its load bound: the least loaded within the
    /// bound took the request instead.
    RingOverloaded {
        /// Replica (0-based) that owns the prompt's head.
        owner: u32,
        /// Its outstanding requests.
        owner_load: u32,
        /// Outstanding requests on the chosen replica.
        load: u32,
    },
    /// The cheapest replica by a cost in KV blocks.
    LowestCost {
        /// Its cost, rounded to whole blocks.
        cost_blocks: u32,
    },
    /// The earliest deadline of a weighted schedule.
    EarliestDeadline {
        /// Its weight when rescheduled, in thousandths.
        weight_permille: u32,
        /// Its active requests at the pick.
        active: u32,
    },
    /// The highest weighted sum of scorers' scores (llm-d's picker).
    HighestScore {
        /// The sum, in thousandths.
        score_milli: u32,
        /// Its prefix scorer's share of the prompt, in thousandths.
        prefix_permille: u32,
    },
    /// The request's adapter is already on this replica (in a slot or
    /// queued to load), the least loaded of those holding it.
    AdapterResident {
        /// Outstanding requests on the chosen replica.
        load: u32,
    },
    /// No replica holds the request's adapter: the least loaded, where it
    /// will load.
    AdapterAbsent {
        /// Outstanding requests on the chosen replica.
        load: u32,
    },
    /// One of the replicas the adapter was placed on, the least loaded.
    Placed {
        /// Replicas the adapter is placed on.
        copies: u32,
        /// Outstanding requests on the chosen replica.
        load: u32,
    },
    /// No replica held enough of the prompt: fall back to the least loaded.
    LowMatch {
        /// Best match anywhere, in thousandths of the prompt.
        match_permille: u32,
        /// Outstanding requests on the chosen replica.
        load: u32,
    },
}

impl Reason {
    /// A stable short name (used for counts in outcomes and the CLI).
    pub fn name(&self) -> &'static str {
        match self {
            Reason::Random => "random",
            Reason::RoundRobin => "round-robin",
            Reason::LeastLoaded { .. } => "least-loaded",
            Reason::TwoChoices { .. } => "two-choices",
            Reason::TwoChoicesTokens { .. } => "two-choices-tokens",
            Reason::LeastKv { .. } => "least-kv",
            Reason::CacheAffinity { .. } => "cache-affinity",
            Reason::ImbalanceEscape { .. } => "imbalance-escape",
            Reason::AffinityDropped { .. } => "affinity-dropped",
            Reason::RingOwner { .. } => "ring-owner",
            Reason::RingOverloaded { .. } => "ring-overloaded",
            Reason::LowestCost { .. } => "lowest-cost",
            Reason::EarliestDeadline { .. } => "earliest-deadline",
            Reason::LowMatch { .. } => "low-match",
            Reason::HighestScore { .. } => "highest-score",
            Reason::AdapterResident { .. } => "adapter-resident",
            Reason::AdapterAbsent { .. } => "adapter-absent",
            Reason::Placed { .. } => "placed",
        }
    }

    /// One plain sentence for the UI; replica numbers are shown 1-based.
    pub fn explain(&self) -> String {
        match *self {
            Reason::Random => String::from("picked uniformly at random; no load signal read"),
            Reason::RoundRobin => String::from("next in the fixed rotation; load not read"),
            Reason::LeastLoaded { load } => {
                format!("fewest outstanding requests in the pool ({load})")
            }
            Reason::TwoChoices {
                other,
                load,
                other_load,
            } => format!(
                "lighter of two random replicas: {load} outstanding against {other_load} on replica {}",
                other + 1
            ),
            Reason::TwoChoicesTokens {
                other,
                tokens,
                other_tokens,
            } => format!(
                "lighter of two random replicas by reported tokens: {tokens} against {other_tokens} on replica {}",
                other + 1
            ),
            Reason::LeastKv { kv_blocks, waiting } => format!(
                "fewest KV blocks in use ({kv_blocks}); its {waiting} queued requests hold none"
            ),
            Reason::CacheAffinity { match_permille } => format!(
                "{}.{}% of the prompt is cached there, over the cache threshold",
                match_permille / 10,
                match_permille % 10
            ),
            Reason::ImbalanceEscape { max_load, min_load } => format!(
                "affinity dropped: loads range {min_load}–{max_load}, past both imbalance thresholds"
            ),
            Reason::AffinityDropped {
                holder,
                holder_load,
                least_load,
            } => format!(
                "affinity dropped: replica {} holds the prefix but has {holder_load} against {least_load} on the least loaded, past the threshold",
                holder + 1
            ),
            Reason::RingOwner { load } => format!(
                "owns the head of the prompt on the hash ring, and its {load} outstanding are within the load bound"
            ),
            Reason::RingOverloaded {
                owner,
                owner_load,
                load,
            } => format!(
                "replica {} owns the prompt's head but has {owner_load} outstanding, over the load bound: sent to the least loaded ({load})",
                owner + 1
            ),
            Reason::LowestCost { cost_blocks } => {
                format!("lowest cost: about {cost_blocks} KV blocks of prefill and decode work")
            }
            Reason::EarliestDeadline {
                weight_permille,
                active,
            } => format!(
                "earliest deadline in the weighted schedule (weight {}.{:03} with {active} active)",
                weight_permille / 1000,
                weight_permille % 1000
            ),
            Reason::HighestScore {
                score_milli,
                prefix_permille,
            } => format!(
                "highest weighted score ({}.{:03}), with {}.{}% of the prompt sent there before",
                score_milli / 1000,
                score_milli % 1000,
                prefix_permille / 10,
                prefix_permille % 10
            ),
            Reason::AdapterResident { load } => format!(
                "its adapter is already here; the least loaded of the replicas holding it ({load} outstanding)"
            ),
            Reason::AdapterAbsent { load } => format!(
                "no replica holds its adapter: the least loaded ({load} outstanding), which will load it"
            ),
            Reason::Placed { copies, load } => format!(
                "the least loaded ({load} outstanding) of the {copies} replicas its adapter is placed on"
            ),
            Reason::LowMatch {
                match_permille,
                load,
            } => format!(
                "best cached match only {}.{}%: sent to the least loaded ({load} outstanding)",
                match_permille / 10,
                match_permille % 10
            ),
        }
    }
}
