//! The Routing Lab as a player: the run of one or two rules recorded tick by
//! tick, so a reader can step through who was routed where, which replica
//! queued while another idled, and when KV pressure preempted a sequence.
//!
//! The frames come from the same tick loop as the lab's metrics (see
//! `record.rs`), so the player and the result cards describe one and the
//! same run. This file holds what the player reads.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::routing::{Reason, RuleKind};

/// Ticks a timeline keeps at most: past this the run goes on (its metrics
/// are whole) but frames stop. A minute in milliseconds mode, so a
/// generated run of a GPU preset plays to its end; the recording steps
/// every tick up to here, which a long trace's idle stretches would
/// otherwise skip.
pub const PLAYER_TICKS: u64 = 60_000;

/// What a timeline's frames may hold, in entries (a queued or running
/// request, an event, a per-replica count): frames stop past it, so a
/// crowded pool's long recording cannot fill the page's memory. About
/// 16 MB decoded; the default runs, in ticks or milliseconds, use a few
/// per cent of it.
pub const PLAYER_ENTRIES: usize = 2_000_000;

/// How many more outstanding requests than the lightest replica make a
/// decision worth flagging: one or two is the ordinary churn of a busy pool.
pub const PAST_LIGHTER: u32 = 3;

/// Rules a timeline plays side by side, at most.
pub const PLAYER_RULES: usize = 2;

/// A request as the player draws it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayRequest {
    /// Tick it arrives.
    pub arrival: u64,
    /// Prompt length, in tokens (the mark's size).
    pub prompt_tokens: u32,
    /// Output length, in tokens.
    pub output_tokens: u32,
}

/// Something that happened at one tick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TickEvent {
    /// A request arrived and the rule sent it to a replica.
    Routed {
        /// Request index.
        request: u32,
        /// Replica (0-based).
        replica: u32,
        /// Why the rule chose it ([`Reason::explain`] says it in words).
        reason: Reason,
    },
    /// A request's first token came out.
    FirstToken {
        /// Request index.
        request: u32,
        /// Replica (0-based).
        replica: u32,
    },
    /// A request finished and left its replica.
    Finished {
        /// Request index.
        request: u32,
        /// Replica (0-based).
        replica: u32,
    },
    /// A running sequence was pushed back to the queue to free KV blocks.
    Preempted {
        /// Request index.
        request: u32,
        /// Replica (0-based).
        replica: u32,
    },
}

/// A tick the player flags for the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingMoment {
    /// The rule sent a request to a replica at least [`PAST_LIGHTER`]
    /// requests busier than the lightest one: the newcomer shares iterations
    /// with more sequences than it had to (§4.2's round-robin failure).
    SentPastLighter {
        /// The request.
        request: u32,
        /// Where it went (0-based).
        replica: u32,
        /// Requests outstanding there when it arrived.
        load: u32,
        /// The lightest replica at that moment (0-based).
        lighter: u32,
        /// Its outstanding requests.
        lighter_load: u32,
    },
    /// A cache-aware rule gave up its cached replica because the pool was
    /// too imbalanced, and sent the request by load instead (the escape
    /// hatch of §5.5 and §6.1).
    Escape {
        /// The request.
        request: u32,
        /// Where it went instead (0-based).
        replica: u32,
    },
    /// KV ran out and a running sequence went back to the queue.
    Preemption {
        /// The replica (0-based).
        replica: u32,
        /// The request preempted.
        request: u32,
    },
}

/// The pool after one tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The tick.
    pub tick: u64,
    /// Per replica, the waiting queue, front first.
    pub waiting: Vec<Vec<u32>>,
    /// Per replica, the sequences in batch slots: (request, still prefilling).
    pub running: Vec<Vec<(u32, bool)>>,
    /// What happened at this tick, routing first.
    pub events: Vec<TickEvent>,
    /// Whether this tick is a key moment, and which.
    pub moment: Option<RoutingMoment>,
    /// Per replica, requests routed there so far.
    pub assigned: Vec<u32>,
    /// Per replica, requests finished there so far.
    pub completed: Vec<u32>,
    /// Milliseconds mode, per replica: the iteration under way at the end
    /// of the tick (empty in ticks mode). Between frames the player carries
    /// it on with [`Pace::at`].
    #[serde(default)]
    pub pace: Vec<Pace>,
}

impl Frame {
    /// What the frame holds, in entries (see [`PLAYER_ENTRIES`]).
    pub fn entries(&self) -> usize {
        let listed = |v: &[Vec<u32>]| v.iter().map(Vec::len).sum::<usize>();
        listed(&self.waiting)
            + self.running.iter().map(Vec::len).sum::<usize>()
            + self.events.len()
            + self.assigned.len()
            + self.completed.len()
            + self.pace.len()
    }
}

/// A replica's iteration under way, in µs of its own time (milliseconds
/// mode): how a crowded replica's steps are seen to take longer. An idle
/// replica's is all zeros.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pace {
    /// The iteration's length.
    pub step_us: u32,
    /// The part of it done at the end of the frame's tick.
    pub done_us: u32,
    /// What one tick gives the replica (1,000 at speed 1).
    pub tick_us: u32,
}

impl Pace {
    /// How far through an iteration the replica is `ticks` ticks after the
    /// frame, from 0 to 1 (`None` when idle). With no frame in between, no
    /// request joined or left, so the iterations that follow are of about
    /// the same length: the phase wraps around rather than stopping.
    pub fn at(&self, ticks: u64) -> Option<f64> {
        if self.step_us == 0 {
            return None;
        }
        let done = u64::from(self.done_us) + ticks * u64::from(self.tick_us);
        Some((done % u64::from(self.step_us)) as f64 / f64::from(self.step_us))
    }

    /// The iteration's length in milliseconds (0 when idle).
    pub fn step_ms(&self) -> f64 {
        f64::from(self.step_us) / 1000.0
    }
}

/// One rule's recorded run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RulePlay {
    /// The rule.
    pub rule: RuleKind,
    /// A frame for tick 0 and for each later tick that changed something
    /// (a routing, an engine event, a replica joining): a tick without one
    /// looks like the frame before it, with no events. Most ticks of a run
    /// only decode, so this keeps the recording, its transfer to the page
    /// and its decoding a fraction of a frame per tick. Read it through
    /// [`RulePlay::at`].
    pub frames: Vec<Frame>,
    /// Ticks recorded, from tick 0 (at most [`PLAYER_TICKS`], fewer when the
    /// frames reached [`PLAYER_ENTRIES`]).
    pub played: u64,
    /// Ticks the whole run lasted (more than `played` when cut).
    pub ticks: u64,
    /// Per request, the prompt tokens its first admission into a batch found
    /// in the replica's prefix cache (0 for a miss, and for a request not
    /// admitted within the recording): the stage marks hits as they arrive.
    #[serde(default)]
    pub cached: Vec<u32>,
}

/// The pool after tick `tick` as the player shows it: the queues and counts
/// of the last frame at or before it, and the tick's own events and moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct At<'a> {
    /// The tick.
    pub tick: u64,
    /// Per replica, the waiting queue, front first.
    pub waiting: &'a [Vec<u32>],
    /// Per replica, the sequences in batch slots: (request, still prefilling).
    pub running: &'a [Vec<(u32, bool)>],
    /// What happened at this tick, routing first.
    pub events: &'a [TickEvent],
    /// Whether this tick is a key moment, and which.
    pub moment: Option<RoutingMoment>,
    /// Per replica, requests routed there so far.
    pub assigned: &'a [u32],
    /// Per replica, requests finished there so far.
    pub completed: &'a [u32],
    /// Per replica, the iteration under way at the frame's tick
    /// (milliseconds mode; empty in ticks mode): read it with [`At::pace`].
    pub paces: &'a [Pace],
    /// Ticks from the frame to `tick`.
    pub since: u64,
}

impl At<'_> {
    /// Replica `r`'s iteration under way at this tick, as its length in
    /// milliseconds and how far through it is (0–1); `None` when idle or
    /// in ticks mode.
    pub fn pace(&self, r: usize) -> Option<(f64, f64)> {
        let p = self.paces.get(r)?;
        Some((p.step_ms(), p.at(self.since)?))
    }
}

impl RulePlay {
    /// The pool after tick `t` (`None` past the ticks recorded).
    pub fn at(&self, t: usize) -> Option<At<'_>> {
        let t = t as u64;
        if t >= self.played {
            return None;
        }
        let i = self
            .frames
            .partition_point(|f| f.tick <= t)
            .checked_sub(1)?;
        let f = &self.frames[i];
        let own = f.tick == t;
        Some(At {
            tick: t,
            waiting: &f.waiting,
            running: &f.running,
            events: if own { &f.events } else { &[] },
            moment: if own { f.moment } else { None },
            assigned: &f.assigned,
            completed: &f.completed,
            paces: &f.pace,
            since: t - f.tick,
        })
    }
}

/// The player's record of a Routing Lab run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Replicas in the pool at the start.
    pub replicas: u32,
    /// Every request of the trace, in arrival order.
    pub requests: Vec<PlayRequest>,
    /// One entry per rule asked for, in the order asked.
    pub rules: Vec<RulePlay>,
}

/// One rule's headline figures over the ticks played so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoFar {
    /// Requests routed by the end of the tick.
    pub routed: u32,
    /// Requests whose first token came out.
    pub first_tokens: u32,
    /// Requests finished.
    pub finished: u32,
    /// Median TTFT of the requests with a first token so far, in ticks.
    pub ttft_p50: f64,
    /// 95th percentile of the same.
    pub ttft_p95: f64,
}

impl Timeline {
    /// Rule `k`'s figures over ticks `0..=t`. TTFT is counted as the run
    /// counts it (the first token's tick + 1 − arrival), so when the frames
    /// cover the whole run the last tick's figures are the run's own.
    pub fn so_far(&self, k: usize, t: usize) -> Option<SoFar> {
        let play = self.rules.get(k)?;
        let through = play.frames.partition_point(|f| f.tick <= t as u64);
        let played = &play.frames[..through];
        let mut ttfts: Vec<f64> = Vec::new();
        let (mut routed, mut finished) = (0u32, 0u32);
        // A request arrives at the tick it is routed (the recording sees
        // every tick); with closed-loop clients that is the only record of
        // it, the trace's times being unused.
        let mut arrived: Vec<Option<u64>> = alloc::vec![None; self.requests.len()];
        for f in played {
            for e in &f.events {
                match *e {
                    TickEvent::Routed { request, .. } => {
                        routed += 1;
                        if let Some(a) = arrived.get_mut(request as usize) {
                            *a = Some(f.tick);
                        }
                    }
                    TickEvent::Finished { .. } => finished += 1,
                    TickEvent::FirstToken { request, .. } => {
                        let arrival = arrived
                            .get(request as usize)
                            .copied()
                            .flatten()
                            .unwrap_or_else(|| {
                                self.requests.get(request as usize).map_or(0, |r| r.arrival)
                            });
                        ttfts.push((f.tick + 1).saturating_sub(arrival) as f64);
                    }
                    TickEvent::Preempted { .. } => {}
                }
            }
        }
        ttfts.sort_by(f64::total_cmp);
        Some(SoFar {
            routed,
            first_tokens: ttfts.len() as u32,
            finished,
            ttft_p50: crate::stats::percentile_sorted(&ttfts, 50.0),
            ttft_p95: crate::stats::percentile_sorted(&ttfts, 95.0),
        })
    }

    /// Where rule `k` sent `request`, if it routed it at tick `t`.
    pub fn routed_to(&self, k: usize, t: usize, request: u32) -> Option<u32> {
        self.rules
            .get(k)?
            .at(t)?
            .events
            .iter()
            .find_map(|e| match *e {
                TickEvent::Routed {
                    request: q,
                    replica,
                    ..
                } if q == request => Some(replica),
                _ => None,
            })
    }

    /// The key moment of tick `t`, with the index of the rule it belongs to.
    /// With one rule, its flagged tick. Side by side, only what sets the
    /// rules apart: a request one rule sent past a lighter replica (or away
    /// from its cache) that the other rule sent elsewhere, or a preemption
    /// the other rule did not suffer at that tick. A decision both rules
    /// made alike is not a moment of the comparison.
    pub fn moment(&self, t: usize) -> Option<(usize, RoutingMoment)> {
        let flagged = |k: usize| self.rules.get(k)?.at(t)?.moment;
        if self.rules.len() < 2 {
            return flagged(0).map(|m| (0, m));
        }
        (0..self.rules.len()).find_map(|k| {
            let m = flagged(k)?;
            let differs = (0..self.rules.len()).filter(|&o| o != k).all(|o| match m {
                RoutingMoment::SentPastLighter {
                    request, replica, ..
                }
                | RoutingMoment::Escape { request, replica } => {
                    self.routed_to(o, t, request).is_some_and(|r| r != replica)
                }
                RoutingMoment::Preemption { .. } => {
                    !matches!(flagged(o), Some(RoutingMoment::Preemption { .. }))
                }
            });
            differs.then_some((k, m))
        })
    }

    /// Ticks with a key moment ([`Timeline::moment`]), ascending.
    ///
    /// Only a tick with a flagged frame of its own can be one: those are
    /// marked first, from the frames (a fifth of the ticks), and only they
    /// are asked, rather than every tick of the player (the page asks after
    /// each slider move).
    pub fn moments(&self) -> Vec<usize> {
        let mut flagged = alloc::vec![false; self.len()];
        for r in &self.rules {
            for f in r
                .frames
                .iter()
                .filter(|f| f.moment.is_some() && f.tick < r.played)
            {
                flagged[f.tick as usize] = true;
            }
        }
        (0..flagged.len())
            .filter(|&t| flagged[t] && self.moment(t).is_some())
            .collect()
    }

    /// Ticks the longest recording covers (the player's length).
    pub fn len(&self) -> usize {
        self.rules.iter().map(|r| r.played).max().unwrap_or(0) as usize
    }

    /// Whether there is nothing to play.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
