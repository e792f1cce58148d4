//! The request model and the ways to fill it.
//!
//! A [`Request`] carries exactly what a public LLM trace records: an arrival time,
//! prompt and output lengths, and the prompt as a chain of KV-block hash ids (the
//! Mooncake traces' `hash_ids`, where equal leading ids mean a reusable prefix).
//! The engine and the routers read only these fields, so a trace importer and the
//! seeded [`generator`] are interchangeable sources.

pub mod azure;
pub mod generator;
pub mod mooncake;
pub mod row;
pub mod sessions;
pub mod summary;
pub mod trace;

pub use summary::{LengthStats, TraceStats};

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::time::Tick;

/// Id of one prompt block's hash. Equal ids at equal positions are the same
/// cached work; ids are prefix-chained, so a matching id implies matching history.
pub type BlockId = u32;

/// One LLM call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// When the request reaches the router.
    pub arrival: Tick,
    /// Prompt length, in tokens.
    pub prompt_tokens: u32,
    /// Output length, in tokens (at least 1; unknown to routers).
    pub output_tokens: u32,
    /// The prompt as hash-block ids, `ceil(prompt_tokens / block_tokens)` of them.
    pub blocks: Vec<BlockId>,
    /// Whether the generator drew this request from the long-output class.
    pub long: bool,
    /// The LoRA adapter it runs on (0: the base model, as every request of
    /// a lab without adapters). Engines with adapter slots load it before
    /// the request's first step ([`crate::engine::adapters`]).
    #[serde(default)]
    pub adapter: u16,
}

/// A trace: requests sorted by arrival, plus the size of one hash block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    /// Tokens covered by one entry of [`Request::blocks`] (Mooncake uses 512).
    pub block_tokens: u32,
    /// Requests in arrival order.
    pub requests: Vec<Request>,
}

impl Workload {
    /// Smallest and largest prompt, in tokens (0, 0 when empty).
    pub fn prompt_range(&self) -> (u32, u32) {
        let min = self.requests.iter().map(|r| r.prompt_tokens).min();
        let max = self.requests.iter().map(|r| r.prompt_tokens).max();
        (min.unwrap_or(0), max.unwrap_or(0))
    }

    /// Mean prompt length, in tokens.
    pub fn prompt_mean(&self) -> f64 {
        let n = self.requests.len().max(1) as f64;
        self.requests
            .iter()
            .map(|r| f64::from(r.prompt_tokens))
            .sum::<f64>()
            / n
    }

    /// The latest arrival tick (zero when empty).
    pub fn last_arrival(&self) -> Tick {
        self.requests
            .last()
            .map(|r| r.arrival)
            .unwrap_or(Tick::ZERO)
    }
}
