//! One replica's engine: an iteration-level scheduler, as the Routing Lab models it.
//!
//! The model follows the lab described in the article (§4.2) and the choices its
//! claims depend on (`docs/model.md` gives the sensitivity behind each):
//!
//! - **One tick, one iteration.** In a tick a replica runs either one *prefill
//!   step* or one *decode step*, never both (no chunked prefill).
//! - **Prefill first.** If any admitted sequence still has prompt tokens to compute,
//!   the tick is a prefill step with a budget of [`EngineSpec::prefill_budget`]
//!   tokens, spent on prefilling sequences in admission order. The step that
//!   finishes a prompt also samples its first token (as vLLM does), delivered at
//!   the end of that tick: TTFT = finishing tick + 1 − arrival.
//! - **Decode.** Otherwise every running sequence emits one token.
//! - **Admission** happens at the start of each tick, first come first served from
//!   a FIFO waiting queue, bounded by batch slots ([`EngineSpec::slots`]) and KV
//!   capacity ([`EngineSpec::kv_blocks`]). If the head does not fit, nothing behind
//!   it is admitted (head-of-line blocking). The slot cap is the binding limit at
//!   the defaults, which is what makes a KV gauge blind to queued work (claim (d)
//!   held in about 85% of seeds with 8 slots and 0–6% with KV as the only limit).
//! - **KV accounting.** A sequence holds `ceil((uncached prompt + generated) /
//!   kv_block_tokens)` blocks, and is admitted only if the blocks for its
//!   uncached prompt plus its first token fit; it grows during decode. Blocks in the prefix cache
//!   are not counted. A request larger than the whole capacity is still admitted
//!   onto an idle replica so no run can deadlock; if decode growth overflows the
//!   capacity, the most recently admitted sequence is preempted back to the head of
//!   the queue and recomputed later (vLLM's recompute preemption).
//! - **Prefix cache.** At admission the longest resident run of the prompt's hash
//!   blocks is reused (at least one prompt token is always computed); when a
//!   prompt finishes prefill its blocks enter the replica's LRU [`PrefixCache`].

pub mod adapters;
pub mod prefix_cache;
pub mod speculation;
mod stretch;

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

pub use adapters::{AdapterSpec, AdapterStats, AdapterView, Adapters};
pub use prefix_cache::PrefixCache;
pub use speculation::Speculation;

use crate::hardware::StepCost;
use crate::time::Tick;
use crate::workload::{Request, Workload};

/// Engine constants shared by every replica of a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineSpec {
    /// Batch slots: the most sequences running (prefilling or decoding) at once.
    pub slots: u32,
    /// KV capacity, in blocks.
    pub kv_blocks: u32,
    /// Tokens per KV block (vLLM's default block size is 16).
    pub kv_block_tokens: u32,
    /// Prompt tokens one prefill step computes, in tokens per tick.
    pub prefill_budget: u32,
    /// Prefix-cache capacity, in tokens (converted to the workload's hash blocks).
    pub cache_tokens: u32,
    /// The prefix cache lives in the KV blocks running sequences leave free,
    /// as vLLM's does: it holds at most `cache_tokens` and at most the free
    /// KV, so a full batch evicts it (default off: the two are apart).
    #[serde(default)]
    pub cache_in_kv: bool,
    /// A host-memory tier under the prefix cache, in tokens (0, the
    /// default: none). It holds every block the accelerator's cache held,
    /// for longer (an inclusive LRU, as an offloading connector that copies
    /// each computed block to host memory keeps it), so a prefix evicted
    /// from the accelerator can come back over the host link instead of
    /// being computed again.
    #[serde(default)]
    pub host_cache_tokens: u32,
    /// Prompt tokens a tick the host link moves into accelerator memory
    /// (0: the tier is off). A prefix found only in host memory costs its
    /// transfer in place of its prefill: it occupies the prefill step for
    /// `tokens × prefill rate / host_tokens_per_tick` tokens' worth, and
    /// never more than computing it would (an engine would recompute rather
    /// than wait on a slower link). The prefill rate is the budget in
    /// ticks mode (a step is a tick); in milliseconds mode, what a full
    /// step of the budget computes per millisecond.
    #[serde(default)]
    pub host_tokens_per_tick: u32,
    /// Prompt tokens a tick the link to a store shared by the whole pool
    /// moves into accelerator memory (0, the default: no shared tier). The
    /// store itself belongs to the pool and is lent to each replica for its
    /// tick ([`Replica::tick_shared`]); a replica writes every prompt it
    /// prefills there, and a prefix found there and in no nearer tier costs
    /// its transfer as a host-tier one does.
    #[serde(default)]
    pub shared_tokens_per_tick: u32,
}

/// What a replica did that the lab needs to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineEvent {
    /// A request left the queue for a batch slot; `cached_tokens` came from the cache.
    Admitted {
        /// Index of the request in the workload.
        request: u32,
        /// Prompt tokens reused from the prefix cache.
        cached_tokens: u32,
    },
    /// A request's first output token was delivered at the end of `tick`.
    FirstToken {
        /// Index of the request in the workload.
        request: u32,
        /// The tick whose step produced it.
        tick: Tick,
    },
    /// A request's last output token was delivered at the end of `tick`.
    Finished {
        /// Index of the request in the workload.
        request: u32,
        /// The tick whose step produced it.
        tick: Tick,
        /// Streamed chunks its output came in: one per iteration that gave
        /// it tokens (its output tokens, without speculative decoding).
        chunks: u32,
    },
    /// A running request was pushed back to the queue to free KV blocks.
    Preempted {
        /// Index of the request in the workload.
        request: u32,
    },
}

/// A sequence holding a batch slot.
#[derive(Clone, Copy, Debug)]
struct Seq {
    request: u32,
    prefill_left: u32,
    /// Output tokens still to emit (the request is finished at 0).
    left: u32,
    kv: u32,
    /// Tokens that still fit in the blocks held (`kv × kv_block_tokens −
    /// (uncached + emitted)`): a counter, so the per-token path has
    /// neither a multiply nor a divide.
    room: u32,
    /// Tokens of this sequence in the KV cache so far (cached, prefilled
    /// and emitted): what its next token attends to, for milliseconds mode.
    ctx: u32,
    /// Iterations that gave it tokens so far (streamed chunks).
    chunks: u32,
    /// Speculative decoding: whether its output is of the structured class.
    structured: bool,
}

/// Per-replica counters over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaStats {
    /// Requests routed here.
    pub assigned: u32,
    /// Requests that finished here.
    pub completed: u32,
    /// Iterations that ran a prefill or a decode step (one per tick at speed 1).
    pub busy_ticks: u64,
    /// Iterations that ran a prefill step.
    pub prefill_ticks: u64,
    /// Sequences preempted for KV.
    pub preemptions: u32,
    /// Milliseconds mode: microseconds spent in iterations.
    pub busy_us: u64,
    /// Milliseconds mode: microseconds spent in prefill iterations.
    pub prefill_us: u64,
}

/// Idle ticks [`Replica::idle_for`] steps one by one.
pub const EXACT_IDLE: u64 = 10_000;

/// One model replica.
#[derive(Clone, Debug)]
pub struct Replica {
    spec: EngineSpec,
    block_tokens: u32,
    waiting: VecDeque<u32>,
    running: Vec<Seq>,
    prefilling: u32,
    kv_used: u32,
    cache: PrefixCache,
    /// The host-memory tier ([`EngineSpec::host_cache_tokens`]; empty and
    /// of capacity 0 when off).
    host: PrefixCache,
    /// The pool's shared store while [`Replica::tick_shared`] lends it
    /// (empty, of capacity 0, otherwise).
    shared: PrefixCache,
    stats: ReplicaStats,
    /// Iterations per tick (a 2× faster replica runs two).
    speed: f64,
    /// Iterations earned and not yet run (the fractional part of speed × ticks).
    credit: f64,
    /// When it joined the pool.
    joined_at: Tick,
    /// Prompt tokens accepted and not yet prefilled (queued prompts plus the
    /// unfinished part of prompts being prefilled).
    backlog: u64,
    /// The cache match of the request at the head of the queue, with the
    /// cache version it was read at: a head blocked on KV is retried every
    /// tick, and a long prompt's match is worth not recomputing each time.
    head_match: Option<(u32, u64, usize)>,
    /// Milliseconds mode: what an iteration costs (`None`: one tick each).
    cost: Option<StepCost>,
    /// Milliseconds mode: prompt tokens a full prefill step computes per
    /// tick of time, the rate a lower tier's link is weighed against (in
    /// ticks mode the step is the tick, and the budget is the rate).
    prefill_per_tick: f64,
    /// Milliseconds mode: the length, in µs, of the iteration planned and
    /// not yet run (its batch was fixed when it was planned).
    pending: Option<u64>,
    /// Milliseconds mode: µs earned and not yet spent (whole numbers, so a
    /// jump over many ticks gives exactly what ticking through them does).
    credit_us: u64,
    /// Milliseconds mode: µs of the replica's time per tick (a millisecond
    /// at speed 1), kept rather than recomputed every tick.
    tick_us: u64,
    /// Milliseconds mode: speculative decoding and the run's seed its
    /// acceptance draws are keyed by (`None`: one token per iteration).
    speculation: Option<(Speculation, u64)>,
    /// LoRA adapters ([`adapters`]; `None`: every request runs on the
    /// base model and admission never looks at adapters).
    adapters: Option<alloc::boxed::Box<Adapters>>,
}

impl Replica {
    /// An idle replica for a workload whose hash blocks cover `block_tokens` tokens.
    pub fn new(spec: EngineSpec, block_tokens: u32) -> Replica {
        let block_tokens = block_tokens.max(1);
        Replica {
            spec,
            block_tokens,
            waiting: VecDeque::new(),
            running: Vec::with_capacity(spec.slots as usize),
            prefilling: 0,
            kv_used: 0,
            cache: PrefixCache::new((spec.cache_tokens / block_tokens) as usize),
            host: PrefixCache::new(if spec.host_tokens_per_tick > 0 {
                (spec.host_cache_tokens / block_tokens) as usize
            } else {
                0
            }),
            shared: PrefixCache::new(0),
            stats: ReplicaStats::default(),
            speed: 1.0,
            credit: 0.0,
            joined_at: Tick::ZERO,
            backlog: 0,
            head_match: None,
            cost: None,
            prefill_per_tick: 0.0,
            pending: None,
            credit_us: 0,
            tick_us: 1000,
            speculation: None,
            adapters: None,
        }
    }

    /// The same replica with LoRA adapter slots ([`adapters`]; off when
    /// `spec.slots` is 0).
    pub fn with_adapters(mut self, spec: AdapterSpec) -> Replica {
        self.adapters = spec
            .on()
            .then(|| alloc::boxed::Box::new(Adapters::new(spec)));
        self
    }

    /// The replica's adapters, when it models them.
    pub fn adapters(&self) -> Option<&Adapters> {
        self.adapters.as_deref()
    }

    /// The same replica in milliseconds mode: one tick is a millisecond and
    /// an iteration lasts what `cost` says ([`crate::hardware`]).
    pub fn with_cost(mut self, cost: StepCost) -> Replica {
        let budget = f64::from(self.spec.prefill_budget.max(1));
        // A step of a whole budget from scratch, in milliseconds (a tick).
        let ms = cost.prefill_s(budget, 0.0) * 1000.0;
        self.prefill_per_tick = budget / ms.max(1e-9);
        self.cost = Some(cost);
        self
    }

    /// A lower tier's transfer of `tokens` over a link of `rate` tokens a
    /// tick, in prefill tokens' worth: the prefill time it takes, never
    /// more than computing the tokens (an engine would recompute rather
    /// than wait on a slower link).
    #[inline(always)]
    fn transfer_worth(&self, tokens: u32, rate: u32) -> u32 {
        let rate = u64::from(rate.max(1));
        if self.cost.is_some() {
            let worth = f64::from(tokens) * self.prefill_per_tick / rate as f64;
            return (libm::ceil(worth) as u64).min(u64::from(tokens)) as u32;
        }
        let budget = u64::from(self.spec.prefill_budget.max(1));
        (u64::from(tokens) * budget)
            .div_ceil(rate)
            .min(u64::from(tokens)) as u32
    }

    /// The same replica decoding speculatively ([`speculation`]), its
    /// acceptance draws keyed by `seed`; only in milliseconds mode (set
    /// [`Replica::with_cost`] too), and off when `spec.k` is 0.
    pub fn with_speculation(mut self, spec: Speculation, seed: u64) -> Replica {
        self.speculation = spec.on().then_some((spec, seed));
        self
    }

    /// The same replica running `speed` iterations per tick (0.25–4: a 2×
    /// faster accelerator runs two iterations in the time a standard one runs one).
    pub fn with_speed(mut self, speed: f64) -> Replica {
        self.speed = speed;
        self.tick_us = libm::round(speed * 1000.0).max(1.0) as u64;
        self
    }

    /// The same replica, marked as having joined the pool at `at`.
    pub fn joined(mut self, at: Tick) -> Replica {
        self.joined_at = at;
        self
    }

    /// Iterations per tick.
    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// When it joined the pool.
    pub fn joined_at(&self) -> Tick {
        self.joined_at
    }

    /// Prompt tokens accepted and not yet prefilled.
    pub fn prefill_backlog(&self) -> u64 {
        self.backlog
    }

    /// Requests accepted and not finished: waiting plus running.
    pub fn outstanding(&self) -> u32 {
        self.waiting.len() as u32 + self.running.len() as u32
    }

    /// Requests in the waiting queue (assigned, not admitted).
    pub fn waiting(&self) -> u32 {
        self.waiting.len() as u32
    }

    /// Sequences holding a batch slot (prefilling or decoding).
    pub fn running(&self) -> u32 {
        self.running.len() as u32
    }

    /// Requests in the waiting queue, front first (for the player's view).
    pub fn waiting_requests(&self) -> impl Iterator<Item = u32> + '_ {
        self.waiting.iter().copied()
    }

    /// Sequences holding a slot, in slot order: the request and whether it is
    /// still prefilling (for the player's view).
    pub fn running_requests(&self) -> impl Iterator<Item = (u32, bool)> + '_ {
        self.running.iter().map(|s| (s.request, s.prefill_left > 0))
    }

    /// KV blocks held by running sequences (the gauge `vllm:kv_cache_usage_perc`
    /// is built from; queued requests hold none).
    pub fn kv_used(&self) -> u32 {
        self.kv_used
    }

    /// The replica's prefix cache, for routers that read cache state.
    pub fn cache(&self) -> &PrefixCache {
        &self.cache
    }

    /// Counters so far.
    pub fn stats(&self) -> ReplicaStats {
        self.stats
    }

    /// Whether the replica has nothing to do.
    pub fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.running.is_empty()
    }

    /// Accept request `index`, with a prompt of `prompt_tokens`, into the
    /// waiting queue.
    pub fn enqueue(&mut self, index: u32, prompt_tokens: u32) {
        self.stats.assigned += 1;
        self.backlog += u64::from(prompt_tokens);
        self.waiting.push_back(index);
    }

    fn blocks_for(&self, tokens: u32) -> u32 {
        tokens.div_ceil(self.spec.kv_block_tokens.max(1))
    }

    #[inline(always)]
    fn admit(&mut self, workload: &Workload, events: &mut Vec<EngineEvent>) {
        if self.adapters.is_some() {
            return self.admit_adapters(workload, events);
        }
        while (self.running.len() as u32) < self.spec.slots {
            let Some(&index) = self.waiting.front() else {
                break;
            };
            if !self.try_admit(0, index, workload, events) {
                break; // head-of-line blocking
            }
        }
    }

    /// Admit request `index`, at position `at` of the waiting queue, if its
    /// KV fits (or the batch is empty); false when it does not.
    #[inline(always)]
    fn try_admit(
        &mut self,
        at: usize,
        index: u32,
        workload: &Workload,
        events: &mut Vec<EngineEvent>,
    ) -> bool {
        {
            let req: &Request = &workload.requests[index as usize];
            let version = self.cache.version();
            let matched = match self.head_match {
                Some((i, v, m)) if i == index && v == version => m,
                _ => {
                    let m = self.cache.match_len(&req.blocks);
                    self.head_match = Some((index, version, m));
                    m
                }
            };
            let cached =
                (matched as u32 * self.block_tokens).min(req.prompt_tokens.saturating_sub(1));
            // Tokens not in the accelerator's cache: they take KV blocks.
            let uncached = req.prompt_tokens - cached;
            let (from_host, host_matched) = self.host_part(&req.blocks, matched, uncached);
            let (from_shared, shared_matched) = self.shared_part(
                &req.blocks,
                matched.max(host_matched),
                uncached - from_host.0,
            );
            // Work for the prefill step: what is computed, plus the
            // transfers in prefill tokens' worth.
            let work = uncached - from_host.0 - from_shared.0 + from_host.1 + from_shared.1;
            // Room for the prompt and the first token: the tick that finishes a
            // prefill also emits that token, and it must never overflow KV. If
            // it could, the newcomer would be preempted at the end of every
            // prefill tick, and the sequences already decoding would never get
            // a decode tick (a livelock the invariants test caught).
            let need = self.blocks_for(uncached + 1);
            if self.kv_used + need > self.spec.kv_blocks && !self.running.is_empty() {
                return false;
            }
            if at == 0 {
                self.waiting.pop_front();
            } else {
                self.waiting.remove(at);
            }
            // Cached tokens need no prefill: the backlog keeps only the rest.
            self.backlog = self.backlog + u64::from(work) - u64::from(req.prompt_tokens);
            self.cache.touch(&req.blocks[..matched]);
            self.host.touch(&req.blocks[..host_matched]);
            if self.spec.shared_tokens_per_tick > 0 {
                self.shared.touch(&req.blocks[..shared_matched]);
            }
            self.kv_used += need;
            self.prefilling += 1;
            self.running.push(Seq {
                request: index,
                prefill_left: work,
                left: req.output_tokens.max(1),
                kv: need,
                room: need * self.spec.kv_block_tokens.max(1) - uncached,
                // The context reaches the whole prompt as the work is done.
                ctx: req.prompt_tokens - work,
                chunks: 0,
                structured: self
                    .speculation
                    .is_some_and(|(s, seed)| s.structured(seed, index)),
            });
            events.push(EngineEvent::Admitted {
                request: index,
                cached_tokens: cached + from_host.0 + from_shared.0,
            });
        }
        true
    }

    /// The host tier's part of a prompt whose first `device` blocks the
    /// accelerator holds and whose other `uncached` tokens it does not:
    /// `((tokens from host, their transfer in prefill tokens' worth),
    /// blocks the host tier matched)`. Nothing when the tier is off.
    #[inline(always)]
    fn host_part(
        &self,
        blocks: &[crate::workload::BlockId],
        device: usize,
        uncached: u32,
    ) -> ((u32, u32), usize) {
        if self.host.is_empty() {
            return ((0, 0), 0);
        }
        let matched = self.host.match_len(blocks);
        // Keep the last prompt token to compute, as the device cache does.
        let tokens = (matched.saturating_sub(device) as u32 * self.block_tokens)
            .min(uncached.saturating_sub(1));
        let worth = self.transfer_worth(tokens, self.spec.host_tokens_per_tick);
        ((tokens, worth), matched)
    }

    /// The shared tier's part of a prompt whose first `nearer` blocks a
    /// nearer tier holds and of which `left` tokens are still to compute:
    /// `((tokens from the store, their transfer in prefill tokens' worth),
    /// blocks the store matched)`. Nothing without a lent store.
    #[inline(always)]
    fn shared_part(
        &self,
        blocks: &[crate::workload::BlockId],
        nearer: usize,
        left: u32,
    ) -> ((u32, u32), usize) {
        if self.spec.shared_tokens_per_tick == 0 || self.shared.is_empty() {
            return ((0, 0), 0);
        }
        let matched = self.shared.match_len(blocks);
        let tokens =
            (matched.saturating_sub(nearer) as u32 * self.block_tokens).min(left.saturating_sub(1));
        let worth = self.transfer_worth(tokens, self.spec.shared_tokens_per_tick);
        ((tokens, worth), matched)
    }

    /// Emit one token for `seq`, growing its KV by a block when the held
    /// ones are full. Returns whether it is finished.
    #[inline(always)]
    fn emit(seq: &mut Seq, kv_used: &mut u32, kv_block_tokens: u32) -> bool {
        // Branch-free: with room 0 the token needs exactly one block more,
        // which leaves room for `kv_block_tokens − 1` further tokens.
        let grow = u32::from(seq.room == 0);
        seq.kv += grow;
        *kv_used += grow;
        seq.room = seq
            .room
            .wrapping_sub(1)
            .wrapping_add(grow * kv_block_tokens);
        seq.left -= 1;
        seq.ctx += 1;
        seq.left == 0
    }

    /// Run the iterations tick `now` gives this replica (its speed, carried
    /// over fractionally: speed 0.5 runs every other tick); what happened is
    /// appended to `events`, stamped `now`.
    #[inline]
    pub fn tick(&mut self, now: Tick, workload: &Workload, events: &mut Vec<EngineEvent>) {
        if let Some(cost) = self.cost {
            return self.tick_ms(now, &cost, workload, events);
        }
        self.credit += self.speed;
        if self.is_idle() {
            // An idle step does nothing; only the credit moves (most replica
            // ticks of a sparse trace land here).
            while self.credit >= 1.0 {
                self.credit -= 1.0;
            }
            return;
        }
        while self.credit >= 1.0 {
            self.credit -= 1.0;
            self.step(now, workload, events);
        }
    }

    /// [`Replica::tick`] with the pool's shared store lent for the tick
    /// ([`EngineSpec::shared_tokens_per_tick`]): the replica reads prefixes
    /// from it and writes what it prefills to it.
    pub fn tick_shared(
        &mut self,
        now: Tick,
        workload: &Workload,
        events: &mut Vec<EngineEvent>,
        shared: &mut PrefixCache,
    ) {
        core::mem::swap(&mut self.shared, shared);
        self.tick(now, workload, events);
        core::mem::swap(&mut self.shared, shared);
    }

    /// Let `ticks` idle ticks pass (the replica must be idle): exactly what
    /// that many calls of [`Replica::tick`] would do, which is only to move
    /// the fractional speed credit. Stretches up to [`EXACT_IDLE`] ticks are
    /// stepped one by one, so the credit is bit-for-bit what ticking gives;
    /// longer ones (an idle night in a trace) take the credit in one step,
    /// which is exact for speeds that are sums of powers of two (1, 2, 0.5,
    /// 1.25…) and within an ulp otherwise.
    pub fn idle_for(&mut self, ticks: u64) {
        if self.cost.is_some() {
            // Idle time is not banked in milliseconds mode (`tick_ms`).
            self.credit_us = 0;
            return;
        }
        if ticks <= EXACT_IDLE {
            for _ in 0..ticks {
                self.credit += self.speed;
                while self.credit >= 1.0 {
                    self.credit -= 1.0;
                }
            }
        } else {
            let c = self.credit + self.speed * ticks as f64;
            self.credit = c - libm::floor(c);
        }
    }

    /// Milliseconds mode: tick `now` gives the replica `speed` ms. An
    /// iteration's batch is fixed when it is planned (admission first, as
    /// in tick mode), its length comes from the step-cost model, and it
    /// completes in the tick where the milliseconds it needs have passed:
    /// its events are stamped with that tick, so a request's TTFT is the
    /// whole milliseconds from its arrival to the end of the iteration that
    /// gave its first token, rounded up. An idle replica banks no time.
    /// Replicas with different iteration lengths so advance on one clock,
    /// each starting its next iteration the moment its last one ends
    /// (within the millisecond), and the run stays integer-timed and
    /// deterministic.
    // Kept out of line: the ticks path, which the article's figures run
    // on, stays as small as it was for the tick loop to inline.
    #[inline(never)]
    fn tick_ms(
        &mut self,
        now: Tick,
        cost: &StepCost,
        workload: &Workload,
        events: &mut Vec<EngineEvent>,
    ) {
        self.credit_us += self.us_per_tick();
        loop {
            let us = match self.pending {
                Some(us) => us,
                None => {
                    self.admit(workload, events);
                    self.fit_cache();
                    if self.running.is_empty() {
                        self.credit_us = 0;
                        return;
                    }
                    let mut us = libm::ceil(self.plan_ms(cost) * 1000.0).max(1.0) as u64;
                    if self.adapters.is_some() {
                        us += self.adapter_us(workload, us);
                    }
                    self.pending = Some(us);
                    us
                }
            };
            if self.credit_us < us {
                return;
            }
            self.credit_us -= us;
            self.pending = None;
            self.stats.busy_us += us;
            if self.prefilling > 0 {
                self.stats.prefill_us += us;
            }
            self.execute(now, workload, events);
            self.fit_cache();
        }
    }

    /// Microseconds of the replica's time per tick (a millisecond at speed 1).
    fn us_per_tick(&self) -> u64 {
        self.tick_us
    }

    /// Milliseconds mode: the iteration under way after the tick just run,
    /// as (its length, the part of it done), in µs of this replica's time,
    /// and the µs one tick gives it (a millisecond at speed 1). `None` when
    /// idle or in ticks mode. The player draws each replica's step from
    /// this, so a crowded replica's longer iterations are seen to be slower.
    pub fn iteration_us(&self) -> Option<(u64, u64, u64)> {
        let pending = self.pending?;
        Some((pending, self.credit_us.min(pending), self.tick_us))
    }

    /// Milliseconds mode: in how many ticks from the one just run the
    /// iteration under way ends (`None` when idle, or in ticks mode). Until
    /// then the replica only earns time, so the lab may jump there with
    /// [`Replica::skip_ms`].
    pub fn ticks_to_next(&self) -> Option<u64> {
        let pending = self.pending?;
        let per = self.us_per_tick();
        Some(pending.saturating_sub(self.credit_us).div_ceil(per).max(1))
    }

    /// Milliseconds mode: run ticks `from` up to (not including) `to`, as
    /// that many calls of [`Replica::tick`] would, jumping over the ticks in
    /// which an iteration is only under way; stop early once idle (an idle
    /// replica banks no time, so the ticks left change nothing). Returns
    /// the tick after the last one that ran anything. Only for stretches
    /// in which nothing is routed here.
    fn advance_ms(
        &mut self,
        from: Tick,
        to: Tick,
        workload: &Workload,
        events: &mut Vec<EngineEvent>,
    ) -> Tick {
        let mut t = from.0;
        while t < to.0 {
            self.tick(Tick(t), workload, events);
            let Some(k) = self.ticks_to_next() else {
                return Tick(t + 1);
            };
            let skip = (t + k).min(to.0) - (t + 1);
            self.skip_ms(skip);
            t += 1 + skip;
        }
        to
    }

    /// Milliseconds mode: let `ticks` ticks pass in which no iteration
    /// ends (fewer than [`Replica::ticks_to_next`] says): exactly what
    /// ticking through them does, which is to earn time.
    pub fn skip_ms(&mut self, ticks: u64) {
        if self.pending.is_some() {
            self.credit_us += self.us_per_tick() * ticks;
        }
    }

    /// Milliseconds the next iteration takes, from what it will compute:
    /// a prefill step's chunks (each attending to what its prompt already
    /// has in KV), or a decode step's batch and the KV it reads.
    fn plan_ms(&self, cost: &StepCost) -> f64 {
        let (mut tokens, mut attended, mut kv) = (0.0, 0.0, 0.0);
        if self.prefilling > 0 {
            let mut budget = self.spec.prefill_budget.max(1);
            for seq in &self.running {
                if budget == 0 {
                    break;
                }
                if seq.prefill_left == 0 {
                    continue;
                }
                let take = seq.prefill_left.min(budget);
                budget -= take;
                let done = f64::from(seq.ctx);
                let t = f64::from(take);
                tokens += t;
                attended += t * (done + t / 2.0);
                kv += done;
            }
        } else {
            // One new token per sequence, each attending to and reading its
            // whole context. Summed as integers (exact, as the `f64` sums of
            // whole numbers were, and a loop the compiler vectorises: this
            // runs once per decode iteration of every replica).
            let context: u64 = self.running.iter().map(|seq| u64::from(seq.ctx)).sum();
            if let Some((spec, _)) = &self.speculation {
                return spec.step_s(cost, self.running.len() as f64, context as f64) * 1000.0;
            }
            tokens = self.running.len() as f64;
            attended = context as f64;
            kv = context as f64;
        }
        cost.step_s(tokens, attended, kv) * 1000.0
    }

    /// Run one iteration at tick `now`; what happened is appended to `events`.
    #[inline]
    pub fn step(&mut self, now: Tick, workload: &Workload, events: &mut Vec<EngineEvent>) {
        self.admit(workload, events);
        self.fit_cache();
        if self.adapters.is_some() && self.adapter_stall(workload) {
            return;
        }
        self.execute(now, workload, events);
        self.fit_cache();
    }

    /// With the cache in free KV: shrink or grow it to what the running
    /// sequences leave (called after admission and after each iteration).
    #[inline(always)]
    fn fit_cache(&mut self) {
        if self.spec.cache_in_kv {
            let free = u64::from(self.spec.kv_blocks.saturating_sub(self.kv_used))
                * u64::from(self.spec.kv_block_tokens.max(1));
            let tokens = free.min(u64::from(self.spec.cache_tokens));
            self.cache
                .set_capacity((tokens / u64::from(self.block_tokens)) as usize);
        }
    }

    /// Run the iteration the running sequences make (admission done).
    /// Always inlined: it is the body of the tick loop's hot path, as it was
    /// before milliseconds mode called it too.
    #[inline(always)]
    fn execute(&mut self, now: Tick, workload: &Workload, events: &mut Vec<EngineEvent>) {
        if self.running.is_empty() {
            return;
        }
        let kvt = self.spec.kv_block_tokens.max(1);
        self.stats.busy_ticks += 1;
        let mut any_finished = false;
        if self.prefilling > 0 {
            self.stats.prefill_ticks += 1;
            let mut budget = self.spec.prefill_budget.max(1);
            for seq in self.running.iter_mut() {
                if budget == 0 {
                    break;
                }
                if seq.prefill_left == 0 {
                    continue;
                }
                let take = seq.prefill_left.min(budget);
                seq.prefill_left -= take;
                seq.ctx += take;
                budget -= take;
                self.backlog -= u64::from(take);
                if seq.prefill_left == 0 {
                    self.prefilling -= 1;
                    let req = &workload.requests[seq.request as usize];
                    self.cache.touch(&req.blocks);
                    self.host.touch(&req.blocks);
                    if self.spec.shared_tokens_per_tick > 0 {
                        self.shared.touch(&req.blocks);
                    }
                    events.push(EngineEvent::FirstToken {
                        request: seq.request,
                        tick: now,
                    });
                    seq.chunks += 1;
                    if Self::emit(seq, &mut self.kv_used, kvt) {
                        any_finished = true;
                    }
                }
            }
        } else if let Some((spec, seed)) = self.speculation {
            any_finished = self.decode_speculative(&spec, seed, workload);
        } else {
            for seq in self.running.iter_mut() {
                seq.chunks += 1;
                if Self::emit(seq, &mut self.kv_used, kvt) {
                    any_finished = true;
                }
            }
        }
        if any_finished {
            let kv_used = &mut self.kv_used;
            let stats = &mut self.stats;
            self.running.retain(|seq| {
                let done = seq.prefill_left == 0 && seq.left == 0;
                if done {
                    *kv_used -= seq.kv;
                    stats.completed += 1;
                    events.push(EngineEvent::Finished {
                        request: seq.request,
                        tick: now,
                        chunks: seq.chunks,
                    });
                }
                !done
            });
        }
        // Decode growth may overflow KV: recompute-preempt the newest sequences.
        while self.kv_used > self.spec.kv_blocks && self.running.len() > 1 {
            if let Some(seq) = self.running.pop() {
                self.kv_used -= seq.kv;
                if seq.prefill_left > 0 {
                    self.prefilling -= 1;
                }
                self.stats.preemptions += 1;
                // Recomputed from scratch later: the whole prompt is backlog again.
                let prompt = workload.requests[seq.request as usize].prompt_tokens;
                self.backlog = self.backlog - u64::from(seq.prefill_left) + u64::from(prompt);
                self.waiting.push_front(seq.request);
                events.push(EngineEvent::Preempted {
                    request: seq.request,
                });
            }
        }
    }
}

impl Replica {
    /// A speculative decode iteration: each sequence streams one chunk of
    /// its kept drafts plus one token, cut at what its output has left
    /// ([`speculation`]). Returns whether any finished.
    fn decode_speculative(&mut self, spec: &Speculation, seed: u64, workload: &Workload) -> bool {
        let kvt = self.spec.kv_block_tokens.max(1);
        let mut any_finished = false;
        for seq in self.running.iter_mut() {
            let r = &workload.requests[seq.request as usize];
            let at = r.output_tokens.max(1) - seq.left;
            let n = 1 + spec.kept(spec.alpha(seq.structured), seed, seq.request, at);
            seq.chunks += 1;
            for _ in 0..n {
                if Self::emit(seq, &mut self.kv_used, kvt) {
                    any_finished = true;
                    break;
                }
            }
        }
        any_finished
    }
}

impl crate::routing::ReplicaState for Replica {
    fn outstanding(&self) -> u32 {
        Replica::outstanding(self)
    }

    fn waiting(&self) -> u32 {
        Replica::waiting(self)
    }

    fn kv_used(&self) -> u32 {
        Replica::kv_used(self)
    }

    fn cached_tokens(&self, request: &Request, block_tokens: u32) -> u32 {
        self.cache.match_len(&request.blocks) as u32 * block_tokens
    }

    fn cached_tiers(&self, request: &Request, block_tokens: u32) -> crate::routing::Tiers {
        let device = self.cache.match_len(&request.blocks);
        let host = self.host.match_len(&request.blocks).saturating_sub(device);
        crate::routing::Tiers {
            device: device as u32 * block_tokens,
            host: host as u32 * block_tokens,
            disk: 0,
        }
    }

    fn prefill_backlog(&self) -> u64 {
        self.backlog
    }

    fn kv_capacity(&self) -> Option<u32> {
        Some(self.spec.kv_blocks)
    }

    fn weight(&self) -> f64 {
        self.speed
    }

    fn joined_at(&self) -> Tick {
        self.joined_at
    }
}
