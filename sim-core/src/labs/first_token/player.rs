//! The first-token player: a few requests' token timelines, frame by frame.
//!
//! Each lane is one request, laid out over its tokens: the hidden reasoning
//! first, then the visible answer. The line between them is the commitment
//! point (§9.4): an attempt that fails left of it failed unseen, so a retry,
//! a hedge or a failover can still act; right of it the user has read part
//! of the answer, and only resuming from that text can save the turn. Each
//! live attempt is a dot at how far it has got, so a hedge race is two dots
//! running at the line, and a failure leaves a mark where it happened.
//!
//! Which requests get a lane is decided from a first run of the same
//! strategy (the runs are deterministic): requests that meet a failure are
//! shown first, then those that hedge, and ordinary ones fill what is left
//! while a couple of lanes stay free for them.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::sim::{Fate, Why, World};

/// Milliseconds between two recorded frames.
pub const FRAME_MS: u64 = 250;

/// Lanes (requests) one frame shows.
pub const LANES: usize = 6;

/// Lanes kept free for requests that will meet a failure or hedge.
const SPARE: usize = 2;

/// Frames a finished request stays in its lane, showing how it ended.
const LINGER: u32 = 8;

/// Where an attempt is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// In its replica's queue.
    Queued,
    /// Its prompt being prefilled.
    Prefill,
    /// Producing hidden reasoning tokens.
    Hidden,
    /// Producing visible tokens.
    Visible,
}

/// One live attempt on a lane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dot {
    /// The attempt, stable across frames.
    pub attempt: u32,
    /// Its replica, 0-based.
    pub replica: u32,
    /// Why it was sent.
    pub why: Why,
    /// What it is doing.
    pub phase: Phase,
    /// How far it has got, in the request's tokens (hidden, then visible).
    pub at: u32,
}

/// One request at one frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    /// Its row on the stage, 0-based (a request keeps its row).
    pub slot: u32,
    /// The request, 0-based in arrival order.
    pub req: u32,
    /// Its conversation, 0-based.
    pub conv: u32,
    /// Its turn in the conversation, 0-based.
    pub turn: u32,
    /// Its effort: 0 low, 1 medium, 2 high.
    pub effort: u8,
    /// Hidden tokens it reasons.
    pub hidden: u32,
    /// Visible tokens of its answer.
    pub visible: u32,
    /// Visible tokens the user has seen.
    pub shown: u32,
    /// How it stands.
    pub fate: Fate,
    /// Milliseconds since it arrived (frozen once it ended).
    pub age_ms: u64,
    /// Its attempts in flight.
    pub dots: Vec<Dot>,
    /// Where its attempts failed, in its tokens.
    pub scars: Vec<u32>,
}

impl Lane {
    /// Whether the user has seen a token of it.
    pub fn committed(&self) -> bool {
        self.shown > 0
    }
}

/// What an attempt's failure leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Then {
    /// Sent again to another replica; the user saw nothing.
    Retry,
    /// Its hedge twin runs on.
    Twin,
    /// Nothing left to try before any token: the user sees an error.
    Error,
    /// The user had seen part of the answer: the stream breaks.
    Broken,
    /// Another replica is asked to go on from the text shown.
    Resume,
}

/// Something in a frame worth stopping at, on a request with a lane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// An attempt failed.
    Failed {
        /// The request.
        req: u32,
        /// The failing attempt's replica, 0-based.
        replica: u32,
        /// Hidden tokens it had produced.
        hidden: u32,
        /// Visible tokens the user had seen.
        shown: u32,
        /// What happens next.
        then: Then,
    },
    /// A hedge copy went out.
    Hedged {
        /// The request.
        req: u32,
        /// The replica of the copy, 0-based.
        replica: u32,
        /// Milliseconds since the request arrived.
        waited_ms: u64,
        /// Visible tokens the user had seen (none unless hedging to the end).
        shown: u32,
    },
    /// A hedge copy showed the first visible token before the original.
    HedgeWon {
        /// The request.
        req: u32,
        /// The winning copy's replica, 0-based.
        replica: u32,
        /// Tokens the cancelled copy had produced for nothing.
        wasted: u32,
    },
}

impl Moment {
    /// The request it is about.
    pub fn req(&self) -> u32 {
        match *self {
            Moment::Failed { req, .. }
            | Moment::Hedged { req, .. }
            | Moment::HedgeWon { req, .. } => req,
        }
    }
}

/// The run at one frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The requests with a lane, in lane order.
    pub lanes: Vec<Lane>,
    /// Requests open with nothing visible yet: any recovery can still act.
    pub unseen: u32,
    /// Requests streaming their answer: only a resume can act.
    pub streaming: u32,
    /// What happened since the last frame worth stopping at.
    pub moment: Option<Moment>,
}

/// What the recording run keeps between frames.
#[derive(Clone, Debug, Default)]
pub(super) struct Recorder {
    /// Per request of the first run: 2 met a failure, 1 hedged, 0 neither.
    interest: Vec<u8>,
    /// Each lane's request and, once it ended, frames left to show it.
    lanes: [Option<(u32, u32)>; LANES],
    /// Where each request's attempts failed.
    scars: Vec<(u32, u32)>,
    /// The moment of the frame under way.
    moment: Option<Moment>,
    /// The frames so far.
    pub frames: Vec<Snapshot>,
}

impl Recorder {
    /// A recorder for a run whose first pass left `w`.
    pub fn after(w: &World<'_>) -> Recorder {
        let interest = w
            .requests
            .iter()
            .map(|r| {
                if r.failures > 0 {
                    2
                } else {
                    u8::from(r.hedged)
                }
            })
            .collect();
        Recorder {
            interest,
            ..Recorder::default()
        }
    }

    /// Request `req` arrived: it takes a free lane if it will be worth
    /// watching, or if enough lanes stay free for those that will.
    pub fn arrived(&mut self, req: u32) {
        let free = self.lanes.iter().filter(|l| l.is_none()).count();
        let keen = self.interest.get(req as usize).copied().unwrap_or(0) > 0;
        if free > 0 && (keen || free > SPARE) {
            if let Some(l) = self.lanes.iter_mut().find(|l| l.is_none()) {
                *l = Some((req, LINGER));
            }
        }
    }

    /// Whether `req` has a lane.
    fn shown(&self, req: u32) -> bool {
        self.lanes.iter().flatten().any(|&(r, _)| r == req)
    }

    /// Keep `m` as the frame's moment if it is on a lane and the frame has
    /// none yet (a failure outranks a hedge).
    pub fn moment(&mut self, m: Moment) {
        if !self.shown(m.req()) {
            return;
        }
        let failure = matches!(m, Moment::Failed { .. });
        if self.moment.is_none() || (failure && !matches!(self.moment, Some(Moment::Failed { .. })))
        {
            self.moment = Some(m);
        }
    }

    /// An attempt of `req` failed `at` tokens into the request.
    pub fn scar(&mut self, req: u32, at: u32) {
        if self.shown(req) {
            self.scars.push((req, at));
        }
    }

    /// Record the frame that ends now.
    pub fn frame(&mut self, w: &World<'_>) {
        let (mut unseen, mut streaming) = (0, 0);
        for r in w.requests.iter().filter(|r| r.fate == Fate::Open) {
            if r.committed.is_some() {
                streaming += 1;
            } else {
                unseen += 1;
            }
        }
        let mut lanes = Vec::new();
        for (row, slot) in self.lanes.iter_mut().enumerate() {
            let Some((req, left)) = *slot else { continue };
            let r = &w.requests[req as usize];
            let ended = r.fate != Fate::Open;
            let dots = r
                .live
                .iter()
                .map(|&a| {
                    let at = &w.attempts[a as usize];
                    let phase = if !at.admitted {
                        Phase::Queued
                    } else if at.prefill_left > 0 {
                        Phase::Prefill
                    } else if at.produced < at.hidden {
                        Phase::Hidden
                    } else {
                        Phase::Visible
                    };
                    Dot {
                        attempt: a,
                        replica: at.replica,
                        why: at.why,
                        phase,
                        at: at.at(),
                    }
                })
                .collect();
            lanes.push(Lane {
                slot: row as u32,
                req,
                conv: r.conv,
                turn: r.turn,
                effort: r.effort,
                hidden: r.hidden,
                visible: r.visible,
                shown: r.shown,
                fate: r.fate,
                age_ms: r.ended.unwrap_or(w.now) - r.arrival,
                dots,
                scars: self
                    .scars
                    .iter()
                    .filter(|s| s.0 == req)
                    .map(|s| s.1)
                    .collect(),
            });
            if ended {
                *slot = (left > 1).then_some((req, left - 1));
                if slot.is_none() {
                    self.scars.retain(|s| s.0 != req);
                }
            }
        }
        self.frames.push(Snapshot {
            lanes,
            unseen,
            streaming,
            moment: self.moment.take(),
        });
    }
}
