//! The autoscaling lab's second-by-second loop: one gateway, a pool whose
//! size a control loop sets, one scaler per run.
//!
//! Within a second the order is fixed: replicas whose cold start ends become
//! ready, decodes end, the second's arrivals are routed (each to one
//! replica's queue), each replica admits waiting requests into free slots
//! and prefills them one at a time (one second of prefill work per second),
//! emptied draining replicas leave, and at the end of each control period the
//! scaler reads its signal and orders or drains replicas.
//!
//! This file holds what a run gives (its figures and its timeline) and the
//! requests every scaler sees. The loop is `scaler_loop.rs`, one method per
//! phase of the second; the phases with rules of their own have files of
//! their own: the gateway's routing (`gateway.rs`), the control loop
//! (`control.rs`) and the replicas' admission and prefill (`pool.rs`).

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, Scaler};
use super::scaler_loop::{run_scaler, ScalerLoop};
use super::Outcome;
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;

/// Seconds after it becomes ready during which a new replica counts as
/// fresh (its share of arrivals and its requests' TTFT are reported).
pub const FRESH: u32 = 60;

/// Seconds per bucket of [`ScalerRun::ttft_windows`].
pub const WINDOW: u32 = 30;

/// Seconds before the control loop first acts: the pool starts empty, and
/// the first minute is its warm-up.
pub const WARM_UP: u32 = 60;

/// A request as every scaler sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arrival {
    /// Second it arrives.
    pub(super) tick: u32,
    /// Which shared prefix it starts with.
    pub(super) group: u32,
    /// Decode seconds (at least 1).
    pub(super) decode: u32,
}

/// Where a replica is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Life {
    /// No replica in this place.
    Off,
    /// Ordered, still in its cold start.
    Starting,
    /// Taking requests.
    Ready,
    /// Taking no new requests, finishing the ones it holds.
    Draining,
}

/// One place of the pool after one second (what the player draws).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spot {
    /// Its state.
    pub life: Life,
    /// Requests waiting for a slot.
    pub waiting: u32,
    /// Requests in slots (prefilling or decoding).
    pub running: u32,
    /// Requests routed to it this second.
    pub sent: u32,
    /// Whether it became ready less than [`FRESH`] seconds ago (a replica
    /// the run started with is never fresh).
    pub fresh: bool,
    /// Seconds of cold start left (0 unless starting).
    pub ready_in: u32,
}

/// The pool after one second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// One entry per place a replica has held so far, in place order.
    pub pool: Vec<Spot>,
    /// Requests that arrived this second.
    pub arrivals: u32,
    /// The scaler's last reading, in its own unit (a share, requests per
    /// replica or seconds; the forecast's replica count for the predictive
    /// scaler).
    pub reading: f64,
    /// The replica count the scaler last asked for.
    pub desired: u32,
    /// What makes this second worth stopping at, if anything.
    pub moment: Option<Moment>,
}

impl Snapshot {
    /// Replicas in `life`.
    pub fn count(&self, life: Life) -> u32 {
        self.pool.iter().filter(|s| s.life == life).count() as u32
    }
}

/// A second the player stops at.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// The busy-fraction scaler orders a replica while the slots in use
    /// are a small share: its signal reads near full at any load.
    Pinned {
        /// Its reading (share of time anything ran).
        busy: f64,
        /// Share of slots in use over the same period.
        kv: f64,
    },
    /// The scaler's first order for the surge.
    Ordered {
        /// Replicas ordered.
        count: u32,
        /// Second they will be ready.
        ready_at: u32,
    },
    /// The first replica ordered for the surge takes requests.
    Ready {
        /// Its place, 0-based.
        replica: u32,
        /// Second it was ordered.
        ordered: u32,
    },
    /// A fresh replica took a full batch within seconds of becoming ready.
    Flooded {
        /// Its place, 0-based.
        replica: u32,
        /// Requests it took since it became ready.
        took: u32,
        /// Seconds since it became ready.
        after: u32,
    },
    /// A fresh replica took under a quarter of a fair share over its first
    /// [`FRESH`] seconds.
    Ignored {
        /// Its place, 0-based.
        replica: u32,
        /// Requests it took.
        took: u32,
        /// Its fair share over those seconds.
        fair: f64,
    },
    /// The surge ended with replicas still starting.
    SurgeOver {
        /// Replicas still in their cold start.
        starting: u32,
    },
    /// The pool shrinks for the first time after the surge.
    ScaleIn {
        /// Replicas drained.
        count: u32,
    },
}

/// The key moments of one run: each kind is flagged at most once, and a
/// second shows at most one (the first noted in it).
pub(super) struct Moments {
    /// Kinds already flagged, by [`Moments::kind`].
    pub(super) seen: [bool; 7],
    /// This second's moment, if any.
    pub(super) now: Option<Moment>,
}

impl Moments {
    /// Which of [`Moments::seen`] a moment takes.
    fn kind(m: &Moment) -> usize {
        match m {
            Moment::Pinned { .. } => 0,
            Moment::Ordered { .. } => 1,
            Moment::Ready { .. } => 2,
            Moment::Flooded { .. } => 3,
            Moment::Ignored { .. } => 4,
            Moment::SurgeOver { .. } => 5,
            Moment::ScaleIn { .. } => 6,
        }
    }

    /// Flag `m` unless its kind was flagged before or this second already
    /// has a moment.
    pub(super) fn note(&mut self, m: Moment) {
        let kind = Moments::kind(&m);
        if !self.seen[kind] && self.now.is_none() {
            self.seen[kind] = true;
            self.now = Some(m);
        }
    }
}

/// One scaler's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalerRun {
    /// The scaler.
    pub scaler: Scaler,
    /// Requests that arrived.
    pub arrived: u32,
    /// Requests that finished decoding.
    pub finished: u32,
    /// Requests still waiting or running at the end.
    pub unfinished: u32,
    /// Median TTFT of requests whose first token came, seconds.
    pub ttft_p50: f64,
    /// 95th percentile TTFT, seconds.
    pub ttft_p95: f64,
    /// 95th percentile TTFT of requests that arrived during the surge.
    pub surge_p95: f64,
    /// Share of arrivals whose first token came within the SLO.
    pub slo_met: f64,
    /// Replica time paid for (starting, ready and draining), minutes.
    pub replica_minutes: f64,
    /// Most replicas at once (starting ones included).
    pub peak: u32,
    /// Replicas ordered during the surge that became ready after it ended.
    pub late: u32,
    /// Seconds from the surge's start to the scaler's first order at or
    /// after it; `None` if it ordered none.
    pub reaction: Option<u32>,
    /// Arrivals fresh replicas took against their fair share (1: fair;
    /// above: flooded; below: passed over); `None` if none was fresh.
    pub fresh_load: Option<f64>,
    /// 95th percentile TTFT of requests sent to fresh replicas.
    pub fresh_p95: Option<f64>,
    /// Mean busy fraction of ready replicas before the surge.
    pub steady_busy: f64,
    /// Mean share of slots in use before the surge.
    pub steady_kv: f64,
    /// TTFT P95 per [`WINDOW`] seconds of first tokens (0 with none).
    pub ttft_windows: Vec<f64>,
    /// The run second by second.
    pub timeline: Vec<Snapshot>,
}

/// What a run gives, read off the loop's state: the player's snapshot
/// after each second, and the figures at the end.
impl ScalerLoop<'_> {
    /// The pool after second `t`, for the player.
    pub(super) fn snapshot(&mut self, t: u32, sent: &[u32], arrivals: u32) {
        let pool = self
            .pool
            .iter()
            .enumerate()
            .map(|(p, r)| match r {
                None => Spot {
                    life: Life::Off,
                    waiting: 0,
                    running: 0,
                    sent: 0,
                    fresh: false,
                    ready_in: 0,
                },
                Some(r) => Spot {
                    life: r.life,
                    waiting: r.waiting.len() as u32,
                    running: r.running(),
                    sent: sent.get(p).copied().unwrap_or(0),
                    fresh: r.fresh(t),
                    ready_in: r.ready_at.saturating_sub(t),
                },
            })
            .collect();
        self.timeline.push(Snapshot {
            pool,
            arrivals,
            reading: self.reading,
            desired: self.desired,
            moment: self.moments.now,
        });
    }

    /// The run's figures once every second has run.
    pub(super) fn finish(self) -> ScalerRun {
        let config = self.config;
        let mut all: Vec<f64> = self.ttft.iter().flatten().copied().collect();
        all.sort_by(f64::total_cmp);
        let mut surge: Vec<f64> = self
            .reqs
            .iter()
            .zip(&self.ttft)
            .filter(|(r, _)| config.surging(r.tick))
            .filter_map(|(_, x)| *x)
            .collect();
        surge.sort_by(f64::total_cmp);
        let mut fresh_ttft = self.fresh_ttft;
        fresh_ttft.sort_by(f64::total_cmp);
        let met = self
            .ttft
            .iter()
            .flatten()
            .filter(|&&x| x <= config.slo)
            .count();
        let arrived = self.reqs.len() as u32;
        let p = |v: &[f64], q: f64| {
            if v.is_empty() {
                0.0
            } else {
                percentile_sorted(v, q)
            }
        };
        let steady = f64::from(self.steady_n.max(1));
        ScalerRun {
            scaler: self.scaler,
            arrived,
            finished: self.finished,
            unfinished: arrived - self.finished,
            ttft_p50: p(&all, 50.0),
            ttft_p95: p(&all, 95.0),
            surge_p95: p(&surge, 95.0),
            slo_met: if arrived == 0 {
                1.0
            } else {
                met as f64 / f64::from(arrived)
            },
            replica_minutes: self.replica_seconds as f64 / 60.0,
            peak: self.peak,
            late: self.late,
            reaction: self.reaction,
            fresh_load: (self.fresh_fair > 0.0).then(|| self.fresh_took / self.fresh_fair),
            fresh_p95: (!fresh_ttft.is_empty()).then(|| percentile_sorted(&fresh_ttft, 95.0)),
            steady_busy: self.steady_busy / steady,
            steady_kv: self.steady_kv / steady,
            ttft_windows: self.windows,
            timeline: self.timeline,
        }
    }
}

/// The requests of a run, drawn once for every scaler.
pub(super) fn arrivals(config: &Config) -> Vec<Arrival> {
    let mut arrive = Rng::new(config.seed, stream::ARRIVALS);
    let mut decode = Rng::new(config.seed, stream::OUTPUTS);
    let mut prefix = Rng::new(config.seed, stream::PREFIXES);
    let mut out = Vec::new();
    for t in 0..config.ticks {
        for _ in 0..arrive.poisson(config.rate_at(t)) {
            let d = libm::round(decode.exponential(config.decode)).max(1.0);
            out.push(Arrival {
                tick: t,
                group: prefix.below(config.prefixes),
                decode: d as u32,
            });
        }
    }
    out
}

/// Run every scaler on the same requests without recording (what the
/// claims over many seeds need).
pub fn run_scalers(config: &Config, scalers: &[Scaler]) -> Result<Vec<ScalerRun>, ParamError> {
    config.validate()?;
    let reqs = arrivals(config);
    Ok(scalers
        .iter()
        .map(|&s| run_scaler(config, s, &reqs, false))
        .collect())
}

/// Run `scalers` on the same requests, recording each second by second.
pub fn run(config: &Config, scalers: &[Scaler]) -> Result<Outcome, ParamError> {
    config.validate()?;
    let reqs = arrivals(config);
    Ok(Outcome {
        config: config.clone(),
        runs: scalers
            .iter()
            .map(|&s| run_scaler(config, s, &reqs, true))
            .collect(),
    })
}
