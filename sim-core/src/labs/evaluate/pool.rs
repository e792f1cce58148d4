//! One experiment's run: the plan's conversations offered to a pool of
//! engines (the Routing Lab's [`Replica`]) open or closed loop, each request
//! given to an arm by the design, routed by its arm's rule over its arm's
//! replicas, and recorded. The experiments of `mod.rs` are runs of this
//! with different setups.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;
use core::ops::Range;

use super::plan::Plan;
use super::Config;
use crate::engine::{EngineEvent, EngineSpec, Replica};
use crate::rng::{keyed_unit, stream, Rng};
use crate::routing::{AnyRouter, Chooser, RouteContext, Router, RuleKind, RuleSettings, Ties};
use crate::time::Tick;
use crate::workload::Workload;

/// How requests arrive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Loop {
    /// On schedule at `scale` times the lab's conversation rate, whatever
    /// the pool does; a turn follows the previous one after the answer's
    /// length in ticks and the user's pause.
    Open(f64),
    /// `n` clients, each sending a turn only once the last one is answered
    /// (then pausing), conversation after conversation.
    Closed(u32),
    /// Open loop with the rate rising linearly from `from` to `to` times
    /// the lab's rate over the run (vLLM's `--ramp-up-strategy linear`).
    Ramp {
        /// The multiple at tick 0.
        from: f64,
        /// The multiple at the run's end.
        to: f64,
    },
}

impl Loop {
    /// The multiple of the lab's rate at tick `t` of a run ending at `end`.
    pub fn scale_at(self, t: f64, end: u64) -> f64 {
        match self {
            Loop::Open(scale) => scale,
            Loop::Closed(_) => 1.0,
            Loop::Ramp { from, to } => from + (to - from) * t / end.max(1) as f64,
        }
    }

    /// When an open loop sends what comes at tick `s` at the lab's rate:
    /// the tick where the arrivals a rising rate has sent so far reach
    /// `s` (solving `from·t + (to − from)·t²/(2·end) = s`).
    fn time_of(self, s: f64, end: u64) -> f64 {
        match self {
            Loop::Ramp { from, to } if to > from => {
                let b = (to - from) / end.max(1) as f64;
                (libm::sqrt(from * from + 2.0 * b * s) - from) / b
            }
            other => s / other.scale_at(0.0, end),
        }
    }
}

/// How requests are shared between the arms (arm 0 runs the current rule,
/// arm 1 the candidate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assign {
    /// Everything to arm 0 on the whole pool.
    Whole,
    /// Each request to arm 1 with the canary share; one shared pool.
    PerRequest,
    /// Each conversation to arm 1 with the canary share; one shared pool.
    PerSession,
    /// Conversations half and half, each arm on half the replicas.
    Split,
    /// Everything to arm 0 on the pool; the conversations of a share are
    /// also copied to arm 1 on a shadow pool sized for them, whose answers
    /// are thrown away.
    Shadow,
}

/// The semantic cache in front of the pool, and the limit after it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Semantic {
    /// Share of requests it answers (0 when there is no cache).
    pub hit: f64,
    /// Share of its answers that are wrong for the request.
    pub wrong: f64,
    /// Ticks `[from, to)` when it is down.
    pub down: (u64, u64),
    /// Requests per tick let through to the pool (None: no limit).
    pub limit: Option<f64>,
}

/// One run's setup.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Setup {
    /// Arrivals.
    pub arrivals: Loop,
    /// The arms' shares.
    pub assign: Assign,
    /// The canary's share (per request or per session; the shadow's copy).
    pub share: f64,
    /// The rule of each arm.
    pub rules: [RuleKind; 2],
    /// Prefix-cache tokens per replica.
    pub cache: u32,
    /// The semantic cache, if any.
    pub semantic: Option<Semantic>,
    /// Requests arriving from this tick on are measured.
    pub from: u64,
    /// Nothing arrives from this tick on; the run then drains.
    pub end: u64,
}

/// What became of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Sent to a replica.
    Served,
    /// Answered by the semantic cache.
    Absorbed,
    /// Answered by the semantic cache with an answer meant for another question.
    Wrong,
    /// Refused by the rate limit.
    Refused,
}

/// One request's record.
#[derive(Clone, Copy, Debug)]
pub struct Rec {
    /// Arrival tick.
    pub arrival: u64,
    /// Conversation and turn.
    pub conv: u32,
    /// Turn within it (from 0).
    pub turn: u32,
    /// The arm that served it.
    pub arm: u8,
    /// A shadow copy (its answer is discarded).
    pub mirror: bool,
    /// What became of it.
    pub fate: Fate,
    /// Prompt tokens, and those the replica's cache held at admission.
    pub prompt: u32,
    /// Prompt tokens found cached.
    pub cached: u32,
    /// Leading prompt tokens other conversations share (a system prompt).
    pub shared: u32,
    /// Ticks to the first token, once it came.
    pub ttft: Option<u64>,
    /// A shadow run's original: the index of its copy.
    pub copy: Option<u32>,
}

/// A run's records.
pub struct Run {
    /// Every request, in arrival order.
    pub recs: Vec<Rec>,
    /// The setup it ran.
    pub setup: Setup,
}

/// The engine every replica runs, from the lab's settings and the plan's
/// KV memory.
fn engine(config: &Config, plan: &Plan, cache: u32) -> EngineSpec {
    EngineSpec {
        slots: config.slots,
        kv_blocks: plan.kv_blocks,
        kv_block_tokens: 16,
        prefill_budget: config.prefill,
        cache_tokens: cache,
        cache_in_kv: false,
        host_cache_tokens: 0,
        host_tokens_per_tick: 0,
        shared_tokens_per_tick: 0,
    }
}

/// Hash buckets a traffic splitter sorts requests into (Envoy's runtime
/// fractions go to a millionth; ten thousand is enough for a share in
/// hundredths of a percent).
pub const BUCKETS: u32 = 10_000;

/// Buckets of [`BUCKETS`] that go to a canary of `share`.
pub fn canary_buckets(share: f64) -> u32 {
    libm::round(share * f64::from(BUCKETS)) as u32
}

/// Whether a request whose hash is `unit` (uniform in (0, 1]) falls in a
/// canary of `share`: its bucket is among the first [`canary_buckets`].
fn in_canary(unit: f64, share: f64) -> bool {
    ((unit * f64::from(BUCKETS)) as u32) < canary_buckets(share)
}

/// Replicas of the shadow pool: the canary share of the pool, at least one.
pub fn shadow_replicas(config: &Config) -> u32 {
    (libm::round(f64::from(config.replicas) * config.canary) as u32).max(1)
}

/// The run's state between ticks.
struct World<'a> {
    config: &'a Config,
    plan: &'a Plan,
    s: Setup,
    w: Workload,
    recs: Vec<Rec>,
    replicas: Vec<Replica>,
    arms: [Range<usize>; 2],
    routers: [AnyRouter; 2],
    rng: Rng,
    due: BinaryHeap<Reverse<(u64, u32, u32)>>,
    next_conv: u32,
    bucket: f64,
    mirrored: f64,
}

/// Run `setup` over `plan`.
pub fn run(config: &Config, plan: &Plan, setup: Setup) -> Run {
    let r = config.replicas as usize;
    let (total, arms) = match setup.assign {
        Assign::Whole | Assign::PerRequest | Assign::PerSession => (r, [0..r, 0..r]),
        Assign::Split => (r, [0..r / 2, r / 2..r]),
        Assign::Shadow => {
            let k = shadow_replicas(config) as usize;
            (r + k, [0..r, r..r + k])
        }
    };
    let settings = RuleSettings::default();
    let mut world = World {
        config,
        plan,
        s: setup,
        w: Workload {
            block_tokens: plan.block_tokens,
            requests: Vec::new(),
        },
        recs: Vec::new(),
        replicas: (0..total)
            .map(|_| Replica::new(engine(config, plan, setup.cache), plan.block_tokens))
            .collect(),
        arms,
        routers: [
            setup.rules[0].build(&settings),
            setup.rules[1].build(&settings),
        ],
        rng: Rng::new(config.seed, stream::TIE_BREAKS),
        due: BinaryHeap::new(),
        next_conv: 0,
        bucket: 0.0,
        // The shadow copies the conversations its replicas can carry.
        mirrored: f64::from(shadow_replicas(config)) / f64::from(config.replicas),
    };
    world.start();
    world.go();
    Run {
        recs: world.recs,
        setup,
    }
}

impl World<'_> {
    /// The first arrivals: every conversation's start (open loop), or each
    /// client's first conversation (closed loop).
    fn start(&mut self) {
        match self.s.arrivals {
            Loop::Open(_) | Loop::Ramp { .. } => {
                for (c, &t) in self.plan.starts.iter().enumerate() {
                    let at = self.s.arrivals.time_of(t, self.s.end) as u64;
                    if at >= self.s.end {
                        break;
                    }
                    self.due.push(Reverse((at, c as u32, 0)));
                }
                self.next_conv = self.plan.convs.len() as u32;
            }
            Loop::Closed(n) => {
                let n = n.min(self.plan.convs.len() as u32);
                for c in 0..n {
                    // Clients start a tick apart, as a benchmark's do.
                    self.due.push(Reverse((u64::from(c), c, 0)));
                }
                self.next_conv = n;
            }
        }
    }

    /// Tick until everything that arrived is answered (or the drain's cap).
    fn go(&mut self) {
        let mut events = Vec::new();
        let cap = self.s.end + self.s.end / 2 + 2000;
        let mut now = 0u64;
        while now < cap {
            while let Some(&Reverse((t, c, k))) = self.due.peek() {
                if t > now {
                    break;
                }
                self.due.pop();
                if t < self.s.end {
                    self.arrive(now, c, k);
                }
            }
            if let Some(limit) = self.s.semantic.and_then(|s| s.limit) {
                self.bucket = (self.bucket + limit).min(limit * 20.0 + 1.0);
            }
            for i in 0..self.replicas.len() {
                events.clear();
                self.replicas[i].tick(Tick(now), &self.w, &mut events);
                for &e in &events {
                    self.event(e);
                }
            }
            now += 1;
            if self.replicas.iter().all(Replica::is_idle) {
                match self.due.peek() {
                    Some(&Reverse((t, ..))) if t < self.s.end => now = now.max(t),
                    _ => break,
                }
            }
        }
    }

    /// Turn `k` of conversation `c` arrives at `now`.
    fn arrive(&mut self, now: u64, c: u32, k: u32) {
        let seed = self.config.seed;
        let key = (u64::from(c) << 8) | u64::from(k);
        let req = self.plan.request(c, k, now);
        let mut rec = Rec {
            arrival: now,
            conv: c,
            turn: k,
            arm: 0,
            mirror: false,
            fate: Fate::Served,
            prompt: req.prompt_tokens,
            cached: 0,
            shared: self.plan.shared(c, k),
            ttft: None,
            copy: None,
        };
        if let Some(sem) = self.s.semantic {
            let up = !(sem.down.0..sem.down.1).contains(&now);
            if up && keyed_unit(seed, key, 11) < sem.hit {
                rec.fate = if keyed_unit(seed, key, 12) < sem.wrong {
                    Fate::Wrong
                } else {
                    Fate::Absorbed
                };
                rec.ttft = Some(0);
            } else if sem.limit.is_some() {
                if self.bucket < 1.0 {
                    rec.fate = Fate::Refused;
                } else {
                    self.bucket -= 1.0;
                }
            }
        }
        let share = self.s.share;
        rec.arm = match self.s.assign {
            Assign::Whole | Assign::Shadow => 0,
            Assign::PerRequest => u8::from(in_canary(keyed_unit(seed, key, 21), share)),
            Assign::PerSession => u8::from(in_canary(keyed_unit(seed, u64::from(c), 22), share)),
            Assign::Split => u8::from(in_canary(keyed_unit(seed, u64::from(c), 23), 0.5)),
        };
        let served = rec.fate == Fate::Served;
        if !served {
            self.answered(now, c, k);
        }
        let original = self.recs.len();
        self.push(rec, req.clone(), served);
        if served
            && self.s.assign == Assign::Shadow
            && keyed_unit(seed, u64::from(c), 24) < self.mirrored
        {
            self.recs[original].copy = Some(self.recs.len() as u32);
            let copy = Rec {
                arm: 1,
                mirror: true,
                ..rec
            };
            self.push(copy, req, true);
        }
        if !matches!(self.s.arrivals, Loop::Closed(_)) {
            let scale = self.s.arrivals.scale_at(now as f64, self.s.end);
            // The next turn follows after the answer's ideal length (a
            // decode step a token) and the user's pause, whatever the pool.
            let conv = &self.plan.convs[c as usize];
            if let Some(&(_, out, gap)) = conv
                .turns
                .get(k as usize)
                .filter(|_| (k as usize + 1) < conv.turns.len())
            {
                let next = now + ((f64::from(out) + gap) / scale) as u64;
                self.due.push(Reverse((next.max(now + 1), c, k + 1)));
            }
        }
    }

    /// Record `rec` and, when `route`, send it to a replica of its arm.
    fn push(&mut self, rec: Rec, req: crate::workload::Request, route: bool) {
        let index = self.w.requests.len() as u32;
        let prompt = req.prompt_tokens;
        self.w.requests.push(req);
        self.recs.push(rec);
        if !route {
            return;
        }
        let arm = usize::from(rec.arm);
        let range = self.arms[arm].clone();
        let ctx = RouteContext {
            now: Tick(rec.arrival),
            request: &self.w.requests[index as usize],
            block_tokens: self.plan.block_tokens,
            kv_block_tokens: 16,
            replicas: &self.replicas[range.clone()],
        };
        let pick = self.routers[arm]
            .select(&ctx, &mut Chooser::new(&mut self.rng, Ties::Random))
            .map_or(0, |d| d.replica as usize);
        self.replicas[range.start + pick].enqueue(index, prompt);
    }

    /// What a replica reported.
    fn event(&mut self, e: EngineEvent) {
        match e {
            EngineEvent::Admitted {
                request,
                cached_tokens,
            } => {
                self.recs[request as usize].cached = cached_tokens;
            }
            EngineEvent::FirstToken { request, tick } => {
                let r = &mut self.recs[request as usize];
                r.ttft = Some(tick.0 + 1 - r.arrival);
            }
            EngineEvent::Finished { request, tick, .. } => {
                let r = self.recs[request as usize];
                if !r.mirror {
                    self.answered(tick.0 + 1, r.conv, r.turn);
                }
            }
            EngineEvent::Preempted { .. } => {}
        }
    }

    /// Turn `k` of conversation `c` was answered at `now`: in a closed loop
    /// its client pauses, then sends the next turn or starts a new
    /// conversation.
    fn answered(&mut self, now: u64, c: u32, k: u32) {
        if !matches!(self.s.arrivals, Loop::Closed(_)) {
            return;
        }
        let conv = &self.plan.convs[c as usize];
        let (_, _, gap) = conv.turns[k as usize];
        let at = now + gap as u64;
        if (k as usize + 1) < conv.turns.len() {
            self.due.push(Reverse((at, c, k + 1)));
        } else if (self.next_conv as usize) < self.plan.convs.len() {
            self.due.push(Reverse((at, self.next_conv, 0)));
            self.next_conv += 1;
        }
    }
}
