//! One policy's run, tick by tick, in named phases (their order is in
//! `sim.rs`): each phase is a method of [`PolicyLoop`], which holds what
//! the run carries from tick to tick, so a phase can be read, and tested,
//! on its own.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::config::{Config, Policy};
use super::sim::{Arrival, Moment, PolicyRun, Snapshot};
use crate::stats::percentile_sorted;

/// Run `policy` over `reqs`.
///
/// With `record`, the run keeps its tick-by-tick [`Snapshot`]s (the player
/// needs them; the load sweep does not).
pub(super) fn run_policy(
    config: &Config,
    policy: Policy,
    reqs: &[Arrival],
    record: bool,
) -> PolicyRun {
    let mut run = PolicyLoop::new(config, policy, reqs, record);
    for t in 0..config.ticks {
        run.tick(t);
    }
    run.finish()
}

/// A request in service.
#[derive(Clone, Copy)]
pub(super) struct Busy {
    pub(super) replica: usize,
    pub(super) ends: u32,
    /// Whether its first token met the SLO.
    pub(super) good: bool,
    pub(super) failed: bool,
}

/// What one policy's run carries from tick to tick.
pub(super) struct PolicyLoop<'a> {
    pub(super) config: &'a Config,
    pub(super) policy: Policy,
    pub(super) reqs: &'a [Arrival],
    pub(super) record: bool,
    /// The SLO and the queue-time bound, in ticks.
    pub(super) slo: f64,
    pub(super) bound: f64,
    /// Requests waiting at the gateway, by index, oldest first.
    pub(super) queue: VecDeque<usize>,
    pub(super) busy: Vec<Busy>,
    /// Busy servers per replica.
    pub(super) load: Vec<u32>,
    /// Per replica: ticks of its failures within the breaker's window, and
    /// the tick until which it is out of rotation.
    pub(super) failures: Vec<VecDeque<u32>>,
    pub(super) out_until: Vec<u32>,
    /// Queue waits of requests that reached a server, ticks.
    pub(super) waits: Vec<f64>,
    pub(super) rejected: u32,
    pub(super) dropped: u32,
    pub(super) served: u32,
    pub(super) failed: u32,
    pub(super) good: u32,
    /// Server ticks spent, and those spent on requests that missed the SLO
    /// or failed.
    pub(super) spent: u64,
    pub(super) wasted: u64,
    pub(super) tripped_ticks: u32,
    pub(super) timeline: Vec<Snapshot>,
    /// The next request to arrive.
    pub(super) next: usize,
    /// First-of-kind moments seen.
    pub(super) lost_seen: bool,
    pub(super) refused_seen: bool,
    pub(super) dropped_seen: bool,
}

impl<'a> PolicyLoop<'a> {
    /// The run before its first tick: every server free, no request.
    pub(super) fn new(
        config: &'a Config,
        policy: Policy,
        reqs: &'a [Arrival],
        record: bool,
    ) -> Self {
        let n = config.replicas as usize;
        PolicyLoop {
            config,
            policy,
            reqs,
            record,
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
            timeline: Vec::with_capacity(if record { config.ticks as usize } else { 0 }),
            next: 0,
            lost_seen: false,
            refused_seen: false,
            dropped_seen: false,
        }
    }

    /// Tick `t`, phase by phase in the lab's fixed order; the tick's counts
    /// and moment gather in its snapshot.
    pub(super) fn tick(&mut self, t: u32) {
        let mut snap = Snapshot {
            queue: 0,
            busy: Vec::new(),
            out: Vec::new(),
            rejected: 0,
            dropped: 0,
            good: 0,
            moment: None,
        };
        self.finish_service(t, &mut snap);
        if self.policy == Policy::Breaker {
            self.trip(t, &mut snap);
        }
        let out: Vec<bool> = self.out_until.iter().map(|&u| u > t).collect();
        if out.iter().any(|&o| o) {
            self.tripped_ticks += 1;
        }
        self.admit(t, &mut snap);
        self.dispatch(t, &out, &mut snap);
        snap.queue = self.queue.len() as u32;
        snap.busy = self.load.clone();
        snap.out = out;
        if self.record {
            self.timeline.push(snap);
        }
    }

    /// Servers whose request ends at `t` free up: a failure is counted
    /// against its replica (for the breaker), a success as served, and as
    /// good if its first token met the SLO.
    fn finish_service(&mut self, t: u32, snap: &mut Snapshot) {
        self.busy.retain(|b| {
            if b.ends > t {
                return true;
            }
            self.load[b.replica] -= 1;
            if b.failed {
                self.failed += 1;
                self.failures[b.replica].push_back(t);
            } else {
                self.served += 1;
                if b.good {
                    self.good += 1;
                    snap.good += 1;
                }
            }
            false
        });
    }

    /// The breaker counts each replica's failures within its window and
    /// takes a replica out of rotation for a while once they reach the
    /// threshold (counting starts again when it is back).
    fn trip(&mut self, t: u32, snap: &mut Snapshot) {
        let config = self.config;
        for r in 0..self.failures.len() {
            let failures = &mut self.failures[r];
            while failures.front().is_some_and(|&f| f + config.window <= t) {
                failures.pop_front();
            }
            let counted = failures.len() as u32;
            if counted >= config.trip_after && self.out_until[r] <= t {
                self.out_until[r] = t + config.trip_for;
                failures.clear();
                snap.moment = Some(Moment::Trip {
                    replica: r as u32,
                    failures: counted,
                });
            }
        }
    }

    /// The tick's arrivals join the queue, or under the queue cap are
    /// refused (429) once it is full.
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

    /// Waiting requests leave the queue in arrival order while a replica in
    /// rotation has a free server (the one with the fewest busy, ties to the
    /// lowest index). The deadline and queue-time policies check each as it
    /// leaves and drop it rather than serve it late.
    fn dispatch(&mut self, t: u32, out: &[bool], snap: &mut Snapshot) {
        let config = self.config;
        let n = self.load.len();
        let failing = config.failure > 0.0
            && t >= config.incident_at
            && t - config.incident_at < config.incident_for;
        while let Some(&i) = self.queue.front() {
            let load = &self.load;
            let Some(r) = (0..n)
                .filter(|&r| !out[r] && load[r] < config.slots)
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
            let fails = failing && r == 0 && req.fail < config.failure;
            self.serve(t, r, req.service, ttft, fails);
        }
    }

    /// Start a request of `service` ticks on replica `r`: a failing one
    /// ends a tick after dispatch. Its server time counts as wasted unless
    /// it succeeds within the SLO.
    fn serve(&mut self, t: u32, r: usize, service: u32, ttft: f64, fails: bool) {
        let length = if fails { 1 } else { service };
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

    /// The policy's figures once every tick has run.
    fn finish(mut self) -> PolicyRun {
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
            timeline: self.timeline,
        }
    }
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

    fn arrival(tick: u32) -> Arrival {
        Arrival {
            tick,
            service: 10,
            first: 2,
            fail: 1.0,
        }
    }

    /// At tick 70 one request has waited 70 ticks (its first token would
    /// come past the 60-tick SLO) and two have just come; replica 1 is out
    /// of rotation. The deadline policy drops the late one; with no control
    /// it is served, late, and its server time counts as wasted. Each goes
    /// to the least busy replica in rotation.
    #[test]
    fn dispatch_drops_late_requests_only_under_a_deadline() {
        let config = Config::default();
        let reqs = [arrival(0), arrival(70), arrival(70)];
        for policy in [Policy::Deadline, Policy::None] {
            let mut run = PolicyLoop::new(&config, policy, &reqs, false);
            run.queue.extend(0..3);
            let mut snap = empty();
            run.dispatch(70, &[true, false, false, false], &mut snap);
            assert!(run.queue.is_empty());
            if policy == Policy::Deadline {
                assert_eq!((run.dropped, snap.dropped), (1, 1));
                assert_eq!(run.load, [0, 1, 1, 0]);
                assert_eq!(snap.moment, Some(Moment::FirstDrop { waited: 70 }));
                assert_eq!(run.wasted, 0);
            } else {
                assert_eq!(run.dropped, 0);
                assert_eq!(run.load, [0, 1, 1, 1]);
                assert_eq!(snap.moment, Some(Moment::SloLost { waited: 70 }));
                assert_eq!((run.spent, run.wasted), (30, 10));
            }
        }
    }

    /// Five failures within the window trip the breaker (the replica is out
    /// for `trip_for` ticks, and counting starts again); once the oldest
    /// has left the window, four do not.
    #[test]
    fn the_breaker_trips_on_failures_within_its_window() {
        let config = Config::default();
        let failures = [10, 20, 30, 40, 50];
        for (t, trips) in [(55, true), (61, false)] {
            let mut run = PolicyLoop::new(&config, Policy::Breaker, &[], false);
            run.failures[2].extend(failures);
            let mut snap = empty();
            run.trip(t, &mut snap);
            if trips {
                assert_eq!(run.out_until, [0, 0, t + config.trip_for, 0]);
                assert!(run.failures[2].is_empty());
                let trip = Moment::Trip {
                    replica: 2,
                    failures: 5,
                };
                assert_eq!(snap.moment, Some(trip));
            } else {
                assert_eq!(run.out_until, [0; 4]);
                assert_eq!(run.failures[2].len(), 4);
                assert_eq!(snap.moment, None);
            }
        }
    }
}
