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
    /// Tokens charged over the last 10 s against what its capacity or quota
    /// serves in 10 s (1: all of it).
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

/// A key moment (the first of each kind): what happened, between which
/// deployments or regions, and its figure (one struct for every kind, so
/// the page's decoder stays small).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Moment {
    /// What happened.
    pub kind: MomentKind,
    /// The deployment (spill, trip, refusal) or region (region miss) it
    /// came from, 0-based.
    pub from: u8,
    /// Where it went: the metered deployment (spill) or the region (miss).
    pub to: u8,
    /// The reserved deployment's status (spill), the time out in ms (trip),
    /// or the prompt tokens of history computed again (region miss).
    pub figure: u32,
    /// The conversation (region miss).
    pub conv: u32,
}

/// The kinds of [`Moment`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MomentKind {
    /// The first call that spilled from reserved to metered capacity.
    Spill,
    /// The first breaker trip or cooldown.
    Trip,
    /// The first turn served in another region than the one before, its
    /// history not found there.
    RegionMiss,
    /// The first 429 that reaches a client: the router had nowhere to send
    /// the call at once.
    Refused,
}

impl Moment {
    fn kind(&self) -> usize {
        self.kind as usize
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
    seen: [bool; 4],
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
            seen: [false; 4],
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
