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
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::wire::Decode, crate::wire::Encode,
)]
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
