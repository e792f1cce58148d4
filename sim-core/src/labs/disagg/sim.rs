//! The engines, the routers and the link: one run of one setup at one mean
//! prompt length, in continuous time (seconds, as `f64`, from the step
//! costs of `crate::hardware`).

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::config::{Config, DecodeRouter, Setup};
use crate::hardware::StepCost;
use crate::rng::{stream, Rng};

/// Most sequences one engine decodes at once (vLLM's `max_num_seqs`).
const MAX_SEQS: usize = 256;

/// Spread of prompt and output lengths around their means (log-normal).
const CV: f64 = 0.6;

/// One request as drawn once for every setup and prompt length: lengths
/// are multipliers of the means, so a sweep scales the same requests.
#[derive(Clone, Copy)]
pub(super) struct Draw {
    arrival: f64,
    group: u32,
    unique: f64,
    output: u32,
}

/// The seed's requests: Poisson arrivals, a prefix group each, the
/// uncached part of the prompt and the output as log-normal multipliers.
pub(super) fn draws(c: &Config) -> Vec<Draw> {
    let mut arrivals = Rng::new(c.seed, stream::ARRIVALS);
    let mut prompts = Rng::new(c.seed, stream::PROMPTS);
    let mut outputs = Rng::new(c.seed, stream::OUTPUTS);
    let mut groups = Rng::new(c.seed, stream::PREFIXES);
    let mut t = 0.0;
    (0..c.requests)
        .map(|_| {
            t += arrivals.exponential(1.0 / c.rate);
            Draw {
                arrival: t,
                group: groups.below(c.groups),
                unique: prompts.lognormal_mean_cv(1.0, CV),
                output: (outputs.lognormal_mean_cv(f64::from(c.output), CV) as u32).max(1),
            }
        })
        .collect()
}

/// What one setup did at one mean prompt length, times in milliseconds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measured {
    /// Time to first token of each request.
    pub ttft: Vec<f64>,
    /// Mean time per output token after the first, per request with two or more.
    pub tpot: Vec<f64>,
    /// Arrival to last token, per request.
    pub e2e: Vec<f64>,
    /// Prefills run on a GPU that decodes (all of them colocated).
    pub local: u32,
    /// Transfer times (bytes and overhead, queueing on the link included).
    pub transfer: Vec<f64>,
    /// Prompt tokens served from a cache, and prompt tokens in all.
    pub cached: (u64, u64),
    /// Output tokens, and the seconds from the first arrival to the last token.
    pub output: (u64, f64),
}

#[derive(Clone, Copy)]
struct Seq {
    req: u32,
    ctx: u32,
    left: u32,
    /// Whether its next decode step gives its first token (its prefill ran elsewhere).
    first: bool,
}

#[derive(Clone, Copy)]
struct Job {
    req: u32,
    total: u32,
    done: u32,
}

/// One GPU's engine: a prefill queue and a decode batch.
#[derive(Default)]
struct Engine {
    jobs: VecDeque<Job>,
    running: Vec<Seq>,
    /// Prompt chunks of the step under way, for the queue's front jobs.
    plan: Vec<u32>,
    /// Running sequences in the step under way (the first ones).
    batch: usize,
    /// When the step under way ends (infinite: idle).
    end: f64,
    /// Groups whose prefix this GPU caches, most recent first.
    cache: Vec<u32>,
    /// Prompt tokens still to compute, KV tokens held, KV on its way in.
    queued: u64,
    held: u64,
    inbound: u64,
    /// When its link is free, and the KV it is sending (prefill GPUs): the
    /// link sends one at a time, so each lands after the one before and the
    /// front is the next to land.
    link: f64,
    sending: VecDeque<(f64, usize, Seq)>,
}

impl Engine {
    fn holds(&self, group: u32) -> bool {
        self.cache.contains(&group)
    }

    fn remember(&mut self, group: u32, size: usize) {
        if let Some(i) = self.cache.iter().position(|&g| g == group) {
            self.cache.remove(i);
        }
        self.cache.insert(0, group);
        self.cache.truncate(size);
    }

    /// KV tokens it holds or has promised: the load the routers compare.
    fn load(&self) -> u64 {
        self.queued + self.held + self.inbound
    }

    /// Start a step if there is work: decodes first, then prompt chunks in
    /// arrival order within the step's token budget (chunked prefill).
    fn start(&mut self, now: f64, chunk: u32, cost: &StepCost) {
        if self.end.is_finite() || (self.jobs.is_empty() && self.running.is_empty()) {
            return;
        }
        self.batch = self.running.len().min(MAX_SEQS);
        let context: f64 = self.running[..self.batch]
            .iter()
            .map(|s| f64::from(s.ctx))
            .sum();
        let mut budget = chunk.saturating_sub(self.batch as u32);
        let (mut tokens, mut attended, mut read) = (self.batch as f64, context, context);
        self.plan.clear();
        for job in &self.jobs {
            if budget == 0 {
                break;
            }
            let take = (job.total - job.done).min(budget);
            budget -= take;
            let (new, done) = (f64::from(take), f64::from(job.done));
            tokens += new;
            attended += new * (done + new / 2.0);
            read += done;
            self.plan.push(take);
        }
        self.end = now + cost.step_s(tokens, attended, read);
    }
}

/// Where finished prefills and decoded tokens go.
struct Run<'a> {
    c: &'a Config,
    setup: Setup,
    reqs: Vec<Req>,
    engines: Vec<Engine>,
    /// Engines `0..prefill` prefill only (split setups).
    prefill: usize,
    kv_bytes: f64,
    first: Vec<f64>,
    m: Measured,
    /// Engines given work since the last event: the only ones that may
    /// have to start a step.
    touched: Vec<usize>,
}

#[derive(Clone, Copy)]
struct Req {
    arrival: f64,
    group: u32,
    prompt: u32,
    prefix: u32,
    output: u32,
}

impl Run<'_> {
    /// The cheapest engine in `range` by `cost`, ties to the first after `from`.
    fn pick(
        &self,
        range: core::ops::Range<usize>,
        from: usize,
        cost: impl Fn(&Engine) -> f64,
    ) -> usize {
        let n = range.len();
        let mut best = (f64::INFINITY, range.start);
        for k in 0..n {
            let i = range.start + (from + k) % n;
            let x = cost(&self.engines[i]);
            if x < best.0 {
                best = (x, i);
            }
        }
        best.1
    }

    /// Prefix tokens engine `e` would not recompute for request `r`.
    fn hit(&self, e: usize, r: &Req) -> u32 {
        if self.engines[e].holds(r.group) {
            r.prefix
        } else {
            0
        }
    }

    fn credit(&self) -> f64 {
        match (self.c.decode_router, self.setup.conditional()) {
            (DecodeRouter::Prefix, _) | (DecodeRouter::Dynamo, true) => 1.0,
            _ => 0.0,
        }
    }

    /// The decode engine for request `r`: KV held less the prefix credit.
    fn decode_for(&self, id: usize) -> usize {
        let r = self.reqs[id];
        let credit = self.credit();
        self.pick(self.prefill..self.engines.len(), id, |e| {
            let hit = if e.holds(r.group) { r.prefix } else { 0 };
            e.load() as f64 - credit * f64::from(hit)
        })
    }

    fn queue(&mut self, e: usize, id: usize) {
        let r = self.reqs[id];
        let hit = self.hit(e, &r);
        self.m.cached.0 += u64::from(hit);
        self.m.cached.1 += u64::from(r.prompt);
        self.touched.push(e);
        let eng = &mut self.engines[e];
        eng.queued += u64::from(r.prompt - hit);
        eng.jobs.push_back(Job {
            req: id as u32,
            total: r.prompt,
            done: hit,
        });
    }

    fn arrive(&mut self, id: usize) {
        let r = self.reqs[id];
        let n = self.engines.len();
        if !self.setup.split() {
            let e = self.pick(0..n, id, |e| {
                let hit = if e.holds(r.group) { r.prefix } else { 0 };
                (e.load() + u64::from(r.prompt - hit)) as f64
            });
            self.m.local += 1;
            return self.queue(e, id);
        }
        let p = self.pick(0..self.prefill, id, |e| {
            let hit = if e.holds(r.group) { r.prefix } else { 0 };
            (e.queued + u64::from(r.prompt - hit)) as f64
        });
        if self.setup.conditional() {
            let d = self.decode_for(id);
            let fresh = r.prompt - self.hit(d, &r);
            let isl = fresh < self.c.isl_threshold
                && f64::from(fresh) / f64::from(r.prompt.max(1)) < self.c.isl_ratio;
            let busy = self.engines[p].queued as f64 > self.c.busy * f64::from(self.c.chunk);
            let local = match self.setup {
                Setup::Isl => isl,
                Setup::Load => busy,
                _ => isl || busy,
            };
            if local {
                self.m.local += 1;
                return self.queue(d, id);
            }
        }
        self.queue(p, id);
    }

    /// A prefill engine finished request `id`'s prompt at `now`: send its KV
    /// (the tokens the chosen decode engine does not cache) over the link.
    fn send(&mut self, p: usize, id: usize, now: f64) {
        let r = self.reqs[id];
        let d = self.decode_for(id);
        let tokens = r.prompt - self.hit(d, &r);
        let start = now.max(self.engines[p].link);
        let bytes = f64::from(tokens) * self.kv_bytes / (self.c.bandwidth * 1e9);
        self.engines[p].link = start + bytes;
        let done = start + bytes + self.c.hop / 1000.0;
        self.m.transfer.push((done - now) * 1000.0);
        self.engines[d].inbound += u64::from(r.prompt);
        self.engines[p].sending.push_back((
            done,
            d,
            Seq {
                req: id as u32,
                ctx: r.prompt,
                left: r.output,
                first: true,
            },
        ));
    }

    fn finish(&mut self, s: &Seq, now: f64) {
        let r = self.reqs[s.req as usize];
        let first = self.first[s.req as usize];
        self.m.ttft.push((first - r.arrival) * 1000.0);
        self.m.e2e.push((now - r.arrival) * 1000.0);
        if r.output > 1 {
            self.m
                .tpot
                .push((now - first) * 1000.0 / f64::from(r.output - 1));
        }
        self.m.output.0 += u64::from(r.output);
        self.m.output.1 = now - self.reqs[0].arrival;
    }

    /// Engine `e`'s step ended at `now`.
    fn step(&mut self, e: usize, now: f64) {
        let cache = self.c.cache as usize;
        self.touched.push(e);
        let eng = &mut self.engines[e];
        eng.end = f64::INFINITY;
        let batch = eng.batch;
        let mut done = Vec::new();
        for s in &mut eng.running[..batch] {
            s.ctx += 1;
            s.left -= 1;
            if s.first {
                s.first = false;
                self.first[s.req as usize] = now;
            }
            if s.left == 0 {
                done.push(*s);
            }
        }
        eng.held += batch as u64;
        if !done.is_empty() {
            eng.running.retain(|s| s.left > 0);
            eng.held -= done.iter().map(|s| u64::from(s.ctx)).sum::<u64>();
        }
        let mut prefilled = Vec::new();
        let plan = core::mem::take(&mut eng.plan);
        for (k, &take) in plan.iter().enumerate() {
            let job = &mut eng.jobs[k];
            job.done += take;
            eng.queued -= u64::from(take);
            if job.done == job.total {
                prefilled.push(job.req);
            }
        }
        eng.plan = plan;
        for _ in 0..prefilled.len() {
            eng.jobs.pop_front();
        }
        for s in &done {
            self.finish(s, now);
        }
        let decodes = !self.setup.split() || e >= self.prefill;
        for id in prefilled {
            let r = self.reqs[id as usize];
            self.engines[e].remember(r.group, cache);
            if decodes {
                // The prefill's last chunk gives the first token.
                self.first[id as usize] = now;
                let s = Seq {
                    req: id,
                    ctx: r.prompt,
                    left: r.output - 1,
                    first: false,
                };
                if s.left == 0 {
                    self.finish(&s, now);
                } else {
                    let eng = &mut self.engines[e];
                    eng.held += u64::from(s.ctx);
                    eng.running.push(s);
                }
            } else {
                self.send(e, id as usize, now);
            }
        }
    }

    /// The front transfer of prefill engine `p` landed on its decode engine.
    fn land(&mut self, p: usize) {
        let Some((_, d, s)) = self.engines[p].sending.pop_front() else {
            return;
        };
        let group = self.reqs[s.req as usize].group;
        let cache = self.c.cache as usize;
        self.touched.push(d);
        let eng = &mut self.engines[d];
        eng.inbound -= u64::from(s.ctx);
        eng.held += u64::from(s.ctx);
        eng.running.push(s);
        eng.remember(group, cache);
    }
}

/// Run `setup` on the requests `draws` with mean prompt `prompt` tokens.
pub(super) fn simulate(
    c: &Config,
    cost: &StepCost,
    setup: Setup,
    prompt: u32,
    draws: &[Draw],
) -> Measured {
    let prefix = (f64::from(prompt) * c.shared) as u32;
    let unique = f64::from(prompt) - f64::from(prefix);
    let reqs: Vec<Req> = draws
        .iter()
        .map(|d| Req {
            arrival: d.arrival,
            group: d.group,
            prompt: prefix + ((unique * d.unique) as u32).max(1),
            prefix,
            output: d.output,
        })
        .collect();
    let n = (c.prefill + c.decode) as usize;
    let engines = (0..n)
        .map(|_| Engine {
            end: f64::INFINITY,
            ..Engine::default()
        })
        .collect();
    let mut run = Run {
        c,
        setup,
        first: vec![0.0; reqs.len()],
        reqs,
        engines,
        prefill: if setup.split() { c.prefill as usize } else { 0 },
        kv_bytes: c.model.spec().kv_bytes_per_token(2.0),
        m: Measured::default(),
        touched: Vec::new(),
    };
    let mut next = 0;
    loop {
        let mut t = run.reqs.get(next).map_or(f64::INFINITY, |r| r.arrival);
        let mut what = None;
        for (i, e) in run.engines.iter().enumerate() {
            if e.end < t {
                (t, what) = (e.end, Some(i));
            }
        }
        let mut landing = None;
        for (p, e) in run.engines[..run.prefill].iter().enumerate() {
            if let Some(x) = e.sending.front() {
                if x.0 < t {
                    (t, landing) = (x.0, Some(p));
                }
            }
        }
        if !t.is_finite() {
            break;
        }
        if let Some(p) = landing {
            run.land(p);
        } else if let Some(e) = what {
            run.step(e, t);
        } else {
            run.arrive(next);
            next += 1;
        }
        for e in core::mem::take(&mut run.touched) {
            run.engines[e].start(t, c.chunk, cost);
        }
    }
    run.m
}
