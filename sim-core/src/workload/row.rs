//! One row of a trace file as the format readers ([`super::azure`],
//! [`super::mooncake`]) hand it to the importer ([`super::trace`]), and why a
//! row could not be read. It sits below all three so the readers and the
//! importer do not import each other.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One parsed row, before time scaling.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Arrival, in milliseconds (relative or absolute; rebased on import).
    pub ms: f64,
    /// Prompt tokens.
    pub prompt: u32,
    /// Output tokens.
    pub output: u32,
    /// Prefix-chained block ids (512-token blocks), when the format has them.
    pub blocks: Option<Vec<u32>>,
    /// 1-based line number in the file (for what the import reports).
    pub line: usize,
}

/// A row that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowProblem {
    /// 1-based line number in the file.
    pub line: usize,
    /// What was wrong.
    pub why: String,
}

impl core::fmt::Display for RowProblem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

/// Refuse a line holding a number longer than
/// [`crate::params::MAX_NUMBER_CHARS`] before any reader parses it: no
/// trace field needs more, and a reader's time on a number grows with its
/// length. A number here is a run of digits, points, signs and exponent
/// marks outside double quotes (JSON strings, CSV quoted fields).
pub fn numbers_in_bounds(line: &str) -> Result<(), String> {
    let (mut quoted, mut escaped, mut run) = (false, false, 0usize);
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if quoted {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => quoted = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                quoted = true;
                run = 0;
            }
            b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-' => {
                run += 1;
                if run > crate::params::MAX_NUMBER_CHARS {
                    let rest = bytes[i..]
                        .iter()
                        .take_while(|c| matches!(c, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'))
                        .count();
                    return Err(alloc::format!(
                        "a number of {} characters; numbers in a trace are at most {} characters",
                        crate::params::thousands((run - 1 + rest) as u64),
                        crate::params::MAX_NUMBER_CHARS
                    ));
                }
            }
            _ => run = 0,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::numbers_in_bounds;

    #[test]
    fn long_numbers_are_refused_and_long_strings_are_not() {
        let digits = "9".repeat(65);
        assert!(numbers_in_bounds(&alloc::format!(r#"{{"timestamp": {digits}}}"#)).is_err());
        assert!(numbers_in_bounds(&alloc::format!("1,{digits},3")).is_err());
        assert!(
            numbers_in_bounds(&alloc::format!(r#"{{"note": "{digits}", "x": 1.5e3}}"#)).is_ok()
        );
        assert!(numbers_in_bounds(&alloc::format!(r#"{{"n": "a\"{digits}"}}"#)).is_ok());
        assert!(numbers_in_bounds(&"9".repeat(64)).is_ok());
    }
}
