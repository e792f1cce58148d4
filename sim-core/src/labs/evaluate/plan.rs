//! The conversations every experiment replays: drawn once from the seed
//! (or recovered from a replayed trace), so each arm, design and load point
//! sees the same people asking the same things; only when each turn arrives
//! depends on the loop.

use alloc::vec::Vec;

use super::Config;
use crate::rng::{stream, Rng};
use crate::workload::{BlockId, Request, Workload};

/// Tokens one hash block of the plan's prompts covers.
pub const BLOCK: u32 = 64;

/// One conversation.
#[derive(Clone, Debug)]
pub struct Conversation {
    /// Its system prompt (0-based).
    pub system: u32,
    /// Per turn: the user's message, the answer, and the gap (ticks) from
    /// the answer to the next turn.
    pub turns: Vec<(u32, u32, f64)>,
}

/// The sum of every turn's pause in `convs`.
fn convs_gaps(convs: &[Conversation]) -> f64 {
    convs.iter().flat_map(|c| &c.turns).map(|t| t.2).sum()
}

/// Conversations in order of their start, and (open loop) when each starts.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The conversations.
    pub convs: Vec<Conversation>,
    /// Open loop: the tick each conversation starts, at the lab's rate.
    pub starts: Vec<f64>,
    /// Blocks of one system prompt.
    sys_blocks: u32,
    /// Tokens of one prompt block.
    pub block_tokens: u32,
    /// Turns per tick the open loop sends at scale 1.
    pub per_tick: f64,
    /// Ticks one turn takes with nothing waiting (its prefill and answer).
    pub turn_ticks: f64,
    /// Mean ticks a user pauses before the next turn.
    pub think: f64,
    /// KV blocks of 16 tokens per replica: 4,096 for the drawn
    /// conversations (65,536 tokens, more than eight slots of them ever
    /// hold), 40,000 for a trace, whose prompts run to 100,000 tokens (the
    /// Routing Lab's engine for traces).
    pub kv_blocks: u32,
    /// A replayed trace's last arrival tick at its own timing (None for
    /// drawn conversations, which never run out).
    pub span: Option<u64>,
    /// A replayed trace: per conversation, its requests' indices in `trace`.
    replay: Vec<Vec<u32>>,
    /// A replayed trace's requests, and per request its leading tokens other
    /// conversations share.
    trace: Vec<(Request, u32)>,
}

impl Plan {
    /// Draw `n` conversations for `config` (enough for any loop of the run).
    pub fn new(config: &Config, n: usize) -> Plan {
        let mut arrivals = Rng::new(config.seed, stream::ARRIVALS);
        let mut lengths = Rng::new(config.seed, stream::PROMPTS);
        let mut outputs = Rng::new(config.seed, stream::OUTPUTS);
        let mut systems = Rng::new(config.seed, stream::PREFIXES);
        let mut think = Rng::new(config.seed, stream::THINK);
        // Zipf(1) popularity over the system prompts.
        let weights: Vec<f64> = (0..config.systems.max(1))
            .map(|k| 1.0 / f64::from(k + 1))
            .collect();
        let total: f64 = weights.iter().sum();
        let p_more = 1.0 - 1.0 / config.turns.max(1.0);
        let (mut t, mut convs, mut starts) = (0.0, Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let b = config.burstiness;
            t += if b == 1.0 {
                arrivals.exponential(1.0 / config.rate)
            } else {
                arrivals.gamma(b, 1.0 / (config.rate * b))
            };
            starts.push(t);
            let mut pick = systems.unit() * total;
            let mut system = 0;
            while system + 1 < weights.len() && pick >= weights[system] {
                pick -= weights[system];
                system += 1;
            }
            let mut turns = Vec::new();
            loop {
                let msg = lengths
                    .gamma_mean_cv(f64::from(config.message), 0.5)
                    .max(1.0) as u32;
                let out = outputs
                    .gamma_mean_cv(f64::from(config.output), 0.5)
                    .max(1.0) as u32;
                let gap = if config.think > 0.0 {
                    think.exponential(config.think)
                } else {
                    0.0
                };
                turns.push((msg, out, gap));
                if turns.len() >= 64 || lengths.unit() >= p_more {
                    break;
                }
            }
            convs.push(Conversation {
                system: system as u32,
                turns,
            });
        }
        Plan {
            convs,
            starts,
            sys_blocks: config.system_tokens.div_ceil(BLOCK),
            block_tokens: BLOCK,
            per_tick: config.rate * config.turns,
            turn_ticks: f64::from(config.system_tokens + config.message * 2)
                / f64::from(config.prefill)
                + f64::from(config.output)
                + 2.0,
            think: config.think,
            kv_blocks: 4096,
            span: None,
            replay: Vec::new(),
            trace: Vec::new(),
        }
    }

    /// The conversations of a replayed trace, as [`Workload::sessions`]
    /// recovers them: each starts when its first request arrived, and a
    /// turn follows the previous one by the trace's own gap (less the
    /// answer's length, which the loop adds back).
    pub fn from_trace(config: &Config, w: &Workload) -> Plan {
        let sessions = w.sessions();
        let mut replay: Vec<Vec<u32>> = alloc::vec![Vec::new(); sessions.count as usize];
        for (i, &s) in sessions.of.iter().enumerate() {
            replay[s as usize].push(i as u32);
        }
        let reqs = &w.requests;
        let convs: Vec<Conversation> = replay
            .iter()
            .map(|turns| Conversation {
                system: 0,
                turns: turns
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        let r = &reqs[i as usize];
                        let gap = turns.get(k + 1).map_or(0, |&j| {
                            reqs[j as usize]
                                .arrival
                                .0
                                .saturating_sub(r.arrival.0 + u64::from(r.output_tokens))
                        });
                        (r.prompt_tokens, r.output_tokens, gap as f64)
                    })
                    .collect(),
            })
            .collect();
        let starts = replay
            .iter()
            .map(|t| reqs[t[0] as usize].arrival.0 as f64)
            .collect();
        let stats = w.stats();
        let n = reqs.len().max(1) as f64;
        let turn_ticks = reqs
            .iter()
            .map(|r| {
                f64::from(r.prompt_tokens) / f64::from(config.prefill)
                    + f64::from(r.output_tokens)
                    + 2.0
            })
            .sum::<f64>()
            / n;
        let bt = w.block_tokens;
        let think = convs_gaps(&convs) / n;
        Plan {
            convs,
            starts,
            sys_blocks: 0,
            block_tokens: bt,
            per_tick: stats.rate,
            turn_ticks,
            think,
            kv_blocks: 40_000,
            span: reqs.last().map(|r| r.arrival.0),
            replay,
            trace: reqs
                .iter()
                .zip(&sessions.shared_blocks)
                .map(|(r, &b)| (r.clone(), (b * bt).min(r.prompt_tokens)))
                .collect(),
        }
    }

    /// Where an open-loop run at `scale` times the plan's rate should end
    /// instead of `end`: a trace sent faster runs out sooner, and the ticks
    /// after its last arrival would read as a pool doing nothing.
    pub fn end_at(&self, scale: f64, end: u64) -> u64 {
        self.span
            .map_or(end, |s| end.min((s as f64 / scale.max(1e-9)) as u64 + 1))
    }

    /// Leading tokens of turn `turn` of conversation `conv` that other
    /// conversations share (the system prompt): any replica may have them
    /// cached, so only the rest is the conversation's own history.
    pub fn shared(&self, conv: u32, turn: u32) -> u32 {
        match self.replay.get(conv as usize) {
            Some(t) => self.trace[t[turn as usize] as usize].1,
            None => self.sys_blocks * BLOCK,
        }
    }

    /// Turn `turn` of conversation `conv` as a request arriving at `arrival`.
    /// A replayed trace's request is the trace's own; a drawn one's prompt
    /// is the system prompt, then every earlier message and answer, then
    /// this message. The system prompt's blocks are shared by
    /// its conversations; the rest are the conversation's own, numbered by
    /// position, so a later turn's prompt extends an earlier one's.
    pub fn request(&self, conv: u32, turn: u32, arrival: u64) -> Request {
        if let Some(t) = self.replay.get(conv as usize) {
            return Request {
                arrival: crate::time::Tick(arrival),
                ..self.trace[t[turn as usize] as usize].0.clone()
            };
        }
        let c = &self.convs[conv as usize];
        let history: u32 = c.turns[..turn as usize]
            .iter()
            .map(|&(m, o, _)| m + o)
            .sum();
        let (msg, out, _) = c.turns[turn as usize];
        let own = history + msg;
        let sys = self.sys_blocks * BLOCK;
        let mut blocks: Vec<BlockId> = (0..self.sys_blocks).map(|j| c.system * 4096 + j).collect();
        // Conversation blocks start past every system prompt's range.
        let base = 64 * 4096 + conv.wrapping_mul(1 << 12);
        blocks.extend((0..own.div_ceil(BLOCK)).map(|j| base.wrapping_add(j)));
        Request {
            adapter: 0,
            arrival: crate::time::Tick(arrival),
            prompt_tokens: sys + own,
            output_tokens: out.max(1),
            blocks,
            long: false,
        }
    }
}
