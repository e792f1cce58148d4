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

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::config::{Config, Scheduler, Shape};
use super::outcome::{Moment, SchedulerRun, Seat, Snapshot, TenantRun};
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;

/// A request waiting or running.
#[derive(Clone, Copy, Debug)]
struct Request {
    tenant: usize,
    arrived: u32,
    /// Prompt tokens after the shared prefix.
    prompt: u32,
    output: u32,
    /// Its first token has been sent (a preempted request that starts over
    /// does not have a second time to first token).
    answered: bool,
}

/// A request in a slot.
#[derive(Clone, Copy, Debug)]
struct Running {
    req: Request,
    admitted: u32,
    /// Prompt tokens still to compute.
    prefill_left: u32,
    /// Output tokens made.
    made: u32,
    /// Cache key of its tenant's shared prefix, if it has one.
    prefix_key: Option<u64>,
    /// Cache key of its own prompt.
    private_key: u64,
    /// Its shared prompt came from the cache.
    cached: bool,
}

/// The prefix cache: shared prefixes and private prompts, least recently
/// used out first; entries in use stay.
struct Cache {
    capacity: u64,
    /// (key, tokens, last use, users); key 0.. are tenants' prefixes, other
    /// keys private prompts.
    entries: Vec<(u64, u64, u32, u32)>,
    /// Tokens held, the sum of the entries' (kept, not summed per eviction).
    used: u64,
}

impl Cache {
    /// Look `key` up and mark it in use; insert it if absent. Returns
    /// whether it was there.
    fn touch(&mut self, key: u64, tokens: u64, now: u32) -> bool {
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
    fn holds(&self, key: u64) -> bool {
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
fn length(rng: &mut Rng, mean: u32, spread: f64) -> u32 {
    if mean == 0 {
        return 0;
    }
    libm::round(rng.gamma_mean_cv(f64::from(mean), spread)).max(1.0) as u32
}

/// Run `scheduler` over the tenants of `config`; with `record`, keep a
/// snapshot of every iteration.
fn run_scheduler(config: &Config, scheduler: Scheduler, record: bool) -> SchedulerRun {
    let shapes: &[Shape] = config.shapes();
    let n = shapes.len();
    let mut rng = Rng::new(config.seed, stream::PROMPTS);
    let new_req = |tenant: usize, now: u32, rng: &mut Rng| Request {
        tenant,
        arrived: now,
        prompt: length(rng, shapes[tenant].prompt, config.spread),
        output: length(rng, shapes[tenant].output, config.spread),
        answered: false,
    };
    let mut queues: Vec<VecDeque<Request>> = vec![VecDeque::new(); n];
    let mut arrive = Rng::new(config.seed, stream::ARRIVALS);
    for (t, s) in shapes.iter().enumerate() {
        if s.burst == 0 && s.rate == 0.0 {
            for _ in 0..config.clients {
                let r = new_req(t, 0, &mut rng);
                queues[t].push_back(r);
            }
        }
    }
    let mut slots: Vec<Option<Running>> = vec![None; config.slots as usize];
    let mut cache = Cache {
        capacity: config.cache.into(),
        entries: Vec::new(),
        used: 0,
    };
    let mut next_key = 1000u64;
    // Per tenant: window log of (tick, requests, tokens); VTC counters.
    let mut log: Vec<VecDeque<(u32, f64)>> = vec![VecDeque::new(); n];
    let mut admitted_log: Vec<VecDeque<u32>> = vec![VecDeque::new(); n];
    // Tokens within the window per tenant: `log`'s sums, kept as it slides
    // (whole numbers, so the f64 sums are exact).
    let mut window_tokens = vec![0.0f64; n];
    let mut vtc = vec![0.0f64; n];
    let mut service = vec![0.0f64; n];
    let mut gpu = vec![0.0f64; n];
    let mut finished = vec![0u32; n];
    let mut prompt_tokens = vec![0u64; n];
    let mut cached_tokens = vec![0u64; n];
    let mut ttft: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut preempted = vec![0u32; n];
    let mut first_preemption = None;
    let mut arrived = queues.iter().map(|q| q.len() as u32).sum::<u32>();
    let mut timeline = Vec::new();
    // First-of-kind moments seen, and when the shared prefix last hit.
    let (mut overtook, mut missed, mut lost_work) = (false, false, false);
    let mut last_hit: Option<u32> = None;
    for now in 0..config.ticks {
        let mut moment = None;
        let mut evicted = None;
        let mut admitted_now: Vec<u32> = Vec::new();
        // Bursts and open arrivals.
        for (t, s) in shapes.iter().enumerate() {
            let mut k = if s.burst > 0 && now % config.every.max(1) == 0 {
                s.burst
            } else {
                0
            };
            if s.rate > 0.0 {
                k += arrive.poisson(s.rate);
            }
            if k > 0 {
                lift(&mut vtc, &queues, t);
            }
            for _ in 0..k {
                let r = new_req(t, now, &mut rng);
                queues[t].push_back(r);
            }
            arrived += k;
        }
        // Windows slide.
        for t in 0..n {
            while log[t]
                .front()
                .is_some_and(|&(at, _)| at + config.window <= now)
            {
                if let Some((_, x)) = log[t].pop_front() {
                    window_tokens[t] -= x;
                }
            }
            while admitted_log[t]
                .front()
                .is_some_and(|&at| at + config.window <= now)
            {
                admitted_log[t].pop_front();
            }
        }
        // Strict priority: an interactive request with every slot busy
        // evicts the newest batch sequence, which starts over.
        if scheduler == Scheduler::Priority && slots.iter().all(Option::is_some) {
            let waiting = (0..n).any(|t| shapes[t].interactive && !queues[t].is_empty());
            let victim = slots
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.map(|s| (i, s)))
                .filter(|(_, s)| !shapes[s.req.tenant].interactive)
                .max_by_key(|(_, s)| s.admitted)
                .map(|(i, _)| i);
            if let (true, Some(i)) = (waiting, victim) {
                if let Some(run) = slots[i].take() {
                    release(&mut cache, &run);
                    preempted[run.req.tenant] += 1;
                    first_preemption.get_or_insert(now);
                    evicted = Some(run.req.tenant as u32);
                    // The player stops at the first eviction that throws
                    // computed work away (an earlier victim may not have
                    // had a prompt chunk yet).
                    let lost = prefill_of(&run, shapes) - run.prefill_left + run.made;
                    if lost > 0 && !lost_work {
                        lost_work = true;
                        let by = (0..n).find(|&t| shapes[t].interactive && !queues[t].is_empty());
                        moment = Some(Moment::Preemption {
                            victim: run.req.tenant as u32,
                            by: by.unwrap_or(0) as u32,
                            lost,
                        });
                    }
                    queues[run.req.tenant].push_front(run.req);
                }
            }
        }
        let keys: Vec<f64> = if record {
            (0..n)
                .map(|t| key(scheduler, shapes, t, &window_tokens, &admitted_log, &vtc))
                .collect()
        } else {
            Vec::new()
        };
        // Fill free slots.
        for slot in slots.iter_mut() {
            if slot.is_some() {
                continue;
            }
            let Some(t) = pick(
                scheduler,
                shapes,
                &queues,
                &window_tokens,
                &admitted_log,
                &vtc,
            ) else {
                break;
            };
            // The oldest head request another tenant had waiting.
            let oldest_other = (0..n)
                .filter(|&u| u != t)
                .filter_map(|u| queues[u].front().map(|r| (u, r.arrived)))
                .min_by_key(|&(_, at)| at);
            let Some(req) = queues[t].pop_front() else {
                break;
            };
            if let Some((u, at)) = oldest_other {
                if at < req.arrived && !overtook && moment.is_none() {
                    overtook = true;
                    moment = Some(Moment::Overtake {
                        picked: t as u32,
                        passed: u as u32,
                        older: req.arrived - at,
                    });
                }
            }
            admitted_now.push(t as u32);
            let s = &shapes[t];
            let hit = s.prefix > 0 && cache.touch(t as u64, s.prefix.into(), now);
            if s.prefix > 0 {
                if hit {
                    last_hit = Some(now);
                } else if let (Some(at), false, None) = (last_hit, missed, &moment) {
                    missed = true;
                    moment = Some(Moment::PrefixMiss {
                        since: now - at,
                        tokens: s.prefix,
                    });
                }
            }
            let private_key = next_key;
            next_key += 1;
            cache.touch(private_key, req.prompt.into(), now);
            let cached = if hit { s.prefix } else { 0 };
            prompt_tokens[t] += u64::from(req.prompt + s.prefix);
            cached_tokens[t] += u64::from(cached);
            admitted_log[t].push_back(now);
            let input = f64::from(req.prompt + s.prefix);
            // TPM counts the whole prompt when it is admitted; VTC charges
            // input tokens too (cached ones included, as the paper does).
            log[t].push_back((now, input));
            window_tokens[t] += input;
            vtc[t] += config.w_in * input;
            service[t] += config.w_in * input;
            *slot = Some(Running {
                req,
                admitted: now,
                prefill_left: req.prompt + s.prefix - cached,
                made: 0,
                prefix_key: (s.prefix > 0).then_some(t as u64),
                private_key,
                cached: hit,
            });
        }
        // The iteration: decode first, then prompt chunks.
        let mut budget = config.budget;
        for s in slots.iter_mut().flatten() {
            if s.prefill_left == 0 && budget > 0 {
                budget -= 1;
                s.made += 1;
                let t = s.req.tenant;
                vtc[t] += config.w_out;
                service[t] += config.w_out;
                gpu[t] += config.decode_cost;
                log[t].push_back((now, 1.0));
                window_tokens[t] += 1.0;
                if !s.req.answered {
                    s.req.answered = true;
                    ttft[t].push(f64::from(now + 1 - s.req.arrived));
                }
            }
        }
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
                gpu[s.req.tenant] += f64::from(chunk);
            }
        }
        // Finished requests leave; a steady client sends its next one.
        for slot in slots.iter_mut() {
            let Some(s) = *slot else { continue };
            if s.prefill_left == 0 && s.made >= s.req.output {
                let t = s.req.tenant;
                finished[t] += 1;
                release(&mut cache, &s);
                *slot = None;
                if shapes[t].burst == 0 && shapes[t].rate == 0.0 {
                    lift(&mut vtc, &queues, t);
                    let r = new_req(t, now + 1, &mut rng);
                    queues[t].push_back(r);
                    arrived += 1;
                }
            }
        }
        if record {
            timeline.push(Snapshot {
                waiting: queues.iter().map(|q| q.len() as u32).collect(),
                slots: slots
                    .iter()
                    .map(|s| {
                        s.map(|s| Seat {
                            tenant: s.req.tenant as u32,
                            prefilling: s.prefill_left > 0,
                            cached: s.cached,
                        })
                    })
                    .collect(),
                admitted: admitted_now,
                evicted,
                keys,
                service: service.clone(),
                gpu: gpu.clone(),
                prefix_cached: shapes
                    .iter()
                    .position(|s| s.prefix > 0)
                    .is_some_and(|t| cache.holds(t as u64)),
                moment,
            });
        }
    }
    let unfinished =
        queues.iter().map(|q| q.len() as u32).sum::<u32>() + slots.iter().flatten().count() as u32;
    // A request still without its first token counts with its wait so far,
    // a lower bound: leaving it out would let a starved tenant show a
    // small TTFT, or none.
    let waits = queues
        .iter()
        .flatten()
        .copied()
        .chain(slots.iter().flatten().map(|s| s.req))
        .filter(|r| !r.answered);
    for r in waits {
        ttft[r.tenant].push(f64::from(config.ticks - r.arrived));
    }
    let total_finished: u32 = finished.iter().sum();
    let total_gpu: f64 = gpu.iter().sum();
    let ticks = f64::from(config.ticks.max(1));
    let tenants = (0..n)
        .map(|t| {
            let mut v = ttft[t].clone();
            v.sort_by(f64::total_cmp);
            TenantRun {
                finished: finished[t],
                request_share: share(f64::from(finished[t]), f64::from(total_finished)),
                service: service[t] / ticks,
                gpu_share: share(gpu[t], total_gpu),
                ttft_p95: percentile_sorted(&v, 95.0),
                cache_share: share(cached_tokens[t] as f64, prompt_tokens[t] as f64),
                preempted: preempted[t],
            }
        })
        .collect();
    SchedulerRun {
        scheduler,
        tenants,
        cache_share: share(
            cached_tokens.iter().sum::<u64>() as f64,
            prompt_tokens.iter().sum::<u64>() as f64,
        ),
        first_preemption,
        arrived,
        unfinished,
        timeline: record.then_some(timeline),
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
fn release(cache: &mut Cache, run: &Running) {
    if let Some(k) = run.prefix_key {
        cache.release(k);
    }
    cache.release(run.private_key);
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

/// Tenant `t`'s key under `scheduler` (lowest goes first).
fn key(
    scheduler: Scheduler,
    shapes: &[Shape],
    t: usize,
    window_tokens: &[f64],
    admitted: &[VecDeque<u32>],
    vtc: &[f64],
) -> f64 {
    match scheduler {
        Scheduler::Fcfs => 0.0,
        Scheduler::Rpm => admitted[t].len() as f64,
        Scheduler::Tpm => window_tokens[t],
        Scheduler::Vtc => vtc[t],
        Scheduler::Priority => {
            if shapes[t].interactive {
                0.0
            } else {
                1.0
            }
        }
    }
}

/// The tenant whose head request goes next, by `scheduler`'s key (lowest
/// wins; ties to the oldest head request, then the lowest tenant).
fn pick(
    scheduler: Scheduler,
    shapes: &[Shape],
    queues: &[VecDeque<Request>],
    window_tokens: &[f64],
    admitted: &[VecDeque<u32>],
    vtc: &[f64],
) -> Option<usize> {
    (0..queues.len())
        .filter_map(|t| {
            queues[t].front().map(|r| {
                (
                    t,
                    key(scheduler, shapes, t, window_tokens, admitted, vtc),
                    r.arrived,
                )
            })
        })
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)))
        .map(|(t, _, _)| t)
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
fn prefill_of(run: &Running, shapes: &[Shape]) -> u32 {
    let prefix = shapes[run.req.tenant].prefix;
    run.req.prompt + if run.cached { 0 } else { prefix }
}
