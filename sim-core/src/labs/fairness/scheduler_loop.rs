//! One scheduler's run, iteration by iteration, in named phases (their
//! order is in `sim.rs`): each phase is a method of [`SchedulerLoop`],
//! which holds what the run carries from iteration to iteration, so a
//! phase can be read, and tested, on its own. The scheduler's own phases
//! (eviction under strict priority, filling free slots) are in
//! `scheduling.rs`; the run's figures are read off in `sim.rs`.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::config::{Config, Scheduler, Shape};
use super::outcome::{Moment, Seat, Snapshot};
use super::scheduling::key;
use super::sim::{length, release, Cache, Request, Running};
use crate::rng::{stream, Rng};

/// What one scheduler's run carries from iteration to iteration.
pub(super) struct SchedulerLoop<'a> {
    pub(super) config: &'a Config,
    pub(super) scheduler: Scheduler,
    pub(super) shapes: &'a [Shape],
    pub(super) record: bool,
    /// Prompt and output lengths, drawn as requests are made.
    pub(super) rng: Rng,
    /// Open arrivals' counts.
    pub(super) arrive: Rng,
    /// Each tenant's waiting requests, oldest first.
    pub(super) queues: Vec<VecDeque<Request>>,
    pub(super) slots: Vec<Option<Running>>,
    pub(super) cache: Cache,
    /// The next private prompt's cache key (keys below are tenants'
    /// prefixes).
    pub(super) next_key: u64,
    /// Per tenant: the window's log of (tick, tokens) and of admissions.
    pub(super) log: Vec<VecDeque<(u32, f64)>>,
    pub(super) admitted_log: Vec<VecDeque<u32>>,
    /// Tokens within the window per tenant: `log`'s sums, kept as it slides
    /// (whole numbers, so the f64 sums are exact).
    pub(super) window_tokens: Vec<f64>,
    /// Per tenant: VTC's counter, service received (weighted tokens), GPU
    /// time, requests finished, prompt tokens admitted and those cached,
    /// TTFTs, and preemptions suffered.
    pub(super) vtc: Vec<f64>,
    pub(super) service: Vec<f64>,
    pub(super) gpu: Vec<f64>,
    pub(super) finished: Vec<u32>,
    pub(super) prompt_tokens: Vec<u64>,
    pub(super) cached_tokens: Vec<u64>,
    pub(super) ttft: Vec<Vec<f64>>,
    pub(super) preempted: Vec<u32>,
    pub(super) first_preemption: Option<u32>,
    pub(super) arrived: u32,
    pub(super) timeline: Vec<Snapshot>,
    /// First-of-kind moments seen, and when the shared prefix last hit.
    pub(super) overtook: bool,
    pub(super) missed: bool,
    pub(super) lost_work: bool,
    pub(super) last_hit: Option<u32>,
    /// This iteration's moment, eviction and admissions (the player's).
    pub(super) moment: Option<Moment>,
    pub(super) evicted: Option<u32>,
    pub(super) admitted_now: Vec<u32>,
}

impl<'a> SchedulerLoop<'a> {
    /// The run before its first iteration: each steady tenant's clients
    /// have sent their first requests.
    pub(super) fn new(config: &'a Config, scheduler: Scheduler, record: bool) -> Self {
        let shapes: &[Shape] = config.shapes();
        let n = shapes.len();
        let mut run = SchedulerLoop {
            config,
            scheduler,
            shapes,
            record,
            rng: Rng::new(config.seed, stream::PROMPTS),
            arrive: Rng::new(config.seed, stream::ARRIVALS),
            queues: vec![VecDeque::new(); n],
            slots: vec![None; config.slots as usize],
            cache: Cache {
                capacity: config.cache.into(),
                entries: Vec::new(),
                used: 0,
            },
            next_key: 1000,
            log: vec![VecDeque::new(); n],
            admitted_log: vec![VecDeque::new(); n],
            window_tokens: vec![0.0; n],
            vtc: vec![0.0; n],
            service: vec![0.0; n],
            gpu: vec![0.0; n],
            finished: vec![0; n],
            prompt_tokens: vec![0; n],
            cached_tokens: vec![0; n],
            ttft: vec![Vec::new(); n],
            preempted: vec![0; n],
            first_preemption: None,
            arrived: 0,
            timeline: Vec::new(),
            overtook: false,
            missed: false,
            lost_work: false,
            last_hit: None,
            moment: None,
            evicted: None,
            admitted_now: Vec::new(),
        };
        for (t, s) in shapes.iter().enumerate() {
            if s.burst == 0 && s.rate == 0.0 {
                for _ in 0..config.clients {
                    let r = run.request(t, 0);
                    run.queues[t].push_back(r);
                }
            }
        }
        run.arrived = run.queues.iter().map(|q| q.len() as u32).sum::<u32>();
        run
    }

    /// A new request of tenant `t`, sent at `now`: its lengths drawn
    /// around the tenant's means, prompt first.
    pub(super) fn request(&mut self, tenant: usize, now: u32) -> Request {
        let shape = &self.shapes[tenant];
        Request {
            tenant,
            arrived: now,
            prompt: length(&mut self.rng, shape.prompt, self.config.spread),
            output: length(&mut self.rng, shape.output, self.config.spread),
            answered: false,
        }
    }

    /// Iteration `now`, phase by phase in the lab's fixed order.
    pub(super) fn iteration(&mut self, now: u32) {
        self.moment = None;
        self.evicted = None;
        self.admitted_now = Vec::new();
        self.arrivals(now);
        self.slide(now);
        self.preempt(now);
        let keys: Vec<f64> = if self.record {
            (0..self.shapes.len()).map(|t| self.key(t)).collect()
        } else {
            Vec::new()
        };
        self.fill(now);
        self.run_batch(now);
        self.leave(now);
        if self.record {
            self.snapshot(keys);
        }
    }

    /// Tenant `t`'s key under the run's scheduler (lowest goes first).
    fn key(&self, t: usize) -> f64 {
        key(
            self.scheduler,
            self.shapes,
            t,
            &self.window_tokens,
            &self.admitted_log,
            &self.vtc,
        )
    }

    /// Bursts on their ticks and open arrivals: a tenant that starts
    /// waiting again has its VTC counter lifted first.
    fn arrivals(&mut self, now: u32) {
        for (t, s) in self.shapes.iter().enumerate() {
            let mut k = if s.burst > 0 && now % self.config.every.max(1) == 0 {
                s.burst
            } else {
                0
            };
            if s.rate > 0.0 {
                k += self.arrive.poisson(s.rate);
            }
            if k > 0 {
                lift(&mut self.vtc, &self.queues, t);
            }
            for _ in 0..k {
                let r = self.request(t, now);
                self.queues[t].push_back(r);
            }
            self.arrived += k;
        }
    }

    /// Request and token fairness count over a window: entries older than
    /// it leave the logs (and the token sums).
    fn slide(&mut self, now: u32) {
        let window = self.config.window;
        for t in 0..self.shapes.len() {
            let log = &mut self.log[t];
            while log.front().is_some_and(|&(at, _)| at + window <= now) {
                if let Some((_, x)) = log.pop_front() {
                    self.window_tokens[t] -= x;
                }
            }
            let admitted = &mut self.admitted_log[t];
            while admitted.front().is_some_and(|&at| at + window <= now) {
                admitted.pop_front();
            }
        }
    }

    /// The iteration: every decoding sequence makes one output token first,
    /// then the rest of the token budget goes to prompt chunks in
    /// admission order. A request's first token is counted in the
    /// iteration after its prompt is done.
    fn run_batch(&mut self, now: u32) {
        let config = self.config;
        let mut budget = config.budget;
        for s in self.slots.iter_mut().flatten() {
            if s.prefill_left == 0 && budget > 0 {
                budget -= 1;
                s.made += 1;
                let t = s.req.tenant;
                self.vtc[t] += config.w_out;
                self.service[t] += config.w_out;
                self.gpu[t] += config.decode_cost;
                self.log[t].push_back((now, 1.0));
                self.window_tokens[t] += 1.0;
                if !s.req.answered {
                    s.req.answered = true;
                    self.ttft[t].push(f64::from(now + 1 - s.req.arrived));
                }
            }
        }
        let slots = &mut self.slots;
        let mut order: Vec<usize> = (0..slots.len())
            .filter(|&i| slots[i].is_some_and(|s| s.prefill_left > 0))
            .collect();
        order.sort_by_key(|&i| slots[i].map_or(0, |s| s.admitted));
        for i in order {
            if budget == 0 {
                break;
            }
            if let Some(s) = slots[i].as_mut() {
                let chunk = s.prefill_left.min(budget);
                s.prefill_left -= chunk;
                budget -= chunk;
                self.gpu[s.req.tenant] += f64::from(chunk);
            }
        }
    }

    /// Finished requests leave their slots (their cache entries stay until
    /// evicted); a steady client sends its next request, dated the next
    /// iteration.
    fn leave(&mut self, now: u32) {
        for i in 0..self.slots.len() {
            let Some(s) = self.slots[i] else { continue };
            if s.prefill_left == 0 && s.made >= s.req.output {
                let t = s.req.tenant;
                self.finished[t] += 1;
                release(&mut self.cache, &s);
                self.slots[i] = None;
                let shape = &self.shapes[t];
                if shape.burst == 0 && shape.rate == 0.0 {
                    lift(&mut self.vtc, &self.queues, t);
                    let r = self.request(t, now + 1);
                    self.queues[t].push_back(r);
                    self.arrived += 1;
                }
            }
        }
    }

    /// The engine after this iteration, for the player.
    fn snapshot(&mut self, keys: Vec<f64>) {
        let cache = &self.cache;
        self.timeline.push(Snapshot {
            waiting: self.queues.iter().map(|q| q.len() as u32).collect(),
            slots: self
                .slots
                .iter()
                .map(|s| {
                    s.map(|s| Seat {
                        tenant: s.req.tenant as u32,
                        prefilling: s.prefill_left > 0,
                        cached: s.cached,
                    })
                })
                .collect(),
            admitted: core::mem::take(&mut self.admitted_now),
            evicted: self.evicted,
            keys,
            service: self.service.clone(),
            gpu: self.gpu.clone(),
            prefix_cached: self
                .shapes
                .iter()
                .position(|s| s.prefix > 0)
                .is_some_and(|t| cache.holds(t as u64)),
            moment: self.moment,
        });
    }
}

/// VTC's rule for a tenant that starts waiting again: its counter is lifted
/// to the least counter among tenants already waiting, so time spent idle
/// is not banked as credit (Sheng et al., OSDI 2024, §4).
fn lift(vtc: &mut [f64], queues: &[VecDeque<Request>], t: usize) {
    if !queues[t].is_empty() {
        return;
    }
    let least = (0..queues.len())
        .filter(|&u| u != t && !queues[u].is_empty())
        .map(|u| vtc[u])
        .fold(f64::INFINITY, f64::min);
    if least.is_finite() && least > vtc[t] {
        vtc[t] = least;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(tenant: usize, admitted: u32, prefill_left: u32) -> Option<Running> {
        Some(Running {
            req: Request {
                tenant,
                arrived: 0,
                prompt: 10,
                output: 5,
                answered: false,
            },
            admitted,
            prefill_left,
            made: 0,
            prefix_key: None,
            private_key: 1,
            cached: false,
        })
    }

    /// A budget of 16: the decoding sequence takes its one token first (its
    /// first, so its TTFT is counted), then prompt chunks go in admission
    /// order, the older sequence whole and the newer what is left.
    #[test]
    fn an_iteration_decodes_first_then_chunks_prompts_oldest_first() {
        let config = Config {
            budget: 16,
            ..Config::default()
        };
        let mut run = SchedulerLoop::new(&config, Scheduler::Fcfs, false);
        run.slots = vec![running(0, 1, 0), running(1, 3, 10), running(2, 2, 10), None];
        run.run_batch(7);
        let s = |i: usize| run.slots[i].expect("still running");
        assert_eq!((s(0).made, s(1).prefill_left, s(2).prefill_left), (1, 5, 0));
        assert!(s(0).req.answered);
        assert_eq!(run.ttft[0], vec![8.0]);
        assert_eq!(run.gpu[..3], [config.decode_cost, 5.0, 10.0]);
        assert_eq!(run.vtc[0], config.w_out);
    }
}
