//! Batching player configuration and traces.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::params::{narrow, Configurable, Opt, Param};
use crate::rng::{stream, Rng};

crate::choices! {
    /// A batching mode.
    pub enum Mode {
        /// A batch forms only when every slot is free.
        Static = ("static", "Static batching", "A new batch forms only when every slot is free."),
        /// Slots refill every iteration; prefill iterations stall decode.
        Continuous = (
            "continuous",
            "Continuous batching",
            "Free slots refill every iteration; a prefill iteration stalls decode."
        ),
        /// Prefill chunks share iterations with decode.
        Chunked = (
            "chunked",
            "Chunked prefill",
            "Prefill chunks ride along with decode within a per-iteration budget."
        ),
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
#[serde(rename_all = "kebab-case")]
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
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
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
    arrivals.sort();
    let t: Vec<(u32, u32, u32)> = arrivals
        .into_iter()
        .map(|a| (a, 1 + rng.below(3), 1 + rng.below(8)))
        .collect();
    config_from_tuples(&t)
}

/// Most requests a custom trace may hold.
pub const MAX_REQUESTS: usize = 26;
/// Latest arrival iteration of a custom request.
pub const MAX_ARRIVAL: u32 = 100;
/// Most prefill chunks of a custom request.
pub const MAX_PREFILL: u32 = 20;
/// Most output tokens of a custom request.
pub const MAX_OUTPUT: u32 = 50;

impl TraceChoice {
    /// The canonical text form: `default`, `random`, or requests written
    /// `arrival.prefill.output` joined by commas (`0.1.1,0.2.5`).
    pub fn to_text(&self) -> String {
        match self {
            TraceChoice::Default => String::from("default"),
            TraceChoice::Random => String::from("random"),
            TraceChoice::Custom(reqs) => {
                let parts: Vec<String> = reqs
                    .iter()
                    .map(|r| alloc::format!("{}.{}.{}", r.arrival, r.prefill, r.output))
                    .collect();
                parts.join(",")
            }
        }
    }

    /// Parse the text form; custom requests are labelled A, B, … in order.
    pub fn parse(text: &str) -> Result<TraceChoice, String> {
        let why = || {
            alloc::format!(
                "default, random, or 1–{MAX_REQUESTS} requests written arrival.prefill.output \
                 (arrival 0–{MAX_ARRIVAL}, prefill 1–{MAX_PREFILL}, output 1–{MAX_OUTPUT}) separated by commas"
            )
        };
        match text.trim() {
            "default" => Ok(TraceChoice::Default),
            "random" => Ok(TraceChoice::Random),
            body => {
                let tuples: Vec<(u32, u32, u32)> = body
                    .split(',')
                    .map(|r| {
                        let mut it = r.split('.').map(|x| x.trim().parse::<u32>().ok());
                        let (a, p, o) = (it.next()??, it.next()??, it.next()??);
                        (a <= MAX_ARRIVAL
                            && (1..=MAX_PREFILL).contains(&p)
                            && (1..=MAX_OUTPUT).contains(&o)
                            && it.next().is_none())
                        .then_some((a, p, o))
                    })
                    .collect::<Option<_>>()
                    .ok_or_else(why)?;
                if tuples.is_empty() || tuples.len() > MAX_REQUESTS {
                    return Err(why());
                }
                Ok(TraceChoice::Custom(config_from_tuples(&tuples)))
            }
        }
    }
}

/// The two orders in which chunked prefill spends its budget.
fn orders() -> Vec<Opt> {
    alloc::vec![
        Opt {
            name: "decode",
            title: "Decode first",
            doc: "Every decoding sequence takes a unit first; prefill chunks get what is left.",
        },
        Opt {
            name: "prefill",
            title: "Prefill first",
            doc: "Prefill chunks take the budget first; decode gets what is left.",
        },
    ]
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::whole(
            "slots",
            "Batch slots",
            "",
            (1, 8, 1),
            |c| c.slots.into(),
            |c, x| c.slots = narrow(x),
        )
        .doc("Sequences the engine runs at once."),
        P::whole(
            "chunk-budget",
            "Chunk budget",
            "units/iteration",
            (1, 16, 1),
            |c| c.chunk_budget.into(),
            |c, x| c.chunk_budget = narrow(x),
        )
        .doc(
            "Work units per chunked-prefill iteration: a decode step or a prefill chunk takes one.",
        ),
        P::choice(
            "order",
            "Budget order",
            orders,
            |c| if c.prefill_first { "prefill" } else { "decode" },
            |c, x| c.prefill_first = x == "prefill",
        )
        .doc("Which work chunked prefill serves first when the budget is short."),
        P::text(
            "trace",
            "Trace",
            (
                "default, random, or requests like 0.1.1,0.2.5 (arrival.prefill.output)",
                &["random", "0.1.1,0.2.5", "100.20.50"],
            ),
            |c| c.trace.to_text(),
            |c, t| {
                c.trace = TraceChoice::parse(t)?;
                Ok(())
            },
        )
        .doc("The requests: the article's scenario, six random ones, or your own."),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}

impl Config {
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
