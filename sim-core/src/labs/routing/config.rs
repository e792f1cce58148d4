//! Routing Lab configuration: defaults are the article's (§4.2) and the model
//! constants of `shared/notes/routing-model.md`.

use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::engine::EngineSpec;
use crate::labs::RangeError;
use crate::routing::PrefixAwareParams;
use crate::workload::generator::GeneratorSpec;

/// Everything one Routing Lab run depends on. Missing keys take their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas in the pool (1–64; default 4).
    pub replicas: u32,
    /// Requests in the trace (1–200,000; default 160, a multiple of 4 so round
    /// robin deals every replica the same count).
    pub requests: u32,
    /// Mean arrivals per tick, λ (0.001–4; default 0.20).
    pub rate: f64,
    /// Gamma shape of inter-arrival times: 1 is Poisson, lower is burstier
    /// (CV of inter-arrivals = 1/√b; 0.05–20; default 1).
    pub burstiness: f64,
    /// Mean prompt length, in tokens (32–8,192; default 957).
    pub mean_prompt: u32,
    /// Coefficient of variation of prompt length (0–3; default 0.75).
    pub prompt_cv: f64,
    /// Prompts are clipped to at least this many tokens (1–8,192; default 64).
    pub prompt_min: u32,
    /// Prompts are clipped to at most this many tokens (1–65,536; default 8,192).
    pub prompt_max: u32,
    /// Share of requests with long outputs (0–1; default 0.20).
    pub long_share: f64,
    /// Mean output of a short request, in tokens (1–10,000; default 100).
    pub short_output_mean: f64,
    /// Mean output of a long request, in tokens (1–10,000; default 250).
    pub long_output_mean: f64,
    /// Shared prefixes in the pool, Zipf(1) popular (0–64; default 6).
    pub prefix_pool: u32,
    /// Least share of a prompt its prefix covers (0–1; default 0.6).
    pub prefix_cover_min: f64,
    /// Largest share of a prompt its prefix covers (0–1; default 0.9).
    pub prefix_cover_max: f64,
    /// TTFT service-level objective, in ticks (1–1,000,000; default 80).
    pub slo_ttft: u32,
    /// Seed of every random stream (default 1).
    pub seed: u64,
    /// Batch slots per replica (1–256; default 8).
    pub slots: u32,
    /// KV capacity per replica, in blocks (1–10,000,000; default 1,000).
    pub kv_blocks: u32,
    /// Tokens per KV block (1–1,024; default 16).
    pub kv_block_tokens: u32,
    /// Prompt tokens per prefill step (1–1,000,000; default 320: a mean prompt
    /// takes three uncached ticks).
    pub prefill_budget: u32,
    /// Prefix-cache capacity per replica, in tokens (0–10,000,000; default 8,192).
    pub cache_tokens: u32,
    /// Tokens per prefix hash block of generated traces (1–4,096; default 64).
    pub hash_block_tokens: u32,
    /// Thresholds of the prefix-aware rule.
    pub prefix_aware: PrefixAwareParams,
    /// Safety cap on simulated ticks per rule (1–100,000,000; default 20,000,000).
    pub max_ticks: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            replicas: 4,
            requests: 160,
            rate: 0.20,
            burstiness: 1.0,
            mean_prompt: 957,
            prompt_cv: 0.75,
            prompt_min: 64,
            prompt_max: 8192,
            long_share: 0.20,
            short_output_mean: 100.0,
            long_output_mean: 250.0,
            prefix_pool: 6,
            prefix_cover_min: 0.6,
            prefix_cover_max: 0.9,
            slo_ttft: 80,
            seed: 1,
            slots: 8,
            kv_blocks: 1000,
            kv_block_tokens: 16,
            prefill_budget: 320,
            cache_tokens: 8192,
            hash_block_tokens: 64,
            prefix_aware: PrefixAwareParams::default(),
            max_ticks: 20_000_000,
        }
    }
}

impl Config {
    /// Every ranged key as `(key, value, min, max)`, in declaration order. The
    /// one table both [`Config::validate`] and [`Config::range_of`] read.
    pub fn bounds(&self) -> Vec<(&'static str, f64, f64, f64)> {
        let p = &self.prefix_aware;
        vec![
            ("replicas", f64::from(self.replicas), 1.0, 64.0),
            ("requests", f64::from(self.requests), 1.0, 200_000.0),
            ("rate", self.rate, 0.001, 4.0),
            ("burstiness", self.burstiness, 0.05, 20.0),
            ("mean_prompt", f64::from(self.mean_prompt), 32.0, 8192.0),
            ("prompt_cv", self.prompt_cv, 0.0, 3.0),
            ("prompt_min", f64::from(self.prompt_min), 1.0, 8192.0),
            (
                "prompt_max",
                f64::from(self.prompt_max),
                f64::from(self.prompt_min),
                65_536.0,
            ),
            ("long_share", self.long_share, 0.0, 1.0),
            ("short_output_mean", self.short_output_mean, 1.0, 10_000.0),
            ("long_output_mean", self.long_output_mean, 1.0, 10_000.0),
            ("prefix_pool", f64::from(self.prefix_pool), 0.0, 64.0),
            ("prefix_cover_min", self.prefix_cover_min, 0.0, 1.0),
            (
                "prefix_cover_max",
                self.prefix_cover_max,
                self.prefix_cover_min,
                1.0,
            ),
            ("slo_ttft", f64::from(self.slo_ttft), 1.0, 1_000_000.0),
            ("slots", f64::from(self.slots), 1.0, 256.0),
            ("kv_blocks", f64::from(self.kv_blocks), 1.0, 10_000_000.0),
            (
                "kv_block_tokens",
                f64::from(self.kv_block_tokens),
                1.0,
                1024.0,
            ),
            (
                "prefill_budget",
                f64::from(self.prefill_budget),
                1.0,
                1_000_000.0,
            ),
            (
                "cache_tokens",
                f64::from(self.cache_tokens),
                0.0,
                10_000_000.0,
            ),
            (
                "hash_block_tokens",
                f64::from(self.hash_block_tokens),
                1.0,
                4096.0,
            ),
            ("max_ticks", self.max_ticks as f64, 1.0, 100_000_000.0),
            (
                "abs_threshold",
                f64::from(p.abs_threshold),
                0.0,
                1_000_000.0,
            ),
            ("rel_threshold", p.rel_threshold, 1.0, 1_000.0),
            ("cache_threshold", p.cache_threshold, 0.0, 1.0),
        ]
    }

    /// Check every value against its documented range; the first violation wins.
    pub fn validate(&self) -> Result<(), RangeError> {
        crate::labs::validate_bounds(self.bounds())
    }

    /// The `(min, max)` range of `key` (relative to the defaults for keys whose
    /// range depends on another), or `None` for an unknown key.
    pub fn range_of(key: &str) -> Option<(f64, f64)> {
        crate::labs::range_in(Config::default().bounds(), key)
    }

    /// The workload generator's view of this config.
    pub fn generator(&self) -> GeneratorSpec {
        GeneratorSpec {
            requests: self.requests,
            rate: self.rate,
            burstiness: self.burstiness,
            mean_prompt: f64::from(self.mean_prompt),
            prompt_cv: self.prompt_cv,
            prompt_min: self.prompt_min,
            prompt_max: self.prompt_max,
            long_share: self.long_share,
            short_output_mean: self.short_output_mean,
            short_output_cv: 0.5,
            long_output_mean: self.long_output_mean,
            long_output_cv: 0.25,
            prefix_pool: self.prefix_pool,
            prefix_cover_min: self.prefix_cover_min,
            prefix_cover_max: self.prefix_cover_max,
            block_tokens: self.hash_block_tokens,
        }
    }

    /// The engine constants of this config.
    pub fn engine(&self) -> EngineSpec {
        EngineSpec {
            slots: self.slots,
            kv_blocks: self.kv_blocks,
            kv_block_tokens: self.kv_block_tokens,
            prefill_budget: self.prefill_budget,
            cache_tokens: self.cache_tokens,
        }
    }
}
