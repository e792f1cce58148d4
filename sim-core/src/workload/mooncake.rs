//! Rows of Mooncake-format traces (`kvcache-ai/Mooncake`, FAST'25 release): one
//! JSON object per line with `timestamp` (ms since the trace start),
//! `input_length`, `output_length` and `hash_ids` (prefix-chained ids of
//! 512-token KV blocks; equal ids are reusable prefix blocks).
//!
//! Each line is read as one JSON object by `serde_json`; unknown keys are
//! ignored, a missing or mistyped field is a row problem naming the line, and
//! a request with no prompt or no output token is refused (a replay needs at
//! least one of each).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Deserialize;

use super::row::{Row, RowProblem};

/// Tokens per hash block in the Mooncake traces.
pub const MOONCAKE_BLOCK_TOKENS: u32 = 512;

/// One line's fields; numbers are read as JSON numbers and checked below,
/// so a fractional token count is named rather than refused by the reader.
#[derive(Deserialize)]
struct Line {
    timestamp: f64,
    input_length: f64,
    output_length: f64,
    hash_ids: Vec<f64>,
}

/// The whole-number field `key` (at least `least`).
fn whole(x: f64, key: &str, least: u32) -> Result<u32, String> {
    if x != libm::trunc(x) || x < 0.0 || x > f64::from(u32::MAX) {
        return Err(format!("{key} must be a whole number of tokens (got {x})"));
    }
    let n = x as u32;
    if n < least {
        return Err(format!(
            "{key} is {n}; a request needs at least {least} token{}",
            if least == 1 { "" } else { "s" }
        ));
    }
    Ok(n)
}

/// Read one non-empty line (`number` is 1-based, for problems).
pub fn row(line: &str, number: usize) -> Result<Row, RowProblem> {
    let problem = |why: String| RowProblem { line: number, why };
    super::row::numbers_in_bounds(line).map_err(problem)?;
    let fields: Line = serde_json::from_str(line).map_err(|e| problem(e.to_string()))?;
    let timestamp = fields.timestamp;
    if timestamp < 0.0 {
        return Err(problem(
            "timestamp must be a number of milliseconds ≥ 0".into(),
        ));
    }
    let prompt = whole(fields.input_length, "input_length", 1).map_err(problem)?;
    let output = whole(fields.output_length, "output_length", 1).map_err(problem)?;
    let ids = &fields.hash_ids;
    let expected = prompt.div_ceil(MOONCAKE_BLOCK_TOKENS) as usize;
    if ids.len() != expected {
        return Err(problem(format!(
            "{} hash_ids for {} input tokens; expected {expected} (one per 512 tokens)",
            ids.len(),
            prompt
        )));
    }
    let blocks: Vec<u32> = ids
        .iter()
        .map(|&x| {
            (x == libm::trunc(x) && (0.0..=f64::from(u32::MAX)).contains(&x)).then_some(x as u32)
        })
        .collect::<Option<_>>()
        .ok_or_else(|| problem(String::from("hash_ids must be whole numbers ≥ 0")))?;
    Ok(Row {
        ms: timestamp,
        prompt,
        output,
        blocks: Some(blocks),
        line: number,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_row_and_ignores_unknown_keys() {
        let r = row(
            r#"{"timestamp": 250, "input_length": 600, "output_length": 5, "hash_ids": [0, 3], "note": "x"}"#,
            1,
        )
        .expect("valid");
        assert_eq!((r.ms, r.prompt, r.output), (250.0, 600, 5));
        assert_eq!(r.blocks, Some(alloc::vec![0, 3]));
    }

    #[test]
    fn names_what_is_wrong() {
        let missing = row(r#"{"timestamp": 0, "input_length": 5, "hash_ids": [1]}"#, 7);
        let p = missing.expect_err("no output_length");
        assert_eq!(p.line, 7);
        assert!(p.why.contains("output_length"), "{}", p.why);
        let text = row(
            r#"{"timestamp": "soon", "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
            2,
        );
        assert!(text.expect_err("a string").why.contains("invalid type"));
        let blocks = row(
            r#"{"timestamp": 0, "input_length": 1100, "output_length": 1, "hash_ids": [1]}"#,
            3,
        );
        assert!(blocks.expect_err("too few ids").why.contains("expected 3"));
        assert!(row("{not json", 4).is_err());
        assert!(row(
            r#"{"timestamp": -5, "input_length": 5, "output_length": 1, "hash_ids": [1]}"#,
            5
        )
        .is_err());
        let empty = row(
            r#"{"timestamp": 0, "input_length": 5, "output_length": 0, "hash_ids": [1]}"#,
            6,
        );
        assert!(empty.expect_err("no output").why.contains("at least 1"));
    }
}
