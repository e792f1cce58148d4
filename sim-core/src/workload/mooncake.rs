//! Import of Mooncake-format traces (`kvcache-ai/Mooncake`, FAST'25 release):
//! one JSON object per line with `timestamp` (ms), `input_length`,
//! `output_length` and `hash_ids` (prefix-chained block hashes, 512 tokens each).
//!
//! A deliberately small parser for exactly that shape, so `sim-core` stays
//! `no_std` without a JSON dependency; unknown keys are skipped.

use alloc::vec::Vec;
use core::fmt;

use super::{Request, Workload};
use crate::time::Tick;

/// Tokens per hash block in the Mooncake traces.
pub const MOONCAKE_BLOCK_TOKENS: u32 = 512;

/// A line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number.
    pub line: usize,
    /// What was wrong.
    pub reason: &'static str,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace line {}: {}", self.line, self.reason)
    }
}

fn number_after(line: &str, key: &str) -> Option<u64> {
    let at = line.find(key)? + key.len();
    let rest = line[at..].trim_start().strip_prefix(':')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

fn ids_after(line: &str, key: &str) -> Option<Vec<u32>> {
    let at = line.find(key)? + key.len();
    let rest = line[at..]
        .trim_start()
        .strip_prefix(':')?
        .trim_start()
        .strip_prefix('[')?;
    let body = &rest[..rest.find(']')?];
    body.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect()
}

/// Parse Mooncake JSONL. Arrival ticks are `timestamp / ms_per_tick`; requests
/// keep file order (the traces are sorted by timestamp). At most `limit` lines.
pub fn parse(text: &str, ms_per_tick: u32, limit: usize) -> Result<Workload, TraceError> {
    let mut requests = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(limit)
    {
        let err = |reason| TraceError {
            line: i + 1,
            reason,
        };
        let ts = number_after(line, "\"timestamp\"").ok_or(err("no numeric \"timestamp\""))?;
        let input =
            number_after(line, "\"input_length\"").ok_or(err("no numeric \"input_length\""))?;
        let output =
            number_after(line, "\"output_length\"").ok_or(err("no numeric \"output_length\""))?;
        let blocks =
            ids_after(line, "\"hash_ids\"").ok_or(err("no \"hash_ids\" array of integers"))?;
        requests.push(Request {
            arrival: Tick(ts / u64::from(ms_per_tick.max(1))),
            prompt_tokens: u32::try_from(input)
                .map_err(|_| err("input_length too large"))?
                .max(1),
            output_tokens: u32::try_from(output)
                .map_err(|_| err("output_length too large"))?
                .max(1),
            blocks,
            long: false,
        });
    }
    requests.sort_by_key(|r| r.arrival);
    Ok(Workload {
        block_tokens: MOONCAKE_BLOCK_TOKENS,
        requests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixture of our own in the Mooncake format (not a copy of the trace).
    const FIXTURE: &str = r#"{"timestamp": 0, "input_length": 1100, "output_length": 20, "hash_ids": [0, 1, 2]}
{"timestamp": 250, "input_length": 600, "output_length": 5, "hash_ids": [0, 3]}

{"timestamp": 900, "input_length": 1500, "output_length": 40, "hash_ids": [0, 1, 2, 4]}
"#;

    #[test]
    fn reads_the_fixture() {
        let w = parse(FIXTURE, 100, usize::MAX).expect("valid");
        assert_eq!(w.block_tokens, 512);
        assert_eq!(w.requests.len(), 3);
        assert_eq!(w.requests[1].arrival, Tick(2));
        assert_eq!(w.requests[2].blocks, [0, 1, 2, 4]);
        assert_eq!(w.requests[2].prompt_tokens, 1500);
        assert_eq!(parse(FIXTURE, 100, 1).expect("valid").requests.len(), 1);
    }

    #[test]
    fn names_the_bad_line() {
        let err = parse("{\"timestamp\": 0, \"input_length\": 5}\n", 100, 10).expect_err("invalid");
        assert_eq!(
            err,
            TraceError {
                line: 1,
                reason: "no numeric \"output_length\""
            }
        );
    }
}
