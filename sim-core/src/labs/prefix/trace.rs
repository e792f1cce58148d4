//! Traces for the prefix player: requests carrying a prefix id and token counts.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::rng::{stream, Rng};

/// One request: which shared prefix it starts with and how long each part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixRequest {
    /// Prefix id, 1-based (P1, P2, …).
    pub prefix: u8,
    /// Tokens in the shared prefix.
    pub prefix_tokens: u32,
    /// Tokens after the prefix, unique to this request.
    pub suffix_tokens: u32,
}

impl PrefixRequest {
    /// Whole prompt, in tokens.
    pub fn prompt_tokens(&self) -> u32 {
        self.prefix_tokens + self.suffix_tokens
    }
}

/// Prefix sizes by id (P1…P6): (prefix tokens, suffix tokens). P1 is the
/// article's 4,000 + 180; the others are sized so the default trace's totals
/// come out at the article's 29,180 and 21,180 prefill tokens.
pub const PREFIXES: [(u32, u32); 6] = [
    (4000, 180),
    (2000, 140),
    (3000, 230),
    (1500, 160),
    (2500, 200),
    (1000, 120),
];

/// A trace from 1-based prefix ids, sizes from [`PREFIXES`]. Ids outside 1–6
/// are clamped into range.
pub fn trace_from_ids(ids: &[u8]) -> Vec<PrefixRequest> {
    ids.iter()
        .map(|&id| {
            let id = id.clamp(1, PREFIXES.len() as u8);
            let (p, s) = PREFIXES[usize::from(id - 1)];
            PrefixRequest {
                prefix: id,
                prefix_tokens: p,
                suffix_tokens: s,
            }
        })
        .collect()
}

/// Prefix ids of the default trace: P1 on 8 of 12 requests, R1 first. Found by
/// exhaustive search over the positions and prefixes of the other four requests.
pub const DEFAULT_IDS: [u8; 12] = [1, 2, 1, 3, 1, 1, 3, 1, 2, 1, 1, 1];

/// The article's scenario.
pub fn default_trace() -> Vec<PrefixRequest> {
    trace_from_ids(&DEFAULT_IDS)
}

/// A skewed random trace of `len` requests over `prefixes` prefixes: prefix k
/// (1-based) has weight 1/k² (so P1 dominates, as in agent traffic where one
/// system prompt is shared by most calls).
pub fn random_trace(len: usize, prefixes: u8, seed: u64) -> Vec<PrefixRequest> {
    let mut rng = Rng::new(seed, stream::PREFIXES);
    let k = prefixes.clamp(1, PREFIXES.len() as u8);
    let weights: Vec<f64> = (1..=k).map(|i| 1.0 / f64::from(i * i)).collect();
    let total: f64 = weights.iter().sum();
    let ids: Vec<u8> = (0..len)
        .map(|_| {
            let mut x = rng.unit() * total;
            let mut id = 1;
            for (i, w) in weights.iter().enumerate() {
                id = i as u8 + 1;
                if x < *w {
                    break;
                }
                x -= w;
            }
            id
        })
        .collect();
    trace_from_ids(&ids)
}
