//! Prefix player configuration.

use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::trace::{default_trace, random_trace, trace_from_ids, PrefixRequest};
use crate::labs::RangeError;

/// Which trace to route.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "ids")]
pub enum TraceChoice {
    /// The article's 12-request scenario.
    Default,
    /// A skewed random trace drawn from the config's seed (12 requests, 4 prefixes).
    Random,
    /// Prefix ids (1–6) of each request, in order.
    Custom(Vec<u8>),
}

/// Everything one prefix-player run depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas (2–6; default 3).
    pub replicas: u32,
    /// Prefixes each replica's cache holds (1–4; default 1).
    pub slots: u32,
    /// Largest load gap (in assignments) affinity tolerates; `None` is infinite
    /// (0–1,000; default 2).
    pub threshold: Option<u32>,
    /// The trace.
    pub trace: TraceChoice,
    /// Seed of the random trace (default 1).
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            replicas: 3,
            slots: 1,
            threshold: Some(2),
            trace: TraceChoice::Default,
            seed: 1,
        }
    }
}

/// Requests in a random trace.
pub const RANDOM_LEN: usize = 12;

impl Config {
    /// Every ranged key as `(key, value, min, max)`.
    pub fn bounds(&self) -> Vec<(&'static str, f64, f64, f64)> {
        let mut b = vec![
            ("replicas", f64::from(self.replicas), 2.0, 6.0),
            ("slots", f64::from(self.slots), 1.0, 4.0),
            (
                "threshold",
                f64::from(self.threshold.unwrap_or(0)),
                0.0,
                1000.0,
            ),
        ];
        if let TraceChoice::Custom(ids) = &self.trace {
            b.push(("requests", ids.len() as f64, 1.0, 40.0));
            for &id in ids {
                b.push(("prefix", f64::from(id), 1.0, 6.0));
            }
        }
        b
    }

    /// Check every value against its range.
    pub fn validate(&self) -> Result<(), RangeError> {
        crate::labs::validate_bounds(self.bounds())
    }

    /// The `(min, max)` range of `key`.
    pub fn range_of(key: &str) -> Option<(f64, f64)> {
        crate::labs::range_in(Config::default().bounds(), key)
    }

    /// The requests this config routes.
    pub fn requests(&self) -> Vec<PrefixRequest> {
        match &self.trace {
            TraceChoice::Default => default_trace(),
            TraceChoice::Random => random_trace(RANDOM_LEN, 4, self.seed),
            TraceChoice::Custom(ids) => trace_from_ids(ids),
        }
    }
}
