//! Simulated time.
//!
//! A tick is one engine-iteration budget, not a measured duration: in one tick a
//! replica runs either one prefill step or one decode step (article §4.2). The
//! caller (a lab's `run`) advances time; nothing here reads a clock.

use serde::{Deserialize, Serialize};

/// A point in simulated time, in ticks since the start of a run.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Tick(pub u64);

impl Tick {
    /// The start of every run.
    pub const ZERO: Tick = Tick(0);

    /// The tick after this one.
    pub fn next(self) -> Tick {
        Tick(self.0 + 1)
    }

    /// Whole ticks from `earlier` to `self` (zero if `earlier` is later).
    pub fn since(self, earlier: Tick) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}
