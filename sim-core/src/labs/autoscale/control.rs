//! The autoscaling lab's control loop: at the end of each period the
//! scaler reads its signal over the ready replicas, and the pool grows or
//! shrinks towards the count it asks for.

use alloc::vec::Vec;

use super::config::{Config, Scaler};
use super::pool::{drain, Replica};
use super::scaler_loop::ScalerLoop;
use super::sim::{Life, Moment, WARM_UP};
use crate::stats::percentile_sorted;

/// Kubernetes' autoscaler leaves the count alone while the signal is within
/// 10% of its target (`--horizontal-pod-autoscaler-tolerance`).
const TOLERANCE: f64 = 0.1;

/// The scaler's reading over the ready replicas, the count it asks for, and
/// the share of slots in use over the period (what the busy-fraction key
/// moment compares its reading with).
fn decide(
    config: &Config,
    scaler: Scaler,
    pool: &[Option<Replica>],
    t: u32,
    ttfts: &mut Vec<f64>,
) -> (f64, u32, f64) {
    let ready: Vec<&Replica> = pool
        .iter()
        .flatten()
        .filter(|r| r.life == Life::Ready)
        .collect();
    let n = ready.len().max(1) as f64;
    let share = |f: &dyn Fn(&Replica) -> f64| ready.iter().map(|r| f(r)).sum::<f64>() / n;
    let kv =
        share(&|r| r.slots_used as f64 / (f64::from(r.counted.max(1)) * f64::from(config.slots)));
    let (reading, ratio) = match scaler {
        Scaler::Fixed => return (0.0, config.start(false), kv),
        Scaler::Busy => {
            let b = share(&|r| f64::from(r.busy) / f64::from(r.counted.max(1)));
            (b, b / config.busy_target)
        }
        Scaler::Kv | Scaler::Predictive => (kv, kv / config.kv_target),
        Scaler::Queue => {
            let q = share(&|r| f64::from(r.outstanding()));
            (q, q / config.queue_target)
        }
        Scaler::Ttft => {
            ttfts.sort_by(f64::total_cmp);
            let p = if ttfts.is_empty() {
                config.ttft_target
            } else {
                percentile_sorted(ttfts, 95.0)
            };
            (p, p / config.ttft_target)
        }
    };
    ttfts.clear();
    // Kubernetes' rule: desired = ceil(current × reading ÷ target), left
    // alone within the tolerance.
    let mut desired = if (ratio - 1.0).abs() <= TOLERANCE {
        ready.len() as u32
    } else {
        libm::ceil(n * ratio) as u32
    };
    let mut reading = reading;
    if scaler == Scaler::Predictive {
        // The forecast one cold start and one period ahead, sized at the
        // KV target: the count that will be needed when an order placed now
        // is ready.
        let ahead = config.rate_at(t + config.cold + config.period);
        let need = libm::ceil(ahead / (config.replica_rate() * config.kv_target)) as u32;
        reading = f64::from(need);
        desired = desired.max(need);
    }
    (reading, desired.clamp(config.min, config.max), kv)
}

impl ScalerLoop<'_> {
    /// The control loop, at the end of each period once warmed up: the
    /// scaler reads its signal (and the period's counters start again),
    /// then the pool grows or shrinks towards what it asked for.
    pub(super) fn control(&mut self, t: u32) {
        let config = self.config;
        if self.scaler == Scaler::Fixed || t + 1 < WARM_UP || (t + 1) % config.period != 0 {
            return;
        }
        let kv_now;
        (self.reading, self.desired, kv_now) =
            decide(config, self.scaler, &self.pool, t, &mut self.period_ttfts);
        for r in self.pool.iter_mut().flatten() {
            (r.busy, r.slots_used, r.counted) = (0, 0, 0);
        }
        self.asked.push_back((t, self.desired));
        while self
            .asked
            .front()
            .is_some_and(|&(s, _)| s + config.cooldown < t)
        {
            self.asked.pop_front();
        }
        let current = self
            .pool
            .iter()
            .flatten()
            .filter(|r| r.life != Life::Draining)
            .count() as u32;
        if self.desired > current {
            self.scale_out(t, current, kv_now);
        } else {
            self.scale_in(t, current);
        }
    }

    /// Order replicas, ready after the cold start, into free places first.
    /// Kubernetes' default scale-up policy: at most 4 replicas or 100% more
    /// per period, whichever is more.
    fn scale_out(&mut self, t: u32, current: u32, kv_now: f64) {
        let config = self.config;
        let count = (self.desired - current).min(current.max(4));
        let ready_at = t + 1 + config.cold;
        for _ in 0..count {
            let r = Replica::new(Life::Starting, ready_at, t, true);
            match self.pool.iter().position(Option::is_none) {
                Some(p) => self.pool[p] = Some(r),
                None => self.pool.push(Some(r)),
            }
        }
        if config.surge > 0.0 && t >= config.surge_at && self.reaction.is_none() {
            self.reaction = Some(t - config.surge_at);
        }
        if self.scaler == Scaler::Busy && kv_now < 0.5 {
            self.moments.note(Moment::Pinned {
                busy: self.reading,
                kv: kv_now,
            });
        }
        if t + self.lead >= config.surge_at {
            self.moments.note(Moment::Ordered { count, ready_at });
        }
    }

    /// Shrink only to the most asked for over the cooldown window.
    fn scale_in(&mut self, t: u32, current: u32) {
        let keep = self
            .asked
            .iter()
            .map(|&(_, d)| d)
            .max()
            .unwrap_or(self.desired);
        if keep < current {
            let count = drain(&mut self.pool, current - keep);
            if t >= self.surge_end && count > 0 {
                self.moments.note(Moment::ScaleIn { count });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::autoscale::sim::Arrival;

    /// Two replicas with 40 requests each against a queue target of 12 ask
    /// for 7; the control loop acts only at the end of a period, and then
    /// orders at most 4 at once (Kubernetes' scale-up policy), each ready
    /// after the cold start.
    #[test]
    fn control_orders_at_period_ends_within_the_scale_up_policy() {
        let config = Config::default();
        let reqs: [Arrival; 0] = [];
        let mut run = ScalerLoop::new(&config, Scaler::Queue, &reqs, false);
        run.pool.truncate(2);
        for r in run.pool.iter_mut().flatten() {
            r.waiting.extend(0..40);
        }
        let t = WARM_UP + config.period - 1;
        run.control(t - 1);
        assert_eq!(run.pool.len(), 2, "no decision between period ends");
        run.control(t);
        assert_eq!(run.desired, 7);
        let starting: Vec<u32> = run
            .pool
            .iter()
            .flatten()
            .filter(|r| r.life == Life::Starting)
            .map(|r| r.ready_at)
            .collect();
        assert_eq!(starting, alloc::vec![t + 1 + config.cold; 4]);
    }
}
