//! The providers lab's traffic: conversations of several turns, fan-outs
//! over a shared document and one-turn batch jobs, each drawn once so every
//! strategy sees the same ones.

use alloc::vec::Vec;

use super::config::Config;
use crate::rng::{keyed_unit, stream, Rng};

/// What kind of work a conversation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Turns, each after the previous reply and some thought.
    Chat,
    /// Children sent together over one shared document.
    Fanout,
    /// One call nobody waits on.
    Batch,
}

/// One conversation, drawn before any strategy runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversation {
    /// Its id.
    pub id: u32,
    /// When its first call is sent, ms.
    pub start: u64,
    /// What it is.
    pub kind: Kind,
    /// Calls it would make with no budget and no failure (turns or children).
    pub calls: u32,
}

impl Conversation {
    /// Output tokens of its call `k` (keyed, so the same whatever the run).
    pub fn output(&self, c: &Config, k: u32) -> u32 {
        let u = keyed_unit(c.seed ^ 0x5EED0_u64, u64::from(self.id), u64::from(k));
        let x = -f64::from(c.output) * libm::log(u);
        (libm::round(x) as u32).max(1)
    }

    /// Seconds between its reply `k` and its next turn, ms.
    pub fn think(&self, c: &Config, k: u32) -> u64 {
        let u = keyed_unit(c.seed ^ 0x7417_u64, u64::from(self.id), u64::from(k));
        (-c.think_s * 1000.0 * libm::log(u)) as u64
    }
}

/// Mean calls of a conversation.
pub fn calls_per_conversation(c: &Config) -> f64 {
    let chat = (1.0 - c.batch_share - c.fanout_share).max(0.0);
    chat * c.turns + c.fanout_share * f64::from(c.fanout) + c.batch_share
}

/// The conversations of a run at `c.rate` requests a second.
pub fn conversations(c: &Config) -> Vec<Conversation> {
    let per_s = c.rate / calls_per_conversation(c).max(1e-9);
    let mut arrivals = Rng::new(c.seed, stream::ARRIVALS);
    let mut kinds = Rng::new(c.seed, stream::PREFIXES);
    let mut lengths = Rng::new(c.seed, stream::PROMPTS);
    let end = f64::from(c.seconds) * 1000.0;
    let mut t = 0.0;
    let mut out = Vec::new();
    loop {
        t += arrivals.exponential(1000.0 / per_s);
        if t >= end {
            break;
        }
        let u = kinds.unit();
        let kind = if u < c.batch_share {
            Kind::Batch
        } else if u < c.batch_share + c.fanout_share {
            Kind::Fanout
        } else {
            Kind::Chat
        };
        // Geometric turns with mean `turns`: stop after each with 1/turns.
        let calls = match kind {
            Kind::Batch => 1,
            Kind::Fanout => c.fanout,
            Kind::Chat => {
                let stop = 1.0 / c.turns.max(1.0);
                let mut n = 1;
                while n < 200 && lengths.unit() >= stop {
                    n += 1;
                }
                n
            }
        };
        out.push(Conversation {
            id: out.len() as u32,
            start: t as u64,
            kind,
            calls,
        });
    }
    out
}
