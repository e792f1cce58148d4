//! Sizing with Little's law (§1.3): L = λW, so a replica whose KV cache holds at
//! most Lmax sequences, each resident for W ticks, completes at most
//! λmax = Lmax / W requests per tick. Prefix-cache hits shorten the prefill part
//! of W, which raises λmax.

use serde::{Deserialize, Serialize};

use crate::labs::{check_range, RangeError};

/// Little's-law sizing inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// KV capacity, in blocks (1–10,000,000; default 1,000).
    pub kv_blocks: u32,
    /// Tokens per KV block (1–1,024; default 16).
    pub block_tokens: u32,
    /// Tokens per resident sequence, prompt plus output (1–1,000,000; default 1,100).
    pub tokens_per_sequence: u32,
    /// Prefill part of the residency without cache hits, in ticks (0–10,000; default 3).
    pub prefill_ticks: f64,
    /// Decode part of the residency, in ticks (1–100,000; default 130).
    pub decode_ticks: f64,
    /// Share of prompt tokens served from the prefix cache (0–1; default 0.4).
    pub cache_hit: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            kv_blocks: 1000,
            block_tokens: 16,
            tokens_per_sequence: 1100,
            prefill_ticks: 3.0,
            decode_ticks: 130.0,
            cache_hit: 0.4,
        }
    }
}

/// The ceiling with and without cache hits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    pub config: Config,
    /// Sequences the KV cache holds at once (Lmax).
    pub l_max: u32,
    /// Residency without cache hits, in ticks.
    pub residency: f64,
    /// λmax without cache hits, in requests per tick.
    pub lambda_max: f64,
    /// Residency with the cache-hit share, in ticks.
    pub residency_cached: f64,
    /// λmax with the cache-hit share.
    pub lambda_max_cached: f64,
}

/// Compute the ceiling.
pub fn run(cfg: &Config) -> Result<Outcome, RangeError> {
    check_range("kv_blocks", f64::from(cfg.kv_blocks), 1.0, 10_000_000.0)?;
    check_range("block_tokens", f64::from(cfg.block_tokens), 1.0, 1024.0)?;
    check_range(
        "tokens_per_sequence",
        f64::from(cfg.tokens_per_sequence),
        1.0,
        1_000_000.0,
    )?;
    check_range("prefill_ticks", cfg.prefill_ticks, 0.0, 10_000.0)?;
    check_range("decode_ticks", cfg.decode_ticks, 1.0, 100_000.0)?;
    check_range("cache_hit", cfg.cache_hit, 0.0, 1.0)?;
    let blocks = cfg.tokens_per_sequence.div_ceil(cfg.block_tokens);
    let l_max = cfg.kv_blocks / blocks.max(1);
    let residency = cfg.prefill_ticks + cfg.decode_ticks;
    let residency_cached = cfg.prefill_ticks * (1.0 - cfg.cache_hit) + cfg.decode_ticks;
    Ok(Outcome {
        config: cfg.clone(),
        l_max,
        residency,
        lambda_max: f64::from(l_max) / residency,
        residency_cached,
        lambda_max_cached: f64::from(l_max) / residency_cached,
    })
}
