//! The player's recording: what every deployment looked like at each tick,
//! the calls routed in it and the key moments.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, TICK_MS};
use crate::providers::gateway::Why;

/// Ticks the player records at most (ten minutes).
pub const PLAYER_TICKS: usize = 6000;

/// Calls of one tick the recording keeps.
pub const FLOWS: usize = 16;

/// One deployment at one tick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DepSnap {
    /// Calls running on it.
    pub in_flight: u16,
    /// A reserved deployment's utilisation, a metered one's share of its
    /// quota window spent (1: refusing).
    pub fill: f32,
    /// Milliseconds its breaker or cooldown still holds it out (0: in).
    pub out_ms: u32,
    /// Calls it has served so far.
    pub served: u32,
}

/// One call routed in a tick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    /// Its conversation.
    pub conv: u32,
    /// The deployment (`u8::MAX`: none was in service).
    pub deployment: u8,
    /// 200 when served, else what it was answered.
    pub status: u16,
    /// Prompt tokens read from the provider's cache.
    pub cached: u32,
    /// Prompt tokens.
    pub prompt: u32,
    /// Why the router sent it there.
    pub why: Why,
}

/// A key moment (the first of each kind).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// The first call that spilled from reserved to metered capacity.
    Spill {
        /// Reserved deployment (0-based).
        from: u8,
        /// Metered deployment (0-based).
        to: u8,
        /// What the reserved one answered.
        status: u16,
    },
    /// The first breaker trip or cooldown.
    Trip {
        /// Deployment (0-based).
        deployment: u8,
        /// For how long, ms.
        ms: u32,
    },
    /// The first turn served in another region than the one before, its
    /// history not found there.
    RegionMiss {
        /// The conversation.
        conv: u32,
        /// Region of the previous turn (0-based).
        from: u8,
        /// Region of this one.
        to: u8,
        /// Prompt tokens of history computed again.
        lost: u32,
    },
}

impl Moment {
    fn kind(&self) -> usize {
        match self {
            Moment::Spill { .. } => 0,
            Moment::Trip { .. } => 1,
            Moment::RegionMiss { .. } => 2,
        }
    }
}

/// One tick of the player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Every deployment.
    pub deps: Vec<DepSnap>,
    /// Calls routed in the tick (at most [`FLOWS`]).
    pub flows: Vec<Flow>,
    /// Calls routed in the tick, all of them.
    pub routed: u16,
    /// The bill so far, dollars (reserved hours pro rata).
    pub cost: f32,
    /// The key moment of this tick, if any.
    pub moment: Option<Moment>,
}

/// Builds the ticks as a run goes.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// The ticks so far.
    pub ticks: Vec<Snapshot>,
    limit: usize,
    flows: Vec<Flow>,
    routed: u16,
    moment: Option<Moment>,
    seen: [bool; 3],
}

impl Recorder {
    /// A recorder for a run of `c`.
    pub fn new(c: &Config) -> Recorder {
        let limit = (u64::from(c.seconds) * 1000 / TICK_MS) as usize;
        Recorder {
            ticks: Vec::new(),
            limit: limit.min(PLAYER_TICKS),
            flows: Vec::new(),
            routed: 0,
            moment: None,
            seen: [false; 3],
        }
    }

    /// The end of the next tick to record, if it is at or before `t`.
    pub fn due(&self, t: u64) -> Option<u64> {
        let end = (self.ticks.len() as u64 + 1) * TICK_MS;
        (self.ticks.len() < self.limit && end <= t).then_some(end)
    }

    /// Close the tick with what the deployments and the bill show.
    pub fn push(&mut self, deps: Vec<DepSnap>, cost: f32) {
        self.ticks.push(Snapshot {
            deps,
            flows: core::mem::take(&mut self.flows),
            routed: core::mem::take(&mut self.routed),
            cost,
            moment: self.moment.take(),
        });
    }

    /// A call routed in the current tick.
    pub fn flow(&mut self, f: Flow) {
        if self.ticks.len() >= self.limit {
            return;
        }
        self.routed = self.routed.saturating_add(1);
        if self.flows.len() < FLOWS {
            self.flows.push(f);
        }
    }

    /// A moment, kept if it is the first of its kind.
    pub fn moment(&mut self, m: Moment) {
        let k = m.kind();
        if self.ticks.len() < self.limit && !self.seen[k] && self.moment.is_none() {
            self.seen[k] = true;
            self.moment = Some(m);
        }
    }
}
