//! The autoscaling lab's replicas: one replica's queue, slots, prefill and
//! prefix cache, and the drain that takes replicas out of the pool. The
//! loop that runs them second by second is in `scaler_loop.rs`.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use super::config::Config;
use super::sim::{Arrival, Life, FRESH};

/// One replica.
pub(super) struct Replica {
    pub(super) life: Life,
    /// Second it became (or will become) ready.
    pub(super) ready_at: u32,
    /// Second it was ordered (0 for the starting pool).
    pub(super) ordered: u32,
    /// Whether it was ordered by the scaler (not one of the starting pool).
    pub(super) new: bool,
    pub(super) waiting: VecDeque<usize>,
    /// Admitted requests still prefilling, with their prefill left, seconds.
    pub(super) prefilling: VecDeque<(usize, f64)>,
    /// Seconds at which decoding requests end.
    pub(super) decoding: Vec<u32>,
    /// Cached prefixes, least recently used first.
    pub(super) cache: Vec<u32>,
    /// Requests taken since ready, and the fair share of them.
    pub(super) took: u32,
    pub(super) fair: f64,
    /// This period's busy seconds, slot-seconds and seconds counted.
    pub(super) busy: u32,
    pub(super) slots_used: u64,
    pub(super) counted: u32,
}

impl Replica {
    pub(super) fn new(life: Life, ready_at: u32, ordered: u32, new: bool) -> Replica {
        Replica {
            life,
            ready_at,
            ordered,
            new,
            waiting: VecDeque::new(),
            prefilling: VecDeque::new(),
            decoding: Vec::new(),
            cache: Vec::new(),
            took: 0,
            fair: 0.0,
            busy: 0,
            slots_used: 0,
            counted: 0,
        }
    }

    pub(super) fn running(&self) -> u32 {
        (self.prefilling.len() + self.decoding.len()) as u32
    }

    pub(super) fn outstanding(&self) -> u32 {
        self.running() + self.waiting.len() as u32
    }

    pub(super) fn holds(&self, group: u32) -> bool {
        self.cache.contains(&group)
    }

    pub(super) fn fresh(&self, t: u32) -> bool {
        self.new && self.life == Life::Ready && t - self.ready_at < FRESH
    }

    /// Still ramping up under slow start.
    pub(super) fn ramping(&self, t: u32, slow_start: u32) -> bool {
        self.new && self.life == Life::Ready && t - self.ready_at < slow_start
    }

    /// Move waiting requests into free slots, in arrival order. Each looks
    /// its prefix up in the cache as it is admitted (and becomes its most
    /// recently used entry), which sets its prefill work: a hit costs only
    /// `hit_cost` of a miss.
    pub(super) fn admit(&mut self, config: &Config, reqs: &[Arrival]) {
        while self.running() < config.slots {
            let Some(i) = self.waiting.pop_front() else {
                break;
            };
            let g = reqs[i].group;
            let hit = self.holds(g);
            self.cache.retain(|&x| x != g);
            self.cache.push(g);
            if self.cache.len() > config.cache as usize {
                self.cache.remove(0);
            }
            let work = if hit {
                config.prefill * config.hit_cost
            } else {
                config.prefill
            };
            self.prefilling.push_back((i, work));
        }
    }

    /// Spend second `t`'s one second of prefill on admitted requests, one
    /// at a time (prefill is compute-bound: batching gains it little). A
    /// request whose prefill ends starts decoding next second; `first_token`
    /// is told its index and its TTFT, which counts the share of this second
    /// its prefill took.
    pub(super) fn prefill(
        &mut self,
        t: u32,
        reqs: &[Arrival],
        mut first_token: impl FnMut(usize, f64),
    ) {
        let mut budget = 1.0;
        while budget > 0.0 {
            let Some(front) = self.prefilling.front_mut() else {
                break;
            };
            if front.1 > budget {
                front.1 -= budget;
                break;
            }
            budget -= front.1;
            let i = front.0;
            self.prefilling.pop_front();
            let at = f64::from(t - reqs[i].tick) + (1.0 - budget);
            first_token(i, at);
            self.decoding.push(t + 1 + reqs[i].decode);
        }
    }
}

/// Drain `count` replicas: starting ones first (cancelled at once), then
/// the most recently ready. Returns how many were drained or cancelled.
pub(super) fn drain(pool: &mut [Option<Replica>], count: u32) -> u32 {
    let mut done = 0;
    while done < count {
        let starting = pool
            .iter()
            .rposition(|r| r.as_ref().is_some_and(|r| r.life == Life::Starting));
        if let Some(p) = starting {
            pool[p] = None;
            done += 1;
            continue;
        }
        let newest = (0..pool.len())
            .filter(|&p| pool[p].as_ref().is_some_and(|r| r.life == Life::Ready))
            .max_by_key(|&p| (pool[p].as_ref().map_or(0, |r| r.ready_at), p));
        let ready = pool
            .iter()
            .flatten()
            .filter(|r| r.life == Life::Ready)
            .count();
        match newest {
            Some(p) if ready > 1 => {
                if let Some(r) = pool[p].as_mut() {
                    r.life = Life::Draining;
                }
                done += 1;
            }
            _ => break,
        }
    }
    done
}
