//! The admission lab's tick loop: one pool, one gateway queue, one policy.
//!
//! Within a tick the order is fixed: servers finish (a failure ends its
//! request a tick after dispatch), the breaker counts and trips, the tick's
//! arrivals are admitted or refused, then waiting requests are dispatched in
//! arrival order to the replica with the fewest busy servers among those in
//! rotation (ties to the lowest index); the deadline and queue-time policies
//! check a request as it leaves the queue.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, Policy};
use super::Outcome;
use crate::choice::Choice;
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;

/// A request as every policy sees it.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    tick: u32,
    /// Service time, ticks (at least 1).
    service: u32,
    /// Ticks from dispatch to the first token.
    first: u32,
    /// Uniform draw deciding a failure on the failing replica.
    fail: f64,
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

/// A request in service.
#[derive(Clone, Copy)]
struct Busy {
    replica: usize,
    ends: u32,
    /// Whether its first token met the SLO.
    good: bool,
    failed: bool,
}

/// Run `policy` over `reqs`.
///
/// With `record`, the run keeps its tick-by-tick [`Snapshot`]s (the player
/// needs them; the load sweep does not).
fn run_policy(config: &Config, policy: Policy, reqs: &[Arrival], record: bool) -> PolicyRun {
    let n = config.replicas as usize;
    let slo = config.slo * config.service;
    let bound = config.bound * config.service;
    let mut queue: VecDeque<usize> = VecDeque::new();
    let mut busy: Vec<Busy> = Vec::new();
    let mut load = vec![0u32; n];
    let mut failures: Vec<VecDeque<u32>> = vec![VecDeque::new(); n];
    let mut out_until = vec![0u32; n];
    let mut waits: Vec<f64> = Vec::new();
    let (mut rejected, mut dropped, mut served, mut failed, mut good) =
        (0u32, 0u32, 0u32, 0u32, 0u32);
    let (mut spent, mut wasted, mut tripped_ticks) = (0u64, 0u64, 0u32);
    let mut timeline = Vec::with_capacity(if record { config.ticks as usize } else { 0 });
    let mut next = 0usize;
    let (mut lost_seen, mut refused_seen, mut dropped_seen) = (false, false, false);
    for t in 0..config.ticks {
        let mut snap = Snapshot {
            queue: 0,
            busy: Vec::new(),
            out: Vec::new(),
            rejected: 0,
            dropped: 0,
            good: 0,
            moment: None,
        };
        // Servers finish.
        busy.retain(|b| {
            if b.ends > t {
                return true;
            }
            load[b.replica] -= 1;
            if b.failed {
                failed += 1;
                failures[b.replica].push_back(t);
            } else {
                served += 1;
                if b.good {
                    good += 1;
                    snap.good += 1;
                }
            }
            false
        });
        // The breaker counts failures in its window and trips.
        if policy == Policy::Breaker {
            for r in 0..n {
                while failures[r].front().is_some_and(|&f| f + config.window <= t) {
                    failures[r].pop_front();
                }
                let counted = failures[r].len() as u32;
                if counted >= config.trip_after && out_until[r] <= t {
                    out_until[r] = t + config.trip_for;
                    failures[r].clear();
                    snap.moment = Some(Moment::Trip {
                        replica: r as u32,
                        failures: counted,
                    });
                }
            }
        }
        let out: Vec<bool> = out_until.iter().map(|&u| u > t).collect();
        if out.iter().any(|&o| o) {
            tripped_ticks += 1;
        }
        // Arrivals: admitted or refused.
        while next < reqs.len() && reqs[next].tick == t {
            if policy == Policy::QueueCap && queue.len() as u32 >= config.cap {
                rejected += 1;
                snap.rejected += 1;
                if !refused_seen {
                    refused_seen = true;
                    snap.moment = Some(Moment::FirstRefusal {
                        queue: queue.len() as u32,
                    });
                }
            } else {
                queue.push_back(next);
            }
            next += 1;
        }
        // Dispatch in arrival order while a replica in rotation has room.
        let failing = config.failure > 0.0
            && t >= config.incident_at
            && t - config.incident_at < config.incident_for;
        while let Some(&i) = queue.front() {
            let Some(r) = (0..n)
                .filter(|&r| !out[r] && load[r] < config.slots)
                .min_by_key(|&r| (load[r], r))
            else {
                break;
            };
            queue.pop_front();
            let req = reqs[i];
            let waited = f64::from(t - req.tick);
            let ttft = waited + f64::from(req.first);
            let lost = match policy {
                Policy::Deadline => ttft > slo,
                Policy::QueueTime => waited > bound,
                _ => false,
            };
            if lost {
                dropped += 1;
                snap.dropped += 1;
                if !dropped_seen {
                    dropped_seen = true;
                    snap.moment = Some(Moment::FirstDrop {
                        waited: t - req.tick,
                    });
                }
                continue;
            }
            if !lost_seen && !dropped_seen && ttft > slo {
                lost_seen = true;
                snap.moment.get_or_insert(Moment::SloLost {
                    waited: t - req.tick,
                });
            }
            waits.push(waited);
            // Replica 1 (index 0) is the one that fails during the incident.
            let fails = failing && r == 0 && req.fail < config.failure;
            let length = if fails { 1 } else { req.service };
            spent += u64::from(length);
            let good = !fails && ttft <= slo;
            if !good {
                wasted += u64::from(length);
            }
            load[r] += 1;
            busy.push(Busy {
                replica: r,
                ends: t + length,
                good,
                failed: fails,
            });
        }
        snap.queue = queue.len() as u32;
        snap.busy = load.clone();
        snap.out = out;
        if record {
            timeline.push(snap);
        }
    }
    waits.sort_by(f64::total_cmp);
    let offered = reqs.len() as u32;
    PolicyRun {
        policy,
        offered,
        rejected,
        dropped,
        served,
        failed,
        unfinished: offered - rejected - dropped - served - failed,
        goodput: f64::from(good) / f64::from(config.ticks.max(1)),
        wait_p95: percentile_sorted(&waits, 95.0),
        wasted: if spent == 0 {
            0.0
        } else {
            wasted as f64 / spent as f64
        },
        tripped_ticks,
        timeline,
    }
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
