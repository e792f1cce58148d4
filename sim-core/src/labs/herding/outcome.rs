//! What a herding run reports: per-rule metrics and the tick-by-tick timeline the
//! player steps through.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{Config, HerdingRule};

/// One router's state at a tick, after its scrape (if any) and its dispatches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouterView {
    /// Per replica, the outstanding counts of the router's last snapshot.
    pub snapshot: Vec<u32>,
    /// Ticks since that snapshot was taken.
    pub age: u32,
    /// Per replica, what this router sent since its last scrape (after this tick).
    pub own: Vec<u32>,
    /// Whether the router scraped at this tick.
    pub scraped: bool,
    /// Replica (0-based) of each request this router dispatched at this tick.
    pub dispatched: Vec<u32>,
}

/// The whole system at one tick, after dispatch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TickSnapshot {
    /// The tick.
    pub tick: u32,
    /// Actual outstanding requests per replica.
    pub outstanding: Vec<u32>,
    /// Of those, dispatched at this tick.
    pub new: Vec<u32>,
    /// Requests that arrived at this tick.
    pub arrivals: u32,
    /// max − min of `outstanding`.
    pub skew: u32,
    /// One entry per router.
    pub routers: Vec<RouterView>,
}

/// Every tick of one rule's run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Ticks 0..ticks.
    pub ticks: Vec<TickSnapshot>,
}

/// Metrics of one rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleSummary {
    /// The rule.
    pub rule: HerdingRule,
    /// Largest skew over the run.
    pub peak_skew: u32,
    /// Mean skew over all ticks.
    pub mean_skew: f64,
    /// Mean |skew(t) − skew(t−1)| over the ticks − 1 differences.
    pub oscillation: f64,
    /// Share of ticks with at least two arrivals in which all of them went to one
    /// replica (0–1; 0 when no tick had two arrivals).
    pub pile_up_share: f64,
    /// Skew per tick.
    pub skew: Vec<u32>,
    /// Tick-by-tick state for the player.
    pub timeline: Timeline,
}

/// All rules on the same arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    pub config: Config,
    /// Arrivals per tick (the same for every rule).
    pub arrivals: Vec<u32>,
    /// One entry per rule run.
    pub rules: Vec<RuleSummary>,
}

impl Outcome {
    /// The entry for `rule`, if it ran.
    pub fn rule(&self, rule: HerdingRule) -> Option<&RuleSummary> {
        self.rules.iter().find(|r| r.rule == rule)
    }
}
