//! The agent-sessions lab's loop: sessions that issue model calls, one
//! gateway that keys each call to a replica, replicas that batch, prefill
//! and decode, and a prefix cache per replica.
//!
//! Time advances in steps of [`STEP_MS`]. Within a step the order is fixed:
//! sessions that start or whose tool call ended issue their next calls (the
//! gateway holds the ones over the session's cap and routes the rest to one
//! replica's queue each), each replica admits waiting calls into free slots
//! (looking up how much of each prompt its cache holds and caching the
//! prompt's shared prefix), prefills its admitted calls first come first
//! served within its per-step budget, decodes the ones past prefill, and
//! finished calls release their slot and move their session on.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;
use serde::{Deserialize, Serialize};

use super::config::{Config, Key};
use super::Kind;
use crate::choice::Choice;
use crate::engine::prefix_cache::PrefixCache;
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;

/// Milliseconds of one simulation step.
pub const STEP_MS: u64 = 10;

/// Milliseconds of one player step (one recorded [`Snapshot`]).
pub const FRAME_MS: u64 = 100;

/// Seconds the run may go on draining after sessions stop starting.
pub const DRAIN_S: u64 = 600;

/// Calls of a tool-using chain (article §13's table: about twelve).
const CHAIN_CALLS: u32 = 12;

/// Fan-out rounds of a subagent session: plan, fan out, merge, twice
/// (about forty calls at a fan-out of sixteen, as §13's table has it).
const ROUNDS: u32 = 2;

/// A long-running agent compacts its context once it passes this many
/// tokens, to [`COMPACTED`] tokens of new summary text.
const COMPACT_AT: u32 = 32_000;
/// Tokens of a compacted context.
const COMPACTED: u32 = 4_000;

/// Stream of the session mix and system prompts; each session's tool
/// times come from `SESSIONS + 1 + index`, so every key sees the same
/// sessions and the same tool times.
const SESSIONS: u64 = 300;

/// A session as every key sees it.
#[derive(Clone, Copy, Debug)]
struct Start {
    ms: u64,
    kind: Kind,
    prompt: u32,
}

/// The calls a session issues together, after a gap.
#[derive(Clone, Copy, Debug)]
struct Stage {
    calls: u32,
    /// Tokens new to the conversation in each call's prompt.
    new: u32,
    /// Output tokens of each call.
    out: u32,
    /// Subagent calls: they read the parent's context and add nothing to it.
    child: bool,
    /// Milliseconds between the previous stage's end and this one.
    gap: u64,
}

/// A recorded key moment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// A fan-out step sends its subagents out.
    Burst {
        /// The session, 0-based in start order.
        session: u32,
        /// Subagents in the step.
        children: u32,
        /// Those the gateway sent on now (the rest wait for the cap).
        sent: u32,
        /// Distinct replicas they went to.
        replicas: u32,
        /// The replica that took the most of them, 0-based.
        busiest: u32,
        /// How many it took.
        took: u32,
        /// Calls waiting in its queue once it admitted what it could.
        waiting: u32,
        /// Free slots on the other replicas at the same moment.
        free: u32,
    },
}

/// One replica at one player step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spot {
    /// Calls in its batch.
    pub running: u32,
    /// Of those, subagent calls.
    pub children: u32,
    /// Calls in its queue.
    pub waiting: u32,
    /// Of those, subagent calls.
    pub waiting_children: u32,
}

/// The pool at one player step ([`FRAME_MS`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Every replica.
    pub pool: Vec<Spot>,
    /// Calls the gateway holds for their session's cap.
    pub held: u32,
    /// Sessions under way.
    pub active: u32,
    /// Calls issued since the previous step.
    pub issued: u32,
    /// What happened in this step worth stopping at.
    pub moment: Option<Moment>,
}

/// Completion times of one kind of session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KindRow {
    /// The kind.
    pub kind: Kind,
    /// Sessions of this kind that started.
    pub sessions: u32,
    /// Model calls they issued.
    pub calls: u32,
    /// Median completion time of those that finished, seconds (`None`:
    /// none finished, or the kind runs until the end).
    pub p50: Option<f64>,
    /// 95th percentile completion time, seconds.
    pub p95: Option<f64>,
}

/// One routing key's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeyRun {
    /// The key.
    pub key: Key,
    /// Sessions that started.
    pub sessions: u32,
    /// Model calls issued.
    pub calls: u32,
    /// Calls that finished.
    pub finished: u32,
    /// Calls held, waiting or running when the run stopped.
    pub unfinished: u32,
    /// Median session completion time, seconds (long-running agents aside).
    pub session_p50: f64,
    /// 95th percentile session completion time, seconds.
    pub session_p95: f64,
    /// Median time from a call's issue to its first token, seconds.
    pub ttft_p50: f64,
    /// 95th percentile TTFT of every call, seconds.
    pub ttft_p95: f64,
    /// 95th percentile TTFT of the calls of sessions that do not fan out.
    pub others_p95: f64,
    /// Share of prompt tokens found in the replica's cache.
    pub cache_share: f64,
    /// Mean, over fan-out steps, of the longest replica queue while the
    /// step's subagents waited to start.
    pub burst_queue: f64,
    /// The longest replica queue of the run.
    pub worst_queue: u32,
    /// Per kind of session.
    pub kinds: Vec<KindRow>,
    /// The longest replica queue in each second.
    pub queue: Vec<u32>,
    /// The run step by step ([`FRAME_MS`]), when recorded.
    pub timeline: Vec<Snapshot>,
}

/// The sessions of a run, drawn once for every key.
fn starts(c: &Config) -> Vec<Start> {
    let mut arrive = Rng::new(c.seed, stream::ARRIVALS);
    let mut pick = Rng::new(c.seed, SESSIONS);
    let mix = c.mix();
    let total: f64 = mix.iter().sum();
    let mut out = Vec::new();
    let mut t = 0.0;
    loop {
        t += arrive.exponential(1.0 / c.rate);
        if t >= f64::from(c.seconds) {
            return out;
        }
        let mut u = pick.unit() * total;
        let mut kind = Kind::Long;
        for (k, share) in Kind::ALL.iter().zip(mix) {
            if u < share {
                kind = *k;
                break;
            }
            u -= share;
        }
        out.push(Start {
            ms: libm::floor(t * 1000.0) as u64 / STEP_MS * STEP_MS,
            kind,
            prompt: pick.below(c.prompts),
        });
    }
}

/// A session's next stage after `done` stages, if it has one.
fn stage(kind: Kind, done: u32, c: &Config, rng: &mut Rng, now: u64) -> Option<Stage> {
    let tool = |rng: &mut Rng, scale: f64| {
        libm::round(rng.exponential(c.tool * scale * 1000.0)) as u64 / STEP_MS * STEP_MS
    };
    let one = |new, out, gap| Stage {
        calls: 1,
        new,
        out,
        child: false,
        gap,
    };
    match kind {
        Kind::Chat => (done == 0).then(|| one(400, 250, 0)),
        // A short call that rewrites the question, then the answer over the
        // retrieved passages (the retrieval itself: 300 ms).
        Kind::Rag => match done {
            0 => Some(one(150, 40, 0)),
            1 => Some(one(2500, 300, 300)),
            _ => None,
        },
        // Each step's prompt adds the tool's result to everything before.
        Kind::Chain => match done {
            0 => Some(one(400, 120, 0)),
            d if d < CHAIN_CALLS => Some(one(500, 120, tool(rng, 1.0))),
            _ => None,
        },
        // Plan, then per round: the subagents, then a merge of their results.
        Kind::Subagents => match done {
            0 => Some(one(600, 300, 0)),
            d if d > 2 * ROUNDS => None,
            d if d % 2 == 1 => Some(Stage {
                calls: c.fanout,
                new: 200,
                out: 400,
                child: true,
                gap: 0,
            }),
            _ => Some(one(100 * c.fanout, 300, 0)),
        },
        // Calls until sessions stop starting, five tool-times apart.
        Kind::Long => (done == 0 || now < u64::from(c.seconds) * 1000).then(|| {
            one(
                if done == 0 { 600 } else { 800 },
                150,
                if done == 0 { 0 } else { tool(rng, 5.0) },
            )
        }),
    }
}

struct Session {
    start: Start,
    rng: Rng,
    /// Identifies the conversation's context in the caches (changes when a
    /// long-running agent compacts).
    context: u32,
    /// Tokens of conversation after the system prompt.
    ctx: u32,
    /// Stages finished.
    done: u32,
    /// Calls of the current stage not yet finished.
    open: u32,
    /// Calls at the replicas.
    in_flight: u32,
    /// Calls the gateway holds for the cap.
    held: VecDeque<usize>,
    finished_at: Option<u64>,
}

struct Call {
    session: usize,
    /// What the conversation-id key hashes.
    conversation: u64,
    context: u32,
    ctx: u32,
    new: u32,
    out: u32,
    child: bool,
    issued: u64,
    /// Prompt tokens still to prefill.
    prefill: f64,
    /// Output tokens produced.
    decoded: f64,
    first: bool,
    /// The fan-out step it belongs to (index into the burst list).
    burst: Option<usize>,
}

/// Tokens per cache block (vLLM's and SGLang's pages are 16 to 64 tokens;
/// coarser blocks keep lookups cheap and move a hit by at most one block
/// per part of the prompt).
pub const BLOCK: u32 = 256;

/// Block ids: system prompt `p`'s blocks are `p × 128 + k` (at most 128:
/// 32,768 tokens), a conversation context's `CONTEXTS + id × 256 + k` (at
/// most 256 blocks are cached of a longer context).
const CONTEXTS: u32 = 64 * 128;

/// The cache blocks of a prompt that starts with system prompt `prompt`
/// and goes on with `ctx` tokens of context `context`, into `out`; returns
/// how many are the system prompt's. The cache's chains make a prefix
/// count only from the start.
fn blocks(c: &Config, prompt: u32, context: u32, ctx: u32, out: &mut Vec<u32>) -> usize {
    out.clear();
    let sys = c.system.div_ceil(BLOCK);
    out.extend((0..sys).map(|k| prompt * 128 + k));
    let n = ctx.div_ceil(BLOCK).min(256);
    out.extend((0..n).map(|k| CONTEXTS + context * 256 + k));
    sys as usize
}

/// Prompt tokens saved when `matched` leading blocks of the prompt are
/// cached: the system prompt's, then (only once all of those are) the
/// context's.
fn hit_tokens(c: &Config, ctx: u32, matched: usize, sys: usize) -> u32 {
    let m = matched as u32;
    if matched <= sys {
        (m * BLOCK).min(c.system)
    } else {
        c.system + ((m - sys as u32) * BLOCK).min(ctx)
    }
}

/// What the prefix key hashes for system prompt `p`.
fn prompt_key(p: u32) -> u64 {
    (1 << 63) | u64::from(p)
}

struct Replica {
    queue: VecDeque<usize>,
    /// Subagent calls in `queue`.
    queued_children: u32,
    running: Vec<usize>,
    cache: PrefixCache,
}

impl Replica {
    fn load(&self) -> usize {
        self.queue.len() + self.running.len()
    }
}

/// When session `s` is due at `ms`, as one number ordered by time, then
/// session (at most 9,000 sessions start: 5 a second for 1,800 seconds).
fn due(ms: u64, s: usize) -> u64 {
    ms << 24 | s as u64
}

/// A splitmix64 finaliser, for the hashing keys.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The rendezvous score of `key` on replica `r` (the key is hashed first:
/// keys that differ in a few low bits would otherwise rank alike).
fn score(key: u64, seed: u64, r: usize) -> u64 {
    mix(mix(key) ^ mix(seed ^ (r as u64) << 32))
}

/// Rendezvous hashing: the replica whose score with `key` is highest, so a
/// key keeps its replica whatever the others do.
fn rendezvous(key: u64, seed: u64, n: usize) -> usize {
    (0..n).max_by_key(|&r| score(key, seed, r)).unwrap_or(0)
}

/// A fan-out step being watched until its last subagent is admitted.
struct Burst {
    left: u32,
    peak: u32,
}

struct World<'a> {
    c: &'a Config,
    key: Key,
    sessions: Vec<Session>,
    /// When each waiting session issues its next stage, soonest first.
    due: BinaryHeap<Reverse<u64>>,
    /// The next fresh context id (a compaction takes one).
    contexts: u32,
    /// Block lists are built here.
    scratch: Vec<u32>,
    /// Sessions not finished.
    unfinished: u32,
    /// Calls the gateway holds for the cap.
    held: u32,
    calls: Vec<Call>,
    replicas: Vec<Replica>,
    bursts: Vec<Burst>,
    /// The bursts still being watched (`left > 0`): every step updates
    /// their peaks, and a long run has thousands of finished ones.
    watching: Vec<usize>,
    ties: Rng,
    now: u64,
    issued: u32,
    /// The moment of the current player step, once one happened.
    moment: Option<Moment>,
    /// A burst dispatched this step: (session, children, sent, per-replica counts).
    pending: Option<(u32, u32, u32, Vec<u32>)>,
}

impl World<'_> {
    /// The replica `key` sends `call` to.
    fn route(&mut self, call: usize) -> usize {
        let n = self.replicas.len();
        let least = |w: &mut World<'_>| {
            let low = w.replicas.iter().map(Replica::load).min().unwrap_or(0);
            let tied: Vec<usize> = (0..n).filter(|&r| w.replicas[r].load() == low).collect();
            tied[w.ties.index(tied.len())]
        };
        let prompt = self.sessions[self.calls[call].session].start.prompt;
        match self.key {
            Key::Load => least(self),
            Key::Conversation => rendezvous(self.calls[call].conversation, self.c.seed, n),
            Key::Prefix => rendezvous(prompt_key(prompt), self.c.seed, n),
            Key::Bounded => {
                // The best-cached replica; among equals, the prefix's own
                // hash order keeps one prompt's sessions together.
                let k = &self.calls[call];
                let sys = blocks(self.c, prompt, k.context, k.ctx, &mut self.scratch);
                let best = (0..n)
                    .max_by_key(|&r| {
                        let m = self.replicas[r].cache.match_len(&self.scratch);
                        let hit = hit_tokens(self.c, k.ctx, m, sys);
                        (hit, score(prompt_key(prompt), self.c.seed, r))
                    })
                    .unwrap_or(0);
                let low = self.replicas.iter().map(Replica::load).min().unwrap_or(0);
                if self.replicas[best].load() > low + self.c.balance as usize {
                    least(self)
                } else {
                    best
                }
            }
        }
    }

    /// Send `call` to a replica's queue.
    fn dispatch(&mut self, call: usize) -> usize {
        let r = self.route(call);
        self.replicas[r].queue.push_back(call);
        self.replicas[r].queued_children += u32::from(self.calls[call].child);
        self.sessions[self.calls[call].session].in_flight += 1;
        r
    }

    /// Issue session `s`'s next stage, or end the session.
    fn issue(&mut self, s: usize) {
        let c = self.c;
        let sess = &mut self.sessions[s];
        let Some(st) = stage(sess.start.kind, sess.done, c, &mut sess.rng, self.now) else {
            sess.finished_at = Some(self.now);
            self.unfinished -= 1;
            return;
        };
        sess.open = st.calls;
        let burst = st.child.then(|| {
            self.bursts.push(Burst {
                left: st.calls,
                peak: 0,
            });
            if st.calls > 0 {
                self.watching.push(self.bursts.len() - 1);
            }
            self.bursts.len() - 1
        });
        let mut counts = alloc::vec![0u32; self.replicas.len()];
        let mut sent = 0;
        for i in 0..st.calls {
            let sess = &self.sessions[s];
            let id = self.calls.len();
            self.calls.push(Call {
                session: s,
                conversation: if st.child {
                    mix((s as u64) << 20 | u64::from(sess.done) << 8 | u64::from(i)) | 1 << 62
                } else {
                    s as u64
                },
                context: sess.context,
                ctx: sess.ctx,
                new: st.new,
                out: st.out,
                child: st.child,
                issued: self.now,
                prefill: 0.0,
                decoded: 0.0,
                first: false,
                burst,
            });
            self.issued += 1;
            if c.cap > 0 && sess.in_flight >= c.cap {
                self.sessions[s].held.push_back(id);
                self.held += 1;
            } else {
                let r = self.dispatch(id);
                counts[r] += 1;
                sent += 1;
            }
        }
        if st.child && self.pending.is_none() {
            self.pending = Some((s as u32, st.calls, sent, counts));
        }
    }

    /// The stage after this one waits for its gap.
    fn schedule(&mut self, s: usize) {
        let c = self.c;
        let sess = &mut self.sessions[s];
        // Peek at the gap with a copy of the session's stream, so the
        // stage drawn at issue time is the same one.
        let mut rng = sess.rng.clone();
        match stage(sess.start.kind, sess.done, c, &mut rng, self.now) {
            Some(st) => {
                self.due.push(Reverse(due(self.now + st.gap, s)));
            }
            None => {
                sess.finished_at = Some(self.now);
                self.unfinished -= 1;
            }
        }
    }

    /// `call` has produced its last token.
    fn finish(&mut self, call: usize, r: usize) {
        let cap = self.c.cap;
        let (s, child, context, grown) = {
            let k = &self.calls[call];
            (k.session, k.child, k.context, k.ctx + k.new + k.out)
        };
        if !child {
            // The finished conversation stays in the replica's cache.
            let prompt = self.sessions[s].start.prompt;
            blocks(self.c, prompt, context, grown, &mut self.scratch);
            self.replicas[r].cache.touch(&self.scratch);
        }
        let sess = &mut self.sessions[s];
        sess.in_flight -= 1;
        sess.open -= 1;
        if !child {
            sess.ctx = grown;
        }
        while cap == 0 || self.sessions[s].in_flight < cap {
            let Some(next) = self.sessions[s].held.pop_front() else {
                break;
            };
            self.held -= 1;
            self.dispatch(next);
        }
        let sess = &mut self.sessions[s];
        if sess.open == 0 {
            sess.done += 1;
            if sess.start.kind == Kind::Long && sess.ctx > COMPACT_AT {
                // Compaction: a summary replaces the context, new text that
                // no cache holds.
                sess.ctx = COMPACTED;
                sess.context = self.contexts;
                self.contexts += 1;
            }
            self.schedule(s);
        }
    }

    /// One step of every replica: admit, prefill, decode, finish.
    fn work(&mut self, ttft: &mut Vec<(usize, f64)>, hits: &mut (u64, u64)) {
        let c = self.c;
        let budget = c.prefill * STEP_MS as f64 / 1000.0;
        let per_step = STEP_MS as f64 / c.tpot;
        for r in 0..self.replicas.len() {
            while self.replicas[r].running.len() < c.slots as usize {
                let Some(call) = self.replicas[r].queue.pop_front() else {
                    break;
                };
                self.replicas[r].queued_children -= u32::from(self.calls[call].child);
                let prompt = self.sessions[self.calls[call].session].start.prompt;
                let k = &self.calls[call];
                let sys = blocks(c, prompt, k.context, k.ctx, &mut self.scratch);
                let cache = &mut self.replicas[r].cache;
                let hit = hit_tokens(c, k.ctx, cache.match_len(&self.scratch), sys);
                // The prompt's shared part is cached from its prefill on,
                // so calls admitted after it find it.
                cache.touch(&self.scratch);
                let total = c.system + k.ctx + k.new;
                hits.0 += u64::from(hit);
                hits.1 += u64::from(total);
                self.calls[call].prefill = f64::from(total - hit).max(1.0);
                self.replicas[r].running.push(call);
                if let Some(b) = self.calls[call].burst {
                    self.bursts[b].left -= 1;
                }
            }
        }
        if let Some((session, children, sent, counts)) = self.pending.take() {
            let busiest = (0..counts.len())
                .max_by_key(|&r| (counts[r], usize::MAX - r))
                .unwrap_or(0);
            let free: usize = (0..self.replicas.len())
                .filter(|&r| r != busiest)
                .map(|r| (c.slots as usize).saturating_sub(self.replicas[r].running.len()))
                .sum();
            let m = Moment::Burst {
                session,
                children,
                sent,
                replicas: counts.iter().filter(|&&n| n > 0).count() as u32,
                busiest: busiest as u32,
                took: counts[busiest],
                waiting: self.replicas[busiest].queue.len() as u32,
                free: free as u32,
            };
            self.moment.get_or_insert(m);
        }
        let end = self.now + STEP_MS;
        let mut done = Vec::new();
        for r in 0..self.replicas.len() {
            let mut left = budget;
            for &call in &self.replicas[r].running {
                let k = &mut self.calls[call];
                if k.prefill > 0.0 {
                    let take = k.prefill.min(left);
                    k.prefill -= take;
                    left -= take;
                    if k.prefill <= 0.0 {
                        // Prefill ends with the first token.
                        k.first = true;
                        k.decoded = 1.0;
                        ttft.push((call, (end - k.issued) as f64 / 1000.0));
                    }
                } else {
                    k.decoded += per_step;
                }
                if k.first && k.decoded >= f64::from(k.out) {
                    done.push((call, r));
                }
            }
        }
        self.now = end;
        for &(call, r) in &done {
            self.replicas[r].running.retain(|&x| x != call);
            self.finish(call, r);
        }
    }

    fn busiest_queue(&self) -> u32 {
        self.replicas
            .iter()
            .map(|r| r.queue.len() as u32)
            .max()
            .unwrap_or(0)
    }

    fn snapshot(&mut self) -> Snapshot {
        let pool = self
            .replicas
            .iter()
            .map(|r| Spot {
                running: r.running.len() as u32,
                children: r.running.iter().filter(|&&k| self.calls[k].child).count() as u32,
                waiting: r.queue.len() as u32,
                waiting_children: r.queued_children,
            })
            .collect();
        let s = Snapshot {
            pool,
            held: self.held,
            active: self.unfinished,
            issued: self.issued,
            moment: self.moment.take(),
        };
        self.issued = 0;
        s
    }
}

/// One key's run over `starts`.
fn run_key(c: &Config, key: Key, starts: &[Start], record: bool) -> KeyRun {
    let mut w = World {
        c,
        key,
        sessions: Vec::new(),
        due: BinaryHeap::new(),
        contexts: starts.len() as u32,
        scratch: Vec::new(),
        unfinished: 0,
        held: 0,
        calls: Vec::new(),
        replicas: (0..c.replicas)
            .map(|_| Replica {
                queue: VecDeque::new(),
                queued_children: 0,
                running: Vec::new(),
                cache: PrefixCache::new((c.cache / BLOCK) as usize),
            })
            .collect(),
        bursts: Vec::new(),
        watching: Vec::new(),
        ties: Rng::new(c.seed, stream::TIE_BREAKS + key as u64),
        now: 0,
        issued: 0,
        moment: None,
        pending: None,
    };
    let mut ttft: Vec<(usize, f64)> = Vec::new();
    let mut hits = (0u64, 0u64);
    let mut timeline = Vec::new();
    let mut queue = Vec::new();
    let mut second_peak = 0;
    let mut next = 0;
    let stop = u64::from(c.seconds) * 1000 + DRAIN_S * 1000;
    if record {
        timeline.push(w.snapshot());
    }
    loop {
        while next < starts.len() && starts[next].ms <= w.now {
            let st = starts[next];
            w.sessions.push(Session {
                start: st,
                rng: Rng::new(c.seed, SESSIONS + 1 + next as u64),
                context: next as u32,
                ctx: 0,
                done: 0,
                open: 0,
                in_flight: 0,
                held: VecDeque::new(),
                finished_at: None,
            });
            w.due.push(Reverse(due(w.now, w.sessions.len() - 1)));
            w.unfinished += 1;
            next += 1;
        }
        while let Some(&Reverse(d)) = w.due.peek() {
            if d >> 24 > w.now {
                break;
            }
            w.due.pop();
            w.issue((d & 0xff_ffff) as usize);
        }
        w.work(&mut ttft, &mut hits);
        let q = w.busiest_queue();
        second_peak = second_peak.max(q);
        let bursts = &mut w.bursts;
        w.watching.retain(|&b| bursts[b].left > 0);
        for &b in &w.watching {
            bursts[b].peak = bursts[b].peak.max(q);
        }
        if w.now % 1000 == 0 {
            queue.push(second_peak);
            second_peak = 0;
        }
        if record && w.now % FRAME_MS == 0 {
            let s = w.snapshot();
            timeline.push(s);
        }
        let idle = next == starts.len() && w.unfinished == 0;
        if (idle && w.now % 1000 == 0) || w.now >= stop {
            break;
        }
    }
    summarise(key, &w, &ttft, hits, queue, timeline)
}

fn summarise(
    key: Key,
    w: &World<'_>,
    ttft: &[(usize, f64)],
    hits: (u64, u64),
    queue: Vec<u32>,
    timeline: Vec<Snapshot>,
) -> KeyRun {
    let sorted = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v
    };
    let p = |v: &[f64], q: f64| {
        if v.is_empty() {
            0.0
        } else {
            percentile_sorted(v, q)
        }
    };
    let span = |s: &Session| s.finished_at.map(|t| (t - s.start.ms) as f64 / 1000.0);
    let all = sorted(
        w.sessions
            .iter()
            .filter(|s| s.start.kind != Kind::Long)
            .filter_map(span)
            .collect(),
    );
    let firsts = sorted(ttft.iter().map(|t| t.1).collect());
    let others = sorted(
        ttft.iter()
            .filter(|t| w.sessions[w.calls[t.0].session].start.kind != Kind::Subagents)
            .map(|t| t.1)
            .collect(),
    );
    let kinds = Kind::ALL
        .iter()
        .map(|&kind| {
            let of = |s: &&Session| s.start.kind == kind;
            let times = sorted(w.sessions.iter().filter(of).filter_map(span).collect());
            let timed = kind != Kind::Long && !times.is_empty();
            KindRow {
                kind,
                sessions: w.sessions.iter().filter(of).count() as u32,
                calls: w
                    .calls
                    .iter()
                    .filter(|k| w.sessions[k.session].start.kind == kind)
                    .count() as u32,
                p50: timed.then(|| p(&times, 50.0)),
                p95: timed.then(|| p(&times, 95.0)),
            }
        })
        .collect();
    let finished = w
        .calls
        .iter()
        .filter(|k| k.first && k.decoded >= f64::from(k.out))
        .count() as u32;
    let calls = w.calls.len() as u32;
    KeyRun {
        key,
        sessions: w.sessions.len() as u32,
        calls,
        finished,
        unfinished: calls - finished,
        session_p50: p(&all, 50.0),
        session_p95: p(&all, 95.0),
        ttft_p50: p(&firsts, 50.0),
        ttft_p95: p(&firsts, 95.0),
        others_p95: p(&others, 95.0),
        cache_share: if hits.1 == 0 {
            0.0
        } else {
            hits.0 as f64 / hits.1 as f64
        },
        burst_queue: if w.bursts.is_empty() {
            0.0
        } else {
            w.bursts.iter().map(|b| f64::from(b.peak)).sum::<f64>() / w.bursts.len() as f64
        },
        worst_queue: queue.iter().copied().max().unwrap_or(0),
        kinds,
        queue,
        timeline,
    }
}

/// Run every key on the same sessions without recording (what the claims
/// over many seeds need).
pub fn run_keys(config: &Config, keys: &[Key]) -> Result<Vec<KeyRun>, ParamError> {
    config.validate()?;
    let s = starts(config);
    Ok(keys
        .iter()
        .map(|&k| run_key(config, k, &s, false))
        .collect())
}

/// Run `keys` on the same sessions, recording each step by step.
pub fn run(config: &Config, keys: &[Key]) -> Result<super::Outcome, ParamError> {
    config.validate()?;
    let s = starts(config);
    Ok(super::Outcome {
        config: config.clone(),
        runs: keys.iter().map(|&k| run_key(config, k, &s, true)).collect(),
    })
}
