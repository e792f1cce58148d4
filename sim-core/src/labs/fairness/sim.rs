//! The fairness lab's iterations: one engine, the tenants' queues, one
//! scheduler.
//!
//! Each iteration, in order: requests that finished leave their slots (a
//! steady client sends its next request, a burst arrives on its tick); the
//! scheduler fills free slots (under strict priority, an interactive request
//! with every slot busy evicts the newest batch sequence, which starts over);
//! then the iteration runs: every decoding sequence makes one output token,
//! and the rest of the token budget goes to prompt chunks in admission
//! order. A request's first token comes in the iteration after its prompt is
//! done. Admission looks the tenant's shared prefix up in the prefix cache
//! (least recently used out first; entries of running sequences stay).
//!
//! This file holds the requests, the prefix cache and what a run gives; the
//! loop is `scheduler_loop.rs`, one method per phase of an iteration
//! (arrivals, windows sliding, the batch's iteration, finished requests
//! leaving, the player's snapshot), with the scheduler's own phases
//! (eviction and filling free slots) in `scheduling.rs`.

use alloc::vec::Vec;

use super::config::{Config, Scheduler, Shape};
use super::outcome::{SchedulerRun, TenantRun};
use super::scheduler_loop::SchedulerLoop;
use crate::params::{Configurable, ParamError};
use crate::rng::Rng;
use crate::stats::percentile_sorted;

/// A request waiting or running.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request {
    pub(super) tenant: usize,
    pub(super) arrived: u32,
    /// Prompt tokens after the shared prefix.
    pub(super) prompt: u32,
    pub(super) output: u32,
    /// Its first token has been sent (a preempted request that starts over
    /// does not have a second time to first token).
    pub(super) answered: bool,
}

/// A request in a slot.
#[derive(Clone, Copy, Debug)]
pub(super) struct Running {
    pub(super) req: Request,
    pub(super) admitted: u32,
    /// Prompt tokens still to compute.
    pub(super) prefill_left: u32,
    /// Output tokens made.
    pub(super) made: u32,
    /// Cache key of its tenant's shared prefix, if it has one.
    pub(super) prefix_key: Option<u64>,
    /// Cache key of its own prompt.
    pub(super) private_key: u64,
    /// Its shared prompt came from the cache.
    pub(super) cached: bool,
}

/// The prefix cache: shared prefixes and private prompts, least recently
/// used out first; entries in use stay.
pub(super) struct Cache {
    pub(super) capacity: u64,
    /// (key, tokens, last use, users); key 0.. are tenants' prefixes, other
    /// keys private prompts.
    pub(super) entries: Vec<(u64, u64, u32, u32)>,
    /// Tokens held, the sum of the entries' (kept, not summed per eviction).
    pub(super) used: u64,
}

impl Cache {
    /// Look `key` up and mark it in use; insert it if absent. Returns
    /// whether it was there.
    pub(super) fn touch(&mut self, key: u64, tokens: u64, now: u32) -> bool {
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == key) {
            e.2 = now;
            e.3 += 1;
            return true;
        }
        self.entries.push((key, tokens, now, 1));
        self.used += tokens;
        self.evict();
        false
    }

    /// Whether `key` is cached.
    pub(super) fn holds(&self, key: u64) -> bool {
        self.entries.iter().any(|e| e.0 == key)
    }

    fn release(&mut self, key: u64) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.0 == key) {
            e.3 = e.3.saturating_sub(1);
        }
        self.evict();
    }

    fn evict(&mut self) {
        while self.used > self.capacity {
            let victim = self
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.3 == 0)
                .min_by_key(|(_, e)| e.2)
                .map(|(i, _)| i);
            match victim {
                Some(i) => {
                    self.used -= self.entries.swap_remove(i).1;
                }
                None => break,
            }
        }
    }
}

/// Draw a length around `mean`.
pub(super) fn length(rng: &mut Rng, mean: u32, spread: f64) -> u32 {
    if mean == 0 {
        return 0;
    }
    libm::round(rng.gamma_mean_cv(f64::from(mean), spread)).max(1.0) as u32
}

/// Run `scheduler` over the tenants of `config`; with `record`, keep a
/// snapshot of every iteration.
fn run_scheduler(config: &Config, scheduler: Scheduler, record: bool) -> SchedulerRun {
    let mut run = SchedulerLoop::new(config, scheduler, record);
    for now in 0..config.ticks {
        run.iteration(now);
    }
    run.finish()
}

/// What a run gives, read off the loop's state once every iteration ran.
impl SchedulerLoop<'_> {
    fn finish(mut self) -> SchedulerRun {
        let config = self.config;
        let unfinished = self.queues.iter().map(|q| q.len() as u32).sum::<u32>()
            + self.slots.iter().flatten().count() as u32;
        // A request still without its first token counts with its wait so
        // far, a lower bound: leaving it out would let a starved tenant show
        // a small TTFT, or none.
        let waits = self
            .queues
            .iter()
            .flatten()
            .copied()
            .chain(self.slots.iter().flatten().map(|s| s.req))
            .filter(|r| !r.answered);
        for r in waits {
            self.ttft[r.tenant].push(f64::from(config.ticks - r.arrived));
        }
        let total_finished: u32 = self.finished.iter().sum();
        let total_gpu: f64 = self.gpu.iter().sum();
        let ticks = f64::from(config.ticks.max(1));
        let tenants = (0..self.shapes.len())
            .map(|t| {
                let mut v = self.ttft[t].clone();
                v.sort_by(f64::total_cmp);
                TenantRun {
                    finished: self.finished[t],
                    request_share: share(f64::from(self.finished[t]), f64::from(total_finished)),
                    service: self.service[t] / ticks,
                    gpu_share: share(self.gpu[t], total_gpu),
                    ttft_p95: percentile_sorted(&v, 95.0),
                    cache_share: share(self.cached_tokens[t] as f64, self.prompt_tokens[t] as f64),
                    preempted: self.preempted[t],
                }
            })
            .collect();
        SchedulerRun {
            scheduler: self.scheduler,
            tenants,
            cache_share: share(
                self.cached_tokens.iter().sum::<u64>() as f64,
                self.prompt_tokens.iter().sum::<u64>() as f64,
            ),
            first_preemption: self.first_preemption,
            arrived: self.arrived,
            unfinished,
            timeline: self.record.then_some(self.timeline),
        }
    }
}

fn share(x: f64, of: f64) -> f64 {
    if of > 0.0 {
        x / of
    } else {
        0.0
    }
}

/// Release what a running request held in the cache (it stays cached
/// until evicted).
pub(super) fn release(cache: &mut Cache, run: &Running) {
    if let Some(k) = run.prefix_key {
        cache.release(k);
    }
    cache.release(run.private_key);
}

/// Run every scheduler in `schedulers` on the same tenants, recording the
/// timeline of those in `record`.
pub fn run_schedulers(
    config: &Config,
    schedulers: &[Scheduler],
    record: &[Scheduler],
) -> Result<Vec<SchedulerRun>, ParamError> {
    config.validate()?;
    Ok(schedulers
        .iter()
        .map(|&s| run_scheduler(config, s, record.contains(&s)))
        .collect())
}

/// Prompt tokens `run` had to compute when admitted (its shared prompt not
/// counted when it came from the cache).
pub(super) fn prefill_of(run: &Running, shapes: &[Shape]) -> u32 {
    let prefix = shapes[run.req.tenant].prefix;
    run.req.prompt + if run.cached { 0 } else { prefix }
}
