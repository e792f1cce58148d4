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
    /// What makes this tick worth stopping at, if anything.
    #[serde(default)]
    pub moment: Option<HerdMoment>,
}

/// A tick the player flags for the reader (the "Next key moment" button stops
/// at these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HerdMoment {
    /// A stampede, flagged by the pile it made. For two or more ticks in a
    /// row every arrival went to the same replica, each because its router's
    /// numbers showed that replica as the one idlest (a unique minimum, not a
    /// coin-flip among ties): the routers agreed from stale numbers (§5.6).
    /// It counts once the replica holds at least [`PILE_FACTOR`] times the
    /// pool's mean load, and is flagged at the last tick it lasted, where the
    /// pile is highest. A single tick of two requests landing together (what
    /// staggered scrapes leave) is churn, not a stampede.
    Stampede {
        /// The replica they all chose (0-based).
        replica: u32,
        /// How many requests went there during the stampede.
        requests: u32,
        /// How many routers took part.
        routers: u32,
        /// The tick it began.
        since: u32,
        /// The replica's outstanding requests at the flagged tick.
        load: u32,
    },
}

/// How many times the pool's mean load a replica must hold for a run of
/// unanimous dispatches to count as a stampede.
pub const PILE_FACTOR: u32 = 2;

/// Metrics over the ticks played so far (the whole run at the last tick).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    /// Largest skew so far.
    pub peak_skew: u32,
    /// Mean skew so far.
    pub mean_skew: f64,
    /// Mean |skew change| between consecutive ticks so far.
    pub oscillation: f64,
    /// Share of ticks with 2+ arrivals that all went to one replica, so far.
    pub pile_up_share: f64,
}

impl Totals {
    /// The metrics of `ticks` (a prefix of a run, or the whole of it). The
    /// run's summary is computed by this same function, so a player's
    /// progressive table ends exactly on the final figures.
    pub fn of(ticks: &[TickSnapshot]) -> Totals {
        let n = ticks.len();
        let sum: u64 = ticks.iter().map(|t| u64::from(t.skew)).sum();
        let diffs: u64 = ticks
            .windows(2)
            .map(|w| u64::from(w[1].skew.abs_diff(w[0].skew)))
            .sum();
        let multi = ticks.iter().filter(|t| t.arrivals >= 2).count();
        let piled = ticks
            .iter()
            .filter(|t| t.arrivals >= 2 && t.new.iter().filter(|&&x| x > 0).count() == 1)
            .count();
        Totals {
            peak_skew: ticks.iter().map(|t| t.skew).max().unwrap_or(0),
            mean_skew: if n == 0 { 0.0 } else { sum as f64 / n as f64 },
            oscillation: if n < 2 {
                0.0
            } else {
                diffs as f64 / (n - 1) as f64
            },
            pile_up_share: if multi == 0 {
                0.0
            } else {
                piled as f64 / multi as f64
            },
        }
    }
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
    /// Requests finished by the last tick.
    pub finished: u32,
    /// Requests no replica could take (none: every pool has two or more).
    pub unrouted: u32,
    /// Tick-by-tick state for the player.
    pub timeline: Timeline,
}

/// All rules on the same arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
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
