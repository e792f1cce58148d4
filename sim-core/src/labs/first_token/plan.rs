//! The conversations every recovery sees: drawn once from the seed, so the
//! strategies differ only in what they do, never in what arrives.

use alloc::vec::Vec;

use super::config::Config;
use crate::rng::Rng;

/// Stream of the conversations' starts, lengths and efforts.
const CONVERSATIONS: u64 = 400;

/// New user tokens a later turn adds to the prompt (a message of a few
/// sentences), besides the previous answer.
pub const NEW_TOKENS: u32 = 150;

/// One turn as drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Turn {
    /// Effort: 0 low, 1 medium, 2 high.
    pub effort: u8,
    /// Tokens of the visible answer.
    pub visible: u32,
    /// Milliseconds the user takes after the previous answer (0 for the
    /// first turn, which comes at the conversation's start).
    pub think_ms: u64,
}

/// One conversation as drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversation {
    /// When its first turn arrives.
    pub start_ms: u64,
    /// Its turns, in order.
    pub turns: Vec<Turn>,
}

/// Every conversation of the run, in order of start.
pub fn conversations(c: &Config) -> Vec<Conversation> {
    let mut rng = Rng::new(c.seed, CONVERSATIONS);
    let end = u64::from(c.seconds) * 1000;
    let mut out = Vec::new();
    let mut at = 0.0;
    loop {
        at += rng.exponential(1000.0 / c.rate);
        if at >= end as f64 {
            break;
        }
        let u = rng.unit();
        let base = if u < c.high_share {
            2
        } else if u < c.high_share + c.medium_share {
            1
        } else {
            0
        };
        // Geometric turns with the mean asked: each turn is the last with
        // probability 1 / mean.
        let mut turns = Vec::new();
        loop {
            let changed = rng.unit() < c.vary;
            let other = rng.below(2) as u8;
            let effort = if changed {
                // One of the two other efforts, equally likely.
                (base + 1 + other) % 3
            } else {
                base
            };
            let visible = libm::round(rng.gamma_mean_cv(f64::from(c.output), 0.5)).max(1.0) as u32;
            let think_ms = if turns.is_empty() {
                0
            } else {
                libm::round(rng.exponential(c.think * 1000.0)) as u64
            };
            turns.push(Turn {
                effort,
                visible,
                think_ms,
            });
            if rng.unit() < 1.0 / c.turns.max(1.0) || turns.len() >= 64 {
                break;
            }
        }
        out.push(Conversation {
            start_ms: at as u64,
            turns,
        });
    }
    out
}

/// The chance and the point of an attempt's failure: `Some(k)` fails it once
/// it has produced `k` of its `total` tokens (0: at the end of its prefill,
/// before any token). Drawn from the request's own stream and the attempt's
/// number, so every strategy's first attempt of a request meets the same
/// fate on the same replica.
pub fn failure(c: &Config, request: u64, attempt: u32, replica: u32, total: u32) -> Option<u32> {
    let chance = if replica == 0 { c.faulty } else { c.fail };
    let mut rng = Rng::new(c.seed, FAILS + request * 16 + u64::from(attempt.min(15)));
    let fails = rng.unit() < chance;
    let at = rng.below(total + 1);
    fails.then_some(at)
}

/// First stream of the attempts' failure draws.
const FAILS: u64 = 1 << 32;
