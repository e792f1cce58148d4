//! The admission lab's tick loop: one pool, one gateway queue, one policy.
//!
//! Within a tick the order is fixed: servers finish (a failure ends its
//! request a tick after dispatch), the breaker counts and trips, the tick's
//! arrivals are admitted or refused, then waiting requests are dispatched in
//! arrival order to the replica with the fewest busy servers among those in
//! rotation (ties to the lowest index); the deadline and queue-time policies
//! check a request as it leaves the queue.
//!
//! This file holds the requests and what a run gives; the loop is
//! `policy_loop.rs`, one method per phase of the tick.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, Policy};
use super::policy_loop::run_policy;
use super::Outcome;
use crate::choice::Choice;
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};

/// A request as every policy sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arrival {
    /// Tick it arrives.
    pub(super) tick: u32,
    /// Service time, ticks (at least 1).
    pub(super) service: u32,
    /// Ticks from dispatch to the first token.
    pub(super) first: u32,
    /// Uniform draw deciding a failure on the failing replica.
    pub(super) fail: f64,
}

/// The pool and the queue after one tick (what a player shows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Requests waiting at the gateway.
    pub queue: u32,
    /// Busy servers per replica.
    pub busy: Vec<u32>,
    /// Replicas a breaker has taken out of rotation.
    pub out: Vec<bool>,
    /// Refused (429) at this tick.
    pub rejected: u32,
    /// Dropped from the queue at this tick.
    pub dropped: u32,
    /// Finished within the SLO at this tick.
    pub good: u32,
    /// What makes this tick worth stopping at, if anything.
    pub moment: Option<Moment>,
}

/// A tick a player stops at: the first time a policy acts, or the point
/// past which no control cannot keep its promise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// The first request whose wait alone put it past the SLO reached a
    /// server (no control, the breaker): every request queued behind it is
    /// late too, and still served.
    SloLost {
        /// How long it waited, ticks.
        waited: u32,
    },
    /// The queue cap's first 429: the queue held `queue` requests.
    FirstRefusal {
        /// Requests waiting when it was refused.
        queue: u32,
    },
    /// The first request dropped at dispatch (deadline or queue-time bound).
    FirstDrop {
        /// How long it had waited, ticks.
        waited: u32,
    },
    /// A breaker took `replica` (0-based) out after `failures` failures
    /// within its window.
    Trip {
        /// The replica, 0-based.
        replica: u32,
        /// Failures counted in the window.
        failures: u32,
    },
}

/// One policy's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyRun {
    /// The policy.
    pub policy: Policy,
    /// Requests that arrived.
    pub offered: u32,
    /// Refused at the door.
    pub rejected: u32,
    /// Dropped from the queue (deadline or queue-time bound).
    pub dropped: u32,
    /// Served to the end (met the SLO or not).
    pub served: u32,
    /// Ended by a failing replica.
    pub failed: u32,
    /// Still queued or in service when the run ended.
    pub unfinished: u32,
    /// Requests whose first token came within the SLO, per tick of the run.
    pub goodput: f64,
    /// 95th percentile of the queue wait of requests that reached a server, ticks.
    pub wait_p95: f64,
    /// Share of server time spent on requests that missed the SLO or failed.
    pub wasted: f64,
    /// Ticks the breaker kept some replica out.
    pub tripped_ticks: u32,
    /// The run tick by tick.
    pub timeline: Vec<Snapshot>,
}

impl PolicyRun {
    /// Share of offered requests refused at the door.
    pub fn rejected_share(&self) -> f64 {
        share(self.rejected, self.offered)
    }

    /// Share of offered requests dropped from the queue.
    pub fn dropped_share(&self) -> f64 {
        share(self.dropped, self.offered)
    }
}

fn share(n: u32, of: u32) -> f64 {
    if of == 0 {
        0.0
    } else {
        f64::from(n) / f64::from(of)
    }
}

/// The requests of a run, drawn once for every policy.
fn arrivals(config: &Config) -> Vec<Arrival> {
    let mut arrive = Rng::new(config.seed, stream::ARRIVALS);
    let mut serve = Rng::new(config.seed, stream::OUTPUTS);
    let mut fail = Rng::new(config.seed, stream::TIE_BREAKS);
    let base = config.load * config.capacity();
    let mut out = Vec::new();
    for t in 0..config.ticks {
        let surging = t >= config.surge_at && t - config.surge_at < config.surge_for;
        let rate = if surging {
            base * (1.0 + config.surge)
        } else {
            base
        };
        for _ in 0..arrive.poisson(rate) {
            // `libm`: the crate builds without std.
            let s = libm::round(serve.gamma_mean_cv(config.service, config.service_cv)).max(1.0);
            // The first token comes a fixed time after dispatch (a share of
            // the mean service): a long answer is long in decode, and a
            // deadline that judged by it would favour short requests.
            let first = libm::round(config.service * config.first_token).max(1.0);
            out.push(Arrival {
                tick: t,
                service: s as u32,
                first: first.min(s) as u32,
                fail: fail.unit(),
            });
        }
    }
    out
}

/// Loads of the goodput sweep, as shares of capacity (each a steady load:
/// no surge, no failing replica).
pub const SWEEP: [f64; 10] = [0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.1, 1.3, 1.6, 2.0];

/// Run every policy on the same requests (no sweep: what the claims over
/// many seeds need).
pub fn run_policies(config: &Config) -> Result<Vec<PolicyRun>, ParamError> {
    Ok(run(config, Policy::ALL, false)?.policies)
}

/// Run `policies` on the same requests, recording each tick by tick, and
/// (with `sweep`) the goodput of each at every load of [`SWEEP`].
pub fn run(config: &Config, policies: &[Policy], sweep: bool) -> Result<Outcome, ParamError> {
    config.validate()?;
    let reqs = arrivals(config);
    let runs = policies
        .iter()
        .map(|&p| run_policy(config, p, &reqs, true))
        .collect();
    let sweep = if sweep { SWEEP.as_slice() } else { &[] };
    let sweep = sweep
        .iter()
        .map(|&load| {
            // The knee at a steady load: the surge and the incident are
            // this run's story, not the curve's.
            let c = Config {
                load,
                surge: 0.0,
                failure: 0.0,
                ..config.clone()
            };
            let reqs = arrivals(&c);
            let goodput = policies
                .iter()
                .map(|&p| run_policy(&c, p, &reqs, false).goodput)
                .collect();
            (load, goodput)
        })
        .collect();
    Ok(Outcome {
        config: config.clone(),
        capacity: config.capacity(),
        policies: runs,
        sweep,
    })
}
