//! Sizing with Little's law (§1.3): L = λW, so a replica whose KV cache holds at
//! most Lmax sequences, each resident for W ticks, completes at most
//! λmax = Lmax / W requests per tick.
//!
//! Residency follows the engine model of the other labs: the prompt is prefilled
//! at `prefill_rate` tokens per tick, then one output token is decoded per tick.
//! Prefix-cache hits skip part of the prefill, which shortens W and raises λmax;
//! cached tokens still occupy KV blocks, so Lmax does not change. W grows with
//! the batch a replica runs, so λmax is a ceiling at the operating point where W
//! was measured.

use serde::{Deserialize, Serialize};

use crate::labs::{check_range, RangeError};

/// Little's-law sizing inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// KV capacity, in blocks (1–10,000,000; default 20,000).
    pub kv_blocks: u32,
    /// Tokens per KV block (1–1,024; default 16).
    pub block_tokens: u32,
    /// Prompt tokens per request (1–1,000,000; default 8,000, an agent step).
    pub prompt_tokens: u32,
    /// Output tokens per request (1–100,000; default 100).
    pub output_tokens: u32,
    /// Prompt tokens prefilled per tick (1–100,000; default 320, as in the
    /// routing lab's engine).
    pub prefill_rate: u32,
    /// Share of prompt tokens served from the prefix cache (0–1; default 0.75).
    pub cache_hit: f64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            kv_blocks: 20_000,
            block_tokens: 16,
            prompt_tokens: 8_000,
            output_tokens: 100,
            prefill_rate: 320,
            cache_hit: 0.75,
        }
    }
}

/// The ceiling with and without cache hits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    pub config: Config,
    /// KV blocks one resident sequence holds (prompt plus output, rounded up).
    pub blocks_per_sequence: u32,
    /// Sequences the KV cache holds at once (Lmax).
    pub l_max: u32,
    /// Prefill part of the residency without cache hits, in ticks.
    pub prefill_ticks: f64,
    /// Residency W without cache hits, in ticks.
    pub residency: f64,
    /// λmax without cache hits, in requests per tick.
    pub lambda_max: f64,
    /// Prefill part of the residency with the cache-hit share, in ticks.
    pub prefill_ticks_cached: f64,
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
        "prompt_tokens",
        f64::from(cfg.prompt_tokens),
        1.0,
        1_000_000.0,
    )?;
    check_range(
        "output_tokens",
        f64::from(cfg.output_tokens),
        1.0,
        100_000.0,
    )?;
    check_range("prefill_rate", f64::from(cfg.prefill_rate), 1.0, 100_000.0)?;
    check_range("cache_hit", cfg.cache_hit, 0.0, 1.0)?;
    let blocks = (cfg.prompt_tokens + cfg.output_tokens).div_ceil(cfg.block_tokens);
    let l_max = cfg.kv_blocks / blocks;
    let prefill = f64::from(cfg.prompt_tokens) / f64::from(cfg.prefill_rate);
    let prefill_cached = prefill * (1.0 - cfg.cache_hit);
    let decode = f64::from(cfg.output_tokens);
    Ok(Outcome {
        config: cfg.clone(),
        blocks_per_sequence: blocks,
        l_max,
        prefill_ticks: prefill,
        residency: prefill + decode,
        lambda_max: f64::from(l_max) / (prefill + decode),
        prefill_ticks_cached: prefill_cached,
        residency_cached: prefill_cached + decode,
        lambda_max_cached: f64::from(l_max) / (prefill_cached + decode),
    })
}
