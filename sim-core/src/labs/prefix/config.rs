//! Prefix player configuration and its parameter table.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::trace::{default_trace, random_trace, trace_from_ids, PrefixRequest, PREFIXES};
use crate::params::{narrow, Configurable, Param};

/// Which trace to route.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceChoice {
    /// The article's 12-request scenario.
    Default,
    /// A skewed random trace drawn from the config's seed (12 requests, 4 prefixes).
    Random,
    /// Prefix ids (1–6) of each request, in order.
    Custom(Vec<u8>),
}

/// Requests in a random trace.
pub const RANDOM_LEN: usize = 12;
/// Most requests a custom trace may hold.
pub const MAX_REQUESTS: usize = 40;

impl TraceChoice {
    /// The canonical text form: `default`, `random`, or ids like `1,2,1,3`.
    pub fn to_text(&self) -> String {
        match self {
            TraceChoice::Default => String::from("default"),
            TraceChoice::Random => String::from("random"),
            TraceChoice::Custom(ids) => {
                let ids: Vec<String> = ids.iter().map(|i| alloc::format!("{i}")).collect();
                ids.join(",")
            }
        }
    }

    /// Parse the text form; ids may be written `P1` or `1`.
    pub fn parse(text: &str) -> Result<TraceChoice, String> {
        let why = || {
            alloc::format!(
                "default, random, or 1–{MAX_REQUESTS} prefix ids from 1 to {} separated by commas",
                PREFIXES.len()
            )
        };
        match text.trim() {
            "default" => Ok(TraceChoice::Default),
            "random" => Ok(TraceChoice::Random),
            ids => {
                let ids: Vec<u8> = ids
                    .split(',')
                    .map(|s| s.trim().trim_start_matches(['P', 'p']).parse::<u8>().ok())
                    .map(|id| id.filter(|&x| (1..=PREFIXES.len() as u8).contains(&x)))
                    .collect::<Option<_>>()
                    .ok_or_else(why)?;
                if ids.is_empty() || ids.len() > MAX_REQUESTS {
                    return Err(why());
                }
                Ok(TraceChoice::Custom(ids))
            }
        }
    }
}

/// Everything one prefix-player run depends on; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas (default 3).
    pub replicas: u32,
    /// Prefixes each replica's cache holds (default 1).
    pub slots: u32,
    /// Largest load gap (in assignments) affinity tolerates; `None` is
    /// infinite (default 2).
    pub threshold: Option<u32>,
    /// The trace.
    pub trace: TraceChoice,
    /// Seed of the random trace (default 1).
    pub seed: u64,
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
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

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::whole_or_inf(
            "threshold",
            "Load-gap threshold",
            "requests",
            (0, 10),
            |c| c.threshold.map(u64::from),
            |c, x| c.threshold = x.map(narrow),
        )
        .doc("Affinity is dropped when the replica holding the prefix is more than this many assignments ahead of the least loaded."),
        P::whole("replicas", "Replicas", "", (2, 6, 1), |c| c.replicas.into(), |c, x| {
            c.replicas = narrow(x)
        })
        .doc("Replicas both routers choose among."),
        P::whole("slots", "Cache slots per replica", "", (1, 4, 1), |c| c.slots.into(), |c, x| {
            c.slots = narrow(x)
        })
        .doc("Prefixes each replica's LRU cache holds."),
        P::text(
            "trace",
            "Trace",
            (
                "default, random, or prefix ids like 1,2,1,3",
                &["random", "1,2,1,3", "6"],
            ),
            |c| c.trace.to_text(),
            |c, t| {
                c.trace = TraceChoice::parse(t)?;
                Ok(())
            },
        )
        .doc("The requests, in order: the article's scenario, a random skewed trace, or your own prefix ids."),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}

impl Config {
    /// The requests this config routes.
    pub fn requests(&self) -> Vec<PrefixRequest> {
        match &self.trace {
            TraceChoice::Default => default_trace(),
            TraceChoice::Random => random_trace(RANDOM_LEN, 4, self.seed),
            TraceChoice::Custom(ids) => trace_from_ids(ids),
        }
    }
}
