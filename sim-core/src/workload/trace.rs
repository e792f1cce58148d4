//! How a trace file becomes a [`Workload`]: the import options and their
//! parameter table (the CLI's `--ms-per-tick` and `--trace-limit`).

use serde::{Deserialize, Serialize};

use super::mooncake::{self, TraceError};
use super::Workload;
use crate::params::{Configurable, Param};

/// Options of a trace import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportOptions {
    /// Trace milliseconds per simulated tick (default 100).
    pub ms_per_tick: u32,
    /// Read at most this many requests (default 200,000).
    pub limit: u32,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            ms_per_tick: 100,
            limit: 200_000,
        }
    }
}

/// Shorthand for the table below.
type P = Param<ImportOptions>;

impl Configurable for ImportOptions {
    const PARAMS: &'static [Param<ImportOptions>] = &[
        P::whole(
            "ms-per-tick",
            "Time scale",
            "ms/tick",
            (1, 100_000, 1),
            |o| o.ms_per_tick.into(),
            |o, x| o.ms_per_tick = crate::params::narrow(x),
        )
        .doc("Trace milliseconds per simulated tick"),
        P::whole(
            "trace-limit",
            "Requests read",
            "",
            (1, 200_000, 1),
            |o| o.limit.into(),
            |o, x| o.limit = crate::params::narrow(x),
        )
        .doc("Read at most this many requests of the trace"),
    ];
}

impl ImportOptions {
    /// Read Mooncake JSONL text with these options.
    pub fn mooncake(&self, text: &str) -> Result<Workload, TraceError> {
        mooncake::parse(text, self.ms_per_tick, self.limit as usize)
    }
}
