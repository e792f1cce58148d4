//! What the prefix player records: every step of both routers.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::Config;
use super::PrefixRequest;

crate::choices! {
    /// The two routers.
    pub enum RouterKind {
        /// Fewest assignments, prefix ignored.
        Load = ("load", "Load only", "Fewest requests assigned so far; the prefix is not looked at."),
        /// Prefix affinity with a load-gap escape hatch.
        PrefixAware = (
            "prefix-aware",
            "Prefix-aware",
            "Follows the replica caching the prefix unless it is too far ahead on load."
        ),
    }
}

/// Why a router chose its replica.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrefixReason {
    /// Fewest assignments (the load-only router, always).
    Load,
    /// The prefix had never been seen: least-loaded replica.
    FirstSight,
    /// A replica holds the prefix and is within the threshold of the least loaded.
    Affinity,
    /// The holder is too far ahead: sent to the least-loaded replica instead.
    AffinityDropped {
        /// Replica (0-based) holding the prefix.
        holder: u32,
        /// Its assignments.
        holder_load: u32,
        /// Assignments of the least-loaded replica.
        least_load: u32,
    },
    /// Seen before but evicted everywhere: least-loaded replica.
    Evicted,
}

impl PrefixReason {
    /// Short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            PrefixReason::Load => "load",
            PrefixReason::FirstSight => "first sight",
            PrefixReason::Affinity => "affinity",
            PrefixReason::AffinityDropped { .. } => "affinity dropped on load gap",
            PrefixReason::Evicted => "load (prefix evicted)",
        }
    }
}

/// A cached prefix and how many hits it has served since it entered the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// Prefix id, 1-based.
    pub prefix: u8,
    /// Hits served by this entry.
    pub hits: u32,
}

/// One router's decision for one request, and the state after it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Index of the request (0-based).
    pub request: u32,
    /// Replica chosen (0-based).
    pub target: u32,
    /// Whether the prefix was cached there.
    pub hit: bool,
    /// Why.
    pub reason: PrefixReason,
    /// Tokens prefilled for this request.
    pub prefill_tokens: u32,
    /// Tokens prefilled so far, this request included.
    pub cumulative_prefill: u64,
    /// Assignments per replica after this step.
    pub assignments: Vec<u32>,
    /// Cache contents per replica after this step, most recently used last.
    pub caches: Vec<Vec<CacheEntry>>,
    /// The prefix this step pushed out of the target's cache, if any.
    #[serde(default)]
    pub evicted: Option<u8>,
    /// What makes this step worth stopping at, if anything.
    #[serde(default)]
    pub moment: Option<PrefixMoment>,
}

/// A step the player flags for the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PrefixMoment {
    /// The prefix was cached on another replica, but the router sent the
    /// request elsewhere and it missed: the whole prompt is prefilled again.
    HotMiss {
        /// A replica (0-based) that held the prefix.
        holder: u32,
    },
    /// The prefix-aware router left the holder because it was too far ahead
    /// of the least-loaded replica (the load-gap escape hatch, §6.1).
    Escape {
        /// The replica (0-based) holding the prefix.
        holder: u32,
    },
    /// The request's miss pushed another prefix out of a full cache.
    Eviction {
        /// The prefix pushed out.
        prefix: u8,
    },
}

/// One router's counts over the steps played so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Totals {
    /// Requests that hit.
    pub hits: u32,
    /// Prefill tokens.
    pub prefill_tokens: u64,
    /// Escapes taken.
    pub escapes: u32,
    /// Requests routed.
    pub requests: u32,
}

impl RouterRun {
    /// Counts over steps `0..=step` (the whole run from the last step on).
    pub fn totals_upto(&self, step: usize) -> Totals {
        let played = &self.steps[..(step + 1).min(self.steps.len())];
        Totals {
            hits: played.iter().filter(|s| s.hit).count() as u32,
            prefill_tokens: played.last().map_or(0, |s| s.cumulative_prefill),
            escapes: played
                .iter()
                .filter(|s| matches!(s.reason, PrefixReason::AffinityDropped { .. }))
                .count() as u32,
            requests: played.len() as u32,
        }
    }
}

/// One router over the whole trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouterRun {
    /// Which router.
    pub router: RouterKind,
    /// Requests that hit.
    pub hits: u32,
    /// Total prefill tokens.
    pub prefill_tokens: u64,
    /// Requests that took the escape hatch.
    pub escapes: u32,
    /// Final assignments per replica.
    pub assignments: Vec<u32>,
    /// Every step.
    pub steps: Vec<Step>,
}

/// The prefix-aware router at one threshold of the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The threshold (`None` = infinite).
    pub threshold: Option<u32>,
    /// Hits over the trace.
    pub hits: u32,
    /// Final max − min assignments.
    pub assignment_gap: u32,
}

/// Both routers on one trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// The requests routed.
    pub trace: Vec<PrefixRequest>,
    /// Load-only first, then prefix-aware.
    pub routers: Vec<RouterRun>,
    /// Prefill saved by prefix-aware routing, as a share of load-only's (0–1).
    pub prefill_reduction: f64,
    /// Prefix-aware hits and final gap at thresholds 0–10 and infinity.
    pub sweep: Vec<SweepPoint>,
}
