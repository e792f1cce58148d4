//! One scaler's run, second by second, in named phases (see `sim.rs` for
//! their order within a second): each phase is a method of [`ScalerLoop`],
//! which holds what the loop carries from second to second, so a phase can
//! be read, and tested, on its own.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use super::config::{Config, Scaler};
use super::pool::Replica;
use super::sim::{Arrival, Life, Moment, Moments, ScalerRun, Snapshot, FRESH, WINDOW};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;

/// Run `scaler` over `reqs`, recording each second when `record`.
pub(super) fn run_scaler(
    config: &Config,
    scaler: Scaler,
    reqs: &[Arrival],
    record: bool,
) -> ScalerRun {
    let mut run = ScalerLoop::new(config, scaler, reqs, record);
    for t in 0..config.ticks {
        run.second(t);
    }
    run.finish()
}

/// What one scaler's run carries from second to second.
pub(super) struct ScalerLoop<'a> {
    pub(super) config: &'a Config,
    pub(super) scaler: Scaler,
    pub(super) reqs: &'a [Arrival],
    pub(super) record: bool,
    /// The replicas by place; `None` where none is (a place is reused).
    pub(super) pool: Vec<Option<Replica>>,
    /// The slow-start lottery's draws.
    pub(super) tie: Rng,
    pub(super) surge_end: u32,
    /// Orders count as being for the surge from the surge's start, or for
    /// the predictive scaler from one cold start and one period before it.
    pub(super) lead: u32,
    /// The next request to route.
    pub(super) next: usize,
    /// Each request's TTFT, once its first token came.
    pub(super) ttft: Vec<Option<f64>>,
    /// Whether each request went to a fresh replica.
    pub(super) to_fresh: Vec<bool>,
    /// TTFTs of requests sent to fresh replicas.
    pub(super) fresh_ttft: Vec<f64>,
    /// TTFTs of this control period (the TTFT scaler's signal).
    pub(super) period_ttfts: Vec<f64>,
    /// TTFTs of this [`WINDOW`], and each finished window's P95.
    pub(super) window: Vec<f64>,
    pub(super) windows: Vec<f64>,
    /// Counts asked for over the cooldown, with the second asked. The
    /// starting count counts as asked for at second 0, so the pool does not
    /// shrink before a scale-in window has passed.
    pub(super) asked: VecDeque<(u32, u32)>,
    /// The scaler's last reading and the count it last asked for.
    pub(super) reading: f64,
    pub(super) desired: u32,
    pub(super) finished: u32,
    pub(super) late: u32,
    pub(super) peak: u32,
    pub(super) replica_seconds: u64,
    /// Arrivals fresh replicas took, and their fair share of them.
    pub(super) fresh_took: f64,
    pub(super) fresh_fair: f64,
    /// Sums of the busy fraction and slot share before the surge, and the
    /// seconds summed.
    pub(super) steady_busy: f64,
    pub(super) steady_kv: f64,
    pub(super) steady_n: u32,
    pub(super) moments: Moments,
    pub(super) reaction: Option<u32>,
    pub(super) timeline: Vec<Snapshot>,
}

impl<'a> ScalerLoop<'a> {
    /// The run before its first second: the starting pool, ready.
    pub(super) fn new(
        config: &'a Config,
        scaler: Scaler,
        reqs: &'a [Arrival],
        record: bool,
    ) -> Self {
        let start = config.start(scaler != Scaler::Fixed);
        ScalerLoop {
            config,
            scaler,
            reqs,
            record,
            pool: (0..start)
                .map(|_| Some(Replica::new(Life::Ready, 0, 0, false)))
                .collect(),
            tie: Rng::new(config.seed, stream::TIE_BREAKS),
            surge_end: config.surge_at.saturating_add(config.surge_for),
            lead: if scaler == Scaler::Predictive {
                config.cold + config.period
            } else {
                0
            },
            next: 0,
            ttft: alloc::vec![None; reqs.len()],
            to_fresh: alloc::vec![false; reqs.len()],
            fresh_ttft: Vec::new(),
            period_ttfts: Vec::new(),
            window: Vec::new(),
            windows: Vec::new(),
            asked: VecDeque::from([(0, start)]),
            reading: 0.0,
            desired: start,
            finished: 0,
            late: 0,
            peak: start,
            replica_seconds: 0,
            fresh_took: 0.0,
            fresh_fair: 0.0,
            steady_busy: 0.0,
            steady_kv: 0.0,
            steady_n: 0,
            moments: Moments {
                seen: [false; 7],
                now: None,
            },
            reaction: None,
            timeline: Vec::with_capacity(if record { config.ticks as usize } else { 0 }),
        }
    }

    /// Second `t`, phase by phase in the lab's fixed order.
    fn second(&mut self, t: u32) {
        self.moments.now = None;
        self.settle(t);
        let (sent, arrived) = self.route(t);
        self.prefill(t);
        self.sample(t);
        self.judge_fresh(t);
        self.retire_drained();
        self.note_surge_over(t);
        self.control(t);
        self.tally(t);
        if self.record {
            self.snapshot(t, &sent, arrived);
        }
    }

    /// Cold starts that end at `t` make their replicas ready (flagging the
    /// first ordered for the surge, and counting those that came after
    /// it); decodes that end at `t` free their slots.
    fn settle(&mut self, t: u32) {
        let config = self.config;
        for (p, r) in self.pool.iter_mut().enumerate() {
            let Some(r) = r else { continue };
            if r.life == Life::Starting && r.ready_at <= t {
                r.life = Life::Ready;
                if r.new && r.ordered + self.lead >= config.surge_at {
                    self.moments.note(Moment::Ready {
                        replica: p as u32,
                        ordered: r.ordered,
                    });
                }
                if r.ordered >= config.surge_at && r.ordered < self.surge_end && t >= self.surge_end
                {
                    self.late += 1;
                }
            }
            let before = r.decoding.len();
            r.decoding.retain(|&e| e > t);
            self.finished += (before - r.decoding.len()) as u32;
        }
    }

    /// Each replica admits waiting requests into free slots and spends the
    /// second's prefill; every first token's TTFT goes to the run's figures
    /// and to the TTFT scaler's period.
    fn prefill(&mut self, t: u32) {
        for r in self.pool.iter_mut().flatten() {
            r.admit(self.config, self.reqs);
            r.prefill(t, self.reqs, |i, at| {
                self.ttft[i] = Some(at);
                self.period_ttfts.push(at);
                self.window.push(at);
                if self.to_fresh[i] {
                    self.fresh_ttft.push(at);
                }
            });
        }
    }

    /// The signals accumulate over ready replicas: busy seconds and slots in
    /// use for the scalers, and their means before the surge for the report.
    fn sample(&mut self, t: u32) {
        let (mut b, mut k, mut n) = (0.0, 0.0, 0u32);
        for r in self.pool.iter_mut().flatten() {
            if r.life == Life::Ready {
                let running = r.running();
                r.busy += u32::from(running > 0);
                r.slots_used += u64::from(running);
                r.counted += 1;
                b += f64::from(u32::from(running > 0));
                k += f64::from(running) / f64::from(self.config.slots);
                n += 1;
            }
        }
        if t < self.config.surge_at && n > 0 {
            self.steady_busy += b / f64::from(n);
            self.steady_kv += k / f64::from(n);
            self.steady_n += 1;
        }
    }

    /// Flooded or passed over: judged on each fresh replica, a full batch
    /// within ten seconds of becoming ready, or under a quarter of a fair
    /// share at the end of its [`FRESH`] seconds.
    fn judge_fresh(&mut self, t: u32) {
        for (p, r) in self.pool.iter().enumerate() {
            let Some(r) = r else { continue };
            if !r.new || r.life != Life::Ready {
                continue;
            }
            let age = t - r.ready_at;
            if age < 10 && r.took >= self.config.slots {
                self.moments.note(Moment::Flooded {
                    replica: p as u32,
                    took: r.took,
                    after: age + 1,
                });
            }
            if age + 1 == FRESH && f64::from(r.took) < r.fair / 4.0 {
                self.moments.note(Moment::Ignored {
                    replica: p as u32,
                    took: r.took,
                    fair: r.fair,
                });
            }
        }
    }

    /// Drained replicas leave once empty, freeing their places.
    fn retire_drained(&mut self) {
        for r in self.pool.iter_mut() {
            if r.as_ref()
                .is_some_and(|r| r.life == Life::Draining && r.outstanding() == 0)
            {
                *r = None;
            }
        }
    }

    /// At the surge's last second, flag the replicas still in their cold
    /// start: ordered for the surge, ready only after it.
    fn note_surge_over(&mut self, t: u32) {
        if self.config.surge > 0.0 && t == self.surge_end {
            let starting = self
                .pool
                .iter()
                .flatten()
                .filter(|r| r.life == Life::Starting)
                .count() as u32;
            if starting > 0 {
                self.moments.note(Moment::SurgeOver { starting });
            }
        }
    }

    /// Replica time paid for and the peak, and at the end of each
    /// [`WINDOW`] (or of the run) that window's TTFT P95.
    fn tally(&mut self, t: u32) {
        let live = self.pool.iter().flatten().count() as u32;
        self.peak = self.peak.max(live);
        self.replica_seconds += u64::from(live);
        if (t + 1) % WINDOW == 0 || t + 1 == self.config.ticks {
            self.window.sort_by(f64::total_cmp);
            self.windows.push(if self.window.is_empty() {
                0.0
            } else {
                percentile_sorted(&self.window, 95.0)
            });
            self.window.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(tick: u32, group: u32) -> Arrival {
        Arrival {
            tick,
            group,
            decode: 10,
        }
    }

    /// A cold start ends on its second, not before; decodes that end on
    /// the second leave and count as finished, later ones stay.
    #[test]
    fn settle_readies_cold_starts_on_time_and_ends_decodes() {
        let config = Config::default();
        let mut run = ScalerLoop::new(&config, Scaler::Kv, &[], false);
        run.pool.truncate(1);
        if let Some(r) = run.pool[0].as_mut() {
            r.decoding = alloc::vec![4, 5, 9];
        }
        // Ordered during the surge, so its readiness is a key moment.
        run.pool
            .push(Some(Replica::new(Life::Starting, 5, config.surge_at, true)));
        run.pool
            .push(Some(Replica::new(Life::Starting, 6, 0, true)));
        run.settle(5);
        let life = |p: usize| run.pool[p].as_ref().map(|r| r.life);
        assert_eq!(life(1), Some(Life::Ready));
        assert_eq!(life(2), Some(Life::Starting));
        assert_eq!(run.finished, 2);
        assert_eq!(
            run.pool[0].as_ref().map(|r| r.decoding.clone()),
            Some(alloc::vec![9])
        );
        assert_eq!(
            run.moments.now,
            Some(Moment::Ready {
                replica: 1,
                ordered: config.surge_at
            })
        );
    }

    /// One replica with two slots takes three requests sharing a prefix:
    /// the first misses the cache and the second hits it, both finish
    /// prefill within the second (TTFT counts the share of the second
    /// used), and the third waits for a slot.
    #[test]
    fn prefill_spends_one_second_and_hits_cost_less() {
        let config = Config {
            slots: 2,
            prefill: 0.4,
            hit_cost: 0.5,
            ..Config::default()
        };
        let reqs = [arrival(0, 7), arrival(0, 7), arrival(0, 7)];
        let mut run = ScalerLoop::new(&config, Scaler::Kv, &reqs, false);
        run.pool.truncate(1);
        let (sent, arrived) = run.route(0);
        assert_eq!((sent, arrived), (alloc::vec![3], 3));
        run.prefill(0);
        let close = |x: Option<f64>, want: f64| x.is_some_and(|x| (x - want).abs() < 1e-9);
        assert!(close(run.ttft[0], 0.4), "{:?}", run.ttft);
        assert!(close(run.ttft[1], 0.6), "{:?}", run.ttft);
        assert_eq!(run.ttft[2], None);
        let r = run.pool[0].as_ref().expect("replica");
        assert_eq!((r.waiting.len(), r.decoding.len()), (1, 2));
        assert_eq!(r.decoding, alloc::vec![11, 11]);
    }
}
