//! One module per lab. Each has a validated `Config` with documented defaults, a
//! `run` that returns a serialisable `Outcome`, and a typed error for bad input.

pub mod batching;
pub mod herding;
pub mod prefix;
pub mod queueing;
pub mod routing;

use alloc::string::String;
use core::fmt;

/// A configuration value outside its documented range. `field` is the config key,
/// which is also the CLI flag with `_` written as `-` (`mean_prompt` → `--mean-prompt`).
#[derive(Clone, Debug, PartialEq)]
pub struct RangeError {
    /// The offending config key.
    pub field: &'static str,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// What was given, as text (it may not have been a number at all).
    pub given: String,
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} must be between {} and {} (got {})",
            self.field, self.min, self.max, self.given
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RangeError {}

/// Check `value` lies in `[min, max]` (and is a number).
pub(crate) fn check_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
) -> Result<(), RangeError> {
    if value.is_finite() && value >= min && value <= max {
        Ok(())
    } else {
        Err(RangeError {
            field,
            min,
            max,
            given: alloc::format!("{value}"),
        })
    }
}

/// A range table: `(key, value, min, max)` per ranged config key.
pub type Bounds = alloc::vec::Vec<(&'static str, f64, f64, f64)>;

/// Check every row of a range table; the first violation wins.
pub(crate) fn validate_bounds(bounds: Bounds) -> Result<(), RangeError> {
    bounds
        .into_iter()
        .try_for_each(|(key, value, min, max)| check_range(key, value, min, max))
}

/// The `(min, max)` of `key` in a range table.
pub(crate) fn range_in(bounds: Bounds, key: &str) -> Option<(f64, f64)> {
    bounds
        .into_iter()
        .find(|b| b.0 == key)
        .map(|(_, _, min, max)| (min, max))
}
