//! The conversations every experiment replays: drawn once from the seed,
//! so each arm, design and load point sees the same people asking the same
//! things; only when each turn arrives depends on the loop.

use alloc::vec::Vec;

use super::Config;
use crate::rng::{stream, Rng};
use crate::workload::{BlockId, Request};

/// Tokens one hash block of the plan's prompts covers.
pub const BLOCK: u32 = 64;

/// Tokens of a system prompt as the plan lays it out (whole blocks).
pub fn system_tokens(config: &Config) -> u32 {
    config.system_tokens.div_ceil(BLOCK) * BLOCK
}

/// One conversation.
#[derive(Clone, Debug)]
pub struct Conversation {
    /// Its system prompt (0-based).
    pub system: u32,
    /// Per turn: the user's message, the answer, and the gap (ticks) from
    /// the answer to the next turn.
    pub turns: Vec<(u32, u32, f64)>,
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
        }
    }

    /// Turn `turn` of conversation `conv` as a request arriving at `arrival`:
    /// its prompt is the system prompt, then every earlier message and
    /// answer, then this message. The system prompt's blocks are shared by
    /// its conversations; the rest are the conversation's own, numbered by
    /// position, so a later turn's prompt extends an earlier one's.
    pub fn request(&self, conv: u32, turn: u32, arrival: u64) -> Request {
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
            arrival: crate::time::Tick(arrival),
            prompt_tokens: sys + own,
            output_tokens: out.max(1),
            blocks,
            long: false,
        }
    }
}
