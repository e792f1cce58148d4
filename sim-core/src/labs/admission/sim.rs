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
    let mut g = Gate::new(config, policy, reqs);
    let mut timeline = Vec::with_capacity(if record { config.ticks as usize } else { 0 });
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
        g.finish(t, &mut snap);
        if policy == Policy::Breaker {
            g.breaker(t, &mut snap);
        }
        let out: Vec<bool> = g.out_until.iter().map(|&u| u > t).collect();
        if out.iter().any(|&o| o) {
            g.tripped_ticks += 1;
        }
        g.admit(t, &mut snap);
        g.dispatch(t, &out, &mut snap);
        snap.queue = g.queue.len() as u32;
        snap.busy = g.load.clone();
        snap.out = out;
        if record {
            timeline.push(snap);
        }
    }
    g.outcome(timeline)
}

/// One policy's run in progress: the gateway's queue, the replicas, the
/// breaker's counts and the tallies. Each tick runs its phases in order:
/// servers finish, the breaker counts, arrivals are admitted or refused,
/// then the queue is dispatched.
struct Gate<'a> {
    config: &'a Config,
    policy: Policy,
    reqs: &'a [Arrival],
    /// The SLO and the queue-time bound, in ticks.
    slo: f64,
    bound: f64,
    queue: VecDeque<usize>,
    busy: Vec<Busy>,
    load: Vec<u32>,
    failures: Vec<VecDeque<u32>>,
    out_until: Vec<u32>,
    waits: Vec<f64>,
    rejected: u32,
    dropped: u32,
    served: u32,
    failed: u32,
    good: u32,
    spent: u64,
    wasted: u64,
    tripped_ticks: u32,
    next: usize,
    lost_seen: bool,
    refused_seen: bool,
    dropped_seen: bool,
}

impl<'a> Gate<'a> {
    fn new(config: &'a Config, policy: Policy, reqs: &'a [Arrival]) -> Gate<'a> {
        let n = config.replicas as usize;
        Gate {
            config,
            policy,
            reqs,
            slo: config.slo * config.service,
            bound: config.bound * config.service,
            queue: VecDeque::new(),
            busy: Vec::new(),
            load: vec![0; n],
            failures: vec![VecDeque::new(); n],
            out_until: vec![0; n],
            waits: Vec::new(),
            rejected: 0,
            dropped: 0,
            served: 0,
            failed: 0,
            good: 0,
            spent: 0,
            wasted: 0,
            tripped_ticks: 0,
            next: 0,
            lost_seen: false,
            refused_seen: false,
            dropped_seen: false,
        }
    }

    /// Servers whose request ends by tick `t` finish it: served (good when
    /// it met the SLO) or failed (counted for the breaker).
    fn finish(&mut self, t: u32, snap: &mut Snapshot) {
        let (load, failures) = (&mut self.load, &mut self.failures);
        let (failed, served, good) = (&mut self.failed, &mut self.served, &mut self.good);
        self.busy.retain(|b| {
            if b.ends > t {
                return true;
            }
            load[b.replica] -= 1;
            if b.failed {
                *failed += 1;
                failures[b.replica].push_back(t);
            } else {
                *served += 1;
                if b.good {
                    *good += 1;
                    snap.good += 1;
                }
            }
            false
        });
    }

    /// The breaker counts each replica's failures in its window and takes a
    /// replica out of rotation when they reach the threshold.
    fn breaker(&mut self, t: u32, snap: &mut Snapshot) {
        let c = self.config;
        for r in 0..self.failures.len() {
            let failures = &mut self.failures[r];
            while failures.front().is_some_and(|&f| f + c.window <= t) {
                failures.pop_front();
            }
            let counted = failures.len() as u32;
            if counted >= c.trip_after && self.out_until[r] <= t {
                self.out_until[r] = t + c.trip_for;
                failures.clear();
                snap.moment = Some(Moment::Trip {
                    replica: r as u32,
                    failures: counted,
                });
            }
        }
    }

    /// This tick's arrivals join the queue, or are refused at once when a
    /// queue cap is full.
    fn admit(&mut self, t: u32, snap: &mut Snapshot) {
        while self.next < self.reqs.len() && self.reqs[self.next].tick == t {
            if self.policy == Policy::QueueCap && self.queue.len() as u32 >= self.config.cap {
                self.rejected += 1;
                snap.rejected += 1;
                if !self.refused_seen {
                    self.refused_seen = true;
                    snap.moment = Some(Moment::FirstRefusal {
                        queue: self.queue.len() as u32,
                    });
                }
            } else {
                self.queue.push_back(self.next);
            }
            self.next += 1;
        }
    }

    /// Dispatch in arrival order while a replica in rotation has room; a
    /// deadline or a queue-time bound drops what has waited too long.
    fn dispatch(&mut self, t: u32, out: &[bool], snap: &mut Snapshot) {
        let c = self.config;
        let failing = c.failure > 0.0 && t >= c.incident_at && t - c.incident_at < c.incident_for;
        while let Some(&i) = self.queue.front() {
            let load = &self.load;
            let Some(r) = (0..load.len())
                .filter(|&r| !out[r] && load[r] < c.slots)
                .min_by_key(|&r| (load[r], r))
            else {
                break;
            };
            self.queue.pop_front();
            let req = self.reqs[i];
            let waited = f64::from(t - req.tick);
            let ttft = waited + f64::from(req.first);
            let lost = match self.policy {
                Policy::Deadline => ttft > self.slo,
                Policy::QueueTime => waited > self.bound,
                _ => false,
            };
            if lost {
                self.dropped += 1;
                snap.dropped += 1;
                if !self.dropped_seen {
                    self.dropped_seen = true;
                    snap.moment = Some(Moment::FirstDrop {
                        waited: t - req.tick,
                    });
                }
                continue;
            }
            if !self.lost_seen && !self.dropped_seen && ttft > self.slo {
                self.lost_seen = true;
                snap.moment.get_or_insert(Moment::SloLost {
                    waited: t - req.tick,
                });
            }
            self.waits.push(waited);
            // Replica 1 (index 0) is the one that fails during the incident.
            let fails = failing && r == 0 && req.fail < c.failure;
            let length = if fails { 1 } else { req.service };
            self.spent += u64::from(length);
            let good = !fails && ttft <= self.slo;
            if !good {
                self.wasted += u64::from(length);
            }
            self.load[r] += 1;
            self.busy.push(Busy {
                replica: r,
                ends: t + length,
                good,
                failed: fails,
            });
        }
    }

    /// The run's tallies.
    fn outcome(mut self, timeline: Vec<Snapshot>) -> PolicyRun {
        self.waits.sort_by(f64::total_cmp);
        let offered = self.reqs.len() as u32;
        PolicyRun {
            policy: self.policy,
            offered,
            rejected: self.rejected,
            dropped: self.dropped,
            served: self.served,
            failed: self.failed,
            unfinished: offered - self.rejected - self.dropped - self.served - self.failed,
            goodput: f64::from(self.good) / f64::from(self.config.ticks.max(1)),
            wait_p95: percentile_sorted(&self.waits, 95.0),
            wasted: if self.spent == 0 {
                0.0
            } else {
                self.wasted as f64 / self.spent as f64
            },
            tripped_ticks: self.tripped_ticks,
            timeline,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn empty() -> Snapshot {
        Snapshot {
            queue: 0,
            busy: Vec::new(),
            out: Vec::new(),
            rejected: 0,
            dropped: 0,
            good: 0,
            moment: None,
        }
    }

    #[test]
    fn a_full_queue_cap_refuses_and_marks_the_first_refusal() {
        let config = Config {
            cap: 2,
            ..Config::default()
        };
        let arrival = Arrival {
            tick: 0,
            service: 1,
            first: 0,
            fail: 1.0,
        };
        let reqs = [arrival; 3];
        let mut g = Gate::new(&config, Policy::QueueCap, &reqs);
        let mut snap = empty();
        g.admit(0, &mut snap);
        assert_eq!((g.queue.len(), g.rejected, snap.rejected), (2, 1, 1));
        assert_eq!(snap.moment, Some(Moment::FirstRefusal { queue: 2 }));
        // With no control, all three wait.
        let mut g = Gate::new(&config, Policy::None, &reqs);
        g.admit(0, &mut empty());
        assert_eq!((g.queue.len(), g.rejected), (3, 0));
    }
}
