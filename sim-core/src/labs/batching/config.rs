//! Batching player configuration and traces.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::labs::RangeError;
use crate::rng::{stream, Rng};

/// A batching mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// A batch forms only when every slot is free.
    Static,
    /// Slots refill every iteration; prefill iterations stall decode.
    Continuous,
    /// Prefill chunks share iterations with decode.
    Chunked,
}

impl Mode {
    /// All modes, in table order.
    pub const ALL: [Mode; 3] = [Mode::Static, Mode::Continuous, Mode::Chunked];

    /// Name used by the CLI, JSON and URLs.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Static => "static",
            Mode::Continuous => "continuous",
            Mode::Chunked => "chunked",
        }
    }

    /// Human title.
    pub fn title(self) -> &'static str {
        match self {
            Mode::Static => "Static batching",
            Mode::Continuous => "Continuous batching",
            Mode::Chunked => "Chunked prefill",
        }
    }

    /// Look a mode up by name.
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// One request of a batching trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchRequest {
    /// Short label (A, B, …).
    pub label: String,
    /// Arrival iteration (admissible from the next iteration).
    pub arrival: u32,
    /// Prefill work, in chunks (one chunk per iteration).
    pub prefill: u32,
    /// Output tokens.
    pub output: u32,
}

/// Which trace to play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "requests")]
pub enum TraceChoice {
    /// The trace that reproduces the article's figures.
    Default,
    /// Six random requests from the config's seed.
    Random,
    /// An explicit trace.
    Custom(Vec<BatchRequest>),
}

/// Everything one batching run depends on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Batch slots (1–8; default 3).
    pub slots: u32,
    /// Work units per chunked-prefill iteration (1–16; default 3, the slot count).
    pub chunk_budget: u32,
    /// Chunked prefill: prefill chunks take the budget before decode (default
    /// false: decode first, so decode never stalls for prefill).
    pub prefill_first: bool,
    /// The trace.
    pub trace: TraceChoice,
    /// Seed of the random trace (default 1).
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            slots: 3,
            chunk_budget: 3,
            prefill_first: false,
            trace: TraceChoice::Default,
            seed: 1,
        }
    }
}

fn label(i: usize) -> String {
    let c = (b'A' + (i % 26) as u8) as char;
    if i < 26 {
        String::from(c)
    } else {
        alloc::format!("{c}{}", i / 26)
    }
}

/// The default trace: (arrival, prefill chunks, output tokens) per request,
/// one of the 15,156 that the exhaustive search in `tests/batching_search.rs`
/// found to reproduce every figure of the article.
pub const DEFAULT_TRACE: [(u32, u32, u32); 6] = [
    (0, 1, 1),
    (0, 2, 5),
    (1, 1, 3),
    (1, 2, 8),
    (1, 3, 6),
    (2, 1, 6),
];

/// The article's scenario.
pub fn default_trace() -> Vec<BatchRequest> {
    config_from_tuples(&DEFAULT_TRACE)
}

/// Requests from (arrival, prefill, output) tuples, labelled A, B, ….
pub fn config_from_tuples(t: &[(u32, u32, u32)]) -> Vec<BatchRequest> {
    t.iter()
        .enumerate()
        .map(|(i, &(arrival, prefill, output))| BatchRequest {
            label: label(i),
            arrival,
            prefill,
            output,
        })
        .collect()
}

/// Six requests: arrivals 0–6 (sorted), prefill 1–3 chunks, outputs 1–8 tokens.
pub fn random_trace(seed: u64) -> Vec<BatchRequest> {
    let mut rng = Rng::new(seed, stream::ARRIVALS);
    let mut arrivals: Vec<u32> = (0..6).map(|_| rng.below(7)).collect();
    arrivals.sort_unstable();
    let t: Vec<(u32, u32, u32)> = arrivals
        .into_iter()
        .map(|a| (a, 1 + rng.below(3), 1 + rng.below(8)))
        .collect();
    config_from_tuples(&t)
}

impl Config {
    /// Every ranged key as `(key, value, min, max)`.
    pub fn bounds(&self) -> Vec<(&'static str, f64, f64, f64)> {
        let mut b = vec![
            ("slots", f64::from(self.slots), 1.0, 8.0),
            ("chunk_budget", f64::from(self.chunk_budget), 1.0, 16.0),
        ];
        if let TraceChoice::Custom(reqs) = &self.trace {
            b.push(("requests", reqs.len() as f64, 1.0, 26.0));
            for r in reqs {
                b.push(("arrival", f64::from(r.arrival), 0.0, 100.0));
                b.push(("prefill", f64::from(r.prefill), 1.0, 20.0));
                b.push(("output", f64::from(r.output), 1.0, 50.0));
            }
        }
        b
    }

    /// Check every value against its range.
    pub fn validate(&self) -> Result<(), RangeError> {
        crate::labs::validate_bounds(self.bounds())
    }

    /// The requests this config plays, sorted by arrival (stable).
    pub fn requests(&self) -> Vec<BatchRequest> {
        let mut r = match &self.trace {
            TraceChoice::Default => default_trace(),
            TraceChoice::Random => random_trace(self.seed),
            TraceChoice::Custom(r) => r.clone(),
        };
        r.sort_by_key(|x| x.arrival);
        r
    }
}
