//! Rows of Mooncake-format traces (`kvcache-ai/Mooncake`, FAST'25 release): one
//! JSON object per line with `timestamp` (ms since the trace start),
//! `input_length`, `output_length` and `hash_ids` (prefix-chained ids of
//! 512-token KV blocks; equal ids are reusable prefix blocks).
//!
//! Each line is read with serde_json into [`MooncakeLine`]; unknown keys are
//! ignored, a missing or mistyped field is a row problem naming the line.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;

use super::row::{Row, RowProblem};

/// Tokens per hash block in the Mooncake traces.
pub const MOONCAKE_BLOCK_TOKENS: u32 = 512;

/// One line of a Mooncake trace, as serde reads it.
#[derive(Debug, Deserialize)]
pub struct MooncakeLine {
    /// Arrival, in milliseconds since the trace start.
    pub timestamp: f64,
    /// Prompt tokens.
    pub input_length: u64,
    /// Output tokens.
    pub output_length: u64,
    /// Prefix-chained ids of 512-token blocks.
    pub hash_ids: Vec<u32>,
}

/// Why serde refused a line, shortened to its first clause (serde_json adds
/// "at line 1 column N", which means nothing for a one-line document).
fn reason(e: &serde_json::Error) -> String {
    let text = format!("{e}");
    match text.find(" at line ") {
        Some(i) => String::from(&text[..i]),
        None => text,
    }
}

/// Read one non-empty line (`number` is 1-based, for problems).
pub fn row(line: &str, number: usize) -> Result<Row, RowProblem> {
    let problem = |why: String| RowProblem { line: number, why };
    let l: MooncakeLine = serde_json::from_str(line).map_err(|e| problem(reason(&e)))?;
    if !(l.timestamp.is_finite() && l.timestamp >= 0.0) {
        return Err(problem(
            "timestamp must be a number of milliseconds ≥ 0".into(),
        ));
    }
    let prompt = u32::try_from(l.input_length)
        .map_err(|_| problem(format!("input_length {} is too large", l.input_length)))?;
    let output = u32::try_from(l.output_length)
        .map_err(|_| problem(format!("output_length {} is too large", l.output_length)))?;
    let expected = prompt.div_ceil(MOONCAKE_BLOCK_TOKENS) as usize;
    if l.hash_ids.len() != expected {
        return Err(problem(format!(
            "{} hash_ids for {} input tokens; expected {expected} (one per 512 tokens)",
            l.hash_ids.len(),
            prompt
        )));
    }
    Ok(Row {
        ms: l.timestamp,
        prompt,
        output,
        blocks: Some(l.hash_ids),
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
    }
}
