//! The autoscaling lab's gateway: each second's arrivals routed to the
//! ready replicas by the gateway rule, with slow start's lottery for
//! replicas still ramping up.

use alloc::vec::Vec;

use super::config::{Config, Router};
use super::pool::Replica;
use super::scaler_loop::ScalerLoop;
use super::sim::Life;

/// The replica `rule` picks among `places` (never empty).
pub(super) fn pick(
    config: &Config,
    pool: &[Option<Replica>],
    places: &[usize],
    group: u32,
) -> usize {
    let load = |p: usize| pool[p].as_ref().map_or(u32::MAX, Replica::outstanding);
    let least = places
        .iter()
        .copied()
        .min_by_key(|&p| (load(p), p))
        .unwrap_or(0);
    if config.router == Router::LeastOutstanding {
        return least;
    }
    // Prefix-aware (SGLang's cache-aware rule in one line): the least busy
    // replica holding the prefix, unless it is `balance` requests busier
    // than the least busy replica of all.
    let holder = places
        .iter()
        .copied()
        .filter(|&p| pool[p].as_ref().is_some_and(|r| r.holds(group)))
        .min_by_key(|&p| (load(p), p));
    match holder {
        Some(h) if load(h) <= load(least) + config.balance => h,
        _ => least,
    }
}

/// Who may take this second's arrivals. Which replicas are fresh or
/// ramping, and the rest, stay the same through the second: worked out
/// once, not per arrival.
struct Targets {
    /// Ready replicas.
    places: Vec<usize>,
    /// Ready replicas within [`FRESH`](super::FRESH) seconds of becoming ready.
    fresh: Vec<usize>,
    /// Ready replicas still under slow start.
    ramping: Vec<usize>,
    /// Ready replicas past slow start.
    steady: Vec<usize>,
    /// Ready replicas counted for fair shares (at least 1).
    n: f64,
}

impl ScalerLoop<'_> {
    /// The ready replicas at `t`, sorted into fresh, ramping and steady.
    fn targets(&self, t: u32) -> Targets {
        let pool = &self.pool;
        let places: Vec<usize> = (0..pool.len())
            .filter(|&p| pool[p].as_ref().is_some_and(|r| r.life == Life::Ready))
            .collect();
        let n = places.len().max(1) as f64;
        let fresh: Vec<usize> = places
            .iter()
            .copied()
            .filter(|&p| pool[p].as_ref().is_some_and(|r| r.fresh(t)))
            .collect();
        let ramping: Vec<usize> = places
            .iter()
            .copied()
            .filter(|&p| {
                pool[p]
                    .as_ref()
                    .is_some_and(|r| r.ramping(t, self.config.slow_start))
            })
            .collect();
        let steady: Vec<usize> = places
            .iter()
            .copied()
            .filter(|p| !ramping.contains(p))
            .collect();
        Targets {
            places,
            fresh,
            ramping,
            steady,
            n,
        }
    }

    /// Slow start (Envoy's, reduced to a lottery): a ramping replica takes
    /// the request with probability (age ÷ window) ÷ replicas, and is
    /// otherwise left out of the rule's choice, so its share climbs from
    /// nothing to a fair one over the window. One draw per arrival while
    /// any replica ramps.
    fn lottery(&mut self, t: u32, targets: &Targets) -> Option<usize> {
        if targets.ramping.is_empty() {
            return None;
        }
        let mut u = self.tie.unit();
        for &p in &targets.ramping {
            let age = self.pool[p].as_ref().map_or(0, |r| t - r.ready_at);
            let w = f64::from(age.max(1)) / f64::from(self.config.slow_start) / targets.n;
            if u < w {
                return Some(p);
            }
            u -= w;
        }
        None
    }

    /// Route second `t`'s arrivals, each to one replica's queue, counting
    /// what fresh replicas took against their fair share. Returns the
    /// requests sent to each place and how many arrived.
    pub(super) fn route(&mut self, t: u32) -> (Vec<u32>, u32) {
        let targets = self.targets(t);
        let mut sent = alloc::vec![0u32; self.pool.len()];
        let first = self.next;
        let candidates = if targets.steady.is_empty() {
            &targets.places
        } else {
            &targets.steady
        };
        while self.next < self.reqs.len() && self.reqs[self.next].tick == t {
            let req = self.reqs[self.next];
            let chosen = self.lottery(t, &targets);
            let p = chosen.unwrap_or_else(|| pick(self.config, &self.pool, candidates, req.group));
            let fresh = &targets.fresh;
            if !fresh.is_empty() {
                self.fresh_fair += fresh.len() as f64 / targets.n;
                if fresh.contains(&p) {
                    self.fresh_took += 1.0;
                    self.to_fresh[self.next] = true;
                }
            }
            for &q in fresh {
                if let Some(r) = self.pool[q].as_mut() {
                    r.fair += 1.0 / targets.n;
                }
            }
            if let Some(r) = self.pool.get_mut(p).and_then(Option::as_mut) {
                r.waiting.push_back(self.next);
                r.took += 1;
            }
            if let Some(s) = sent.get_mut(p) {
                *s += 1;
            }
            self.next += 1;
        }
        (sent, (self.next - first) as u32)
    }
}
