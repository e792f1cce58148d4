//! What a fairness run returns: per tenant, per scheduler, and the player's
//! iteration-by-iteration record.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::Scheduler;

/// One tenant's figures over a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TenantRun {
    /// Requests finished.
    pub finished: u32,
    /// Share of all finished requests.
    pub request_share: f64,
    /// VTC's weighted token service received, per iteration.
    pub service: f64,
    /// Share of the engine's GPU time spent on it.
    pub gpu_share: f64,
    /// 95th percentile of time to first token, iterations.
    /// Requests still without a first token when the run ends count with
    /// their wait so far, so a starved tenant shows a long TTFT (a lower
    /// bound), not none.
    pub ttft_p95: f64,
    /// Share of its prompt tokens served from the prefix cache.
    pub cache_share: f64,
    /// Its sequences evicted by strict priority.
    pub preempted: u32,
}

/// One scheduler's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchedulerRun {
    /// The scheduler.
    pub scheduler: Scheduler,
    /// Per tenant, in [`super::TENANTS`] order.
    pub tenants: Vec<TenantRun>,
    /// Share of all prompt tokens served from the prefix cache.
    pub cache_share: f64,
    /// Iteration of the first preemption, if any.
    pub first_preemption: Option<u32>,
    /// Requests sent (steady clients' first requests included).
    pub arrived: u32,
    /// Requests still waiting or running when the run ended.
    pub unfinished: u32,
    /// The run iteration by iteration, when it was recorded. Only the page
    /// gets it (its JSON is `null`, so an export equals what `lblab
    /// fairness --json` prints: the recording is a view of the run, not one
    /// of its figures); read it through [`SchedulerRun::steps`].
    #[serde(serialize_with = "crate::labs::page_only")]
    pub timeline: Option<Vec<Snapshot>>,
}

impl SchedulerRun {
    /// The recorded iterations (none when the run was not recorded).
    pub fn steps(&self) -> &[Snapshot] {
        self.timeline.as_deref().unwrap_or(&[])
    }
}

/// The engine after one iteration (what the player shows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Requests waiting, per tenant.
    pub waiting: Vec<u32>,
    /// Each slot's sequence, if it holds one.
    pub slots: Vec<Option<Seat>>,
    /// Tenants whose requests took a slot this iteration, in order.
    pub admitted: Vec<u32>,
    /// Tenant whose batch sequence strict priority evicted this iteration.
    pub evicted: Option<u32>,
    /// Each tenant's key when the scheduler filled slots this iteration
    /// (lowest goes first): requests in the window (RPM), tokens in the
    /// window (TPM), weighted service counter (VTC), 0 interactive and 1
    /// batch (strict priority), 0 for all (FCFS, which goes by age).
    pub keys: Vec<f64>,
    /// Weighted token service received so far, per tenant (VTC's measure,
    /// whichever scheduler runs).
    pub service: Vec<f64>,
    /// GPU time so far, per tenant, in prompt-token units.
    pub gpu: Vec<f64>,
    /// Whether the shared prompt is in the prefix cache after the iteration.
    pub prefix_cached: bool,
    /// What makes this iteration worth stopping at, if anything.
    pub moment: Option<Moment>,
}

/// A sequence in a slot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    /// Its tenant (index into [`super::TENANTS`]).
    pub tenant: u32,
    /// Still computing its prompt (otherwise decoding).
    pub prefilling: bool,
    /// Its shared prompt came from the cache.
    pub cached: bool,
}

/// An iteration a player stops at: the first time a scheduler's choice
/// differs from arrival order, preempts, or costs the cache.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// The scheduler admitted `picked`'s request although `passed`'s head
    /// request had waited `older` iterations longer: fairness at work.
    Overtake {
        /// Tenant served.
        picked: u32,
        /// Tenant passed over.
        passed: u32,
        /// How much longer the passed request had waited.
        older: u32,
    },
    /// The first time strict priority threw computed work away: it evicted
    /// a batch sequence of `victim` for an interactive request of `by`, and
    /// `lost` tokens of work start over.
    Preemption {
        /// Tenant whose sequence was evicted.
        victim: u32,
        /// Tenant whose request took the slot.
        by: u32,
        /// Prompt and output tokens computed and thrown away.
        lost: u32,
    },
    /// A shared-prompt request missed the cache after an earlier one hit:
    /// the prefix was evicted in between and is computed again.
    PrefixMiss {
        /// Iterations since the prefix last hit.
        since: u32,
        /// Its tokens, computed again.
        tokens: u32,
    },
}
