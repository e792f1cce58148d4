//! What a Routing Lab run costs, estimated before it runs (see
//! [`crate::labs::work`]). Calibrated against release runs of this lab on the
//! reference machine (20,000 requests at the defaults: 22 ms a rule; each
//! term below was varied alone and measured): the estimate is within about
//! half to twice the measured time over the ranges of every parameter.
//!
//! - Every prompt hash block passes through the prefix cache and the
//!   cache-aware rules' lookups: about 100 ns a block, more once the caches
//!   hold hundreds of thousands of blocks (the tables outgrow the processor's
//!   caches).
//! - Every prefill step and output token is a few nanoseconds of engine work.
//! - Every replica costs its rule's decision a little, and every tick of the
//!   run a little per replica (queue sampling, an idle step).
//! - With counterfactuals every decision also asks every other rule (64 times
//!   the work, measured).

use alloc::format;

use super::Config;
use crate::labs::work::{thousands, Work};
use crate::workload::Workload;

/// The shape of a run's requests, from the generator's settings or a trace.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Requests.
    pub requests: f64,
    /// Mean prompt tokens.
    pub prompt: f64,
    /// Mean output tokens.
    pub output: f64,
    /// Tokens per prefix hash block.
    pub block_tokens: f64,
    /// Ticks from the first arrival to the last.
    pub window: f64,
}

impl Shape {
    /// What the generator will draw under `config`.
    pub fn generated(config: &Config) -> Shape {
        let prompt = f64::from(config.mean_prompt)
            .clamp(f64::from(config.prompt_min), f64::from(config.prompt_max));
        let output = (1.0 - config.long_share) * config.short_output_mean
            + config.long_share * config.long_output_mean;
        let requests = f64::from(config.requests);
        Shape {
            requests,
            prompt,
            output,
            block_tokens: f64::from(config.hash_block_tokens.max(1)),
            window: requests / config.rate.max(1e-9),
        }
    }

    /// What `workload` holds.
    pub fn of(workload: &Workload) -> Shape {
        let s = workload.stats();
        Shape {
            requests: f64::from(s.requests),
            prompt: s.prompt.mean,
            output: s.output.mean,
            block_tokens: f64::from(s.block_tokens.max(1)),
            window: s.last_arrival.saturating_sub(s.first_arrival) as f64,
        }
    }
}

/// Nanoseconds one rule's run of `shape` takes under `config`.
pub fn rule_ns(config: &Config, shape: &Shape) -> f64 {
    let replicas = f64::from(config.replicas) + f64::from(u8::from(config.scale_up_at > 0));
    let blocks = libm::ceil(shape.prompt / shape.block_tokens).max(1.0);
    let prefill = libm::ceil(shape.prompt / f64::from(config.prefill_budget.max(1)));
    // Blocks the caches end up holding: past a few hundred thousand the
    // lookups miss the processor's caches.
    let cache_blocks = f64::from(config.cache_tokens) / shape.block_tokens;
    let resident = cache_blocks.min(shape.requests * blocks) * replicas;
    let per_block = 100.0 * (1.0 + resident / 200_000.0);
    let mut per_request =
        per_block * blocks + 4.0 * (prefill + shape.output) + 25.0 * replicas + 300.0;
    if config.counterfactuals {
        per_request *= 64.0;
    }
    // The run lasts the arrivals' window, or as long as the pool needs to
    // serve them when it cannot keep up; ticks past `max_ticks` never run.
    let serve =
        shape.requests * (prefill + shape.output / f64::from(config.slots.max(1))) / replicas;
    let ticks = shape.window.max(serve).min(config.max_ticks as f64);
    shape.requests * per_request + 6.0 * replicas * ticks
}

/// The work of `rules` rules on `shape`.
pub fn work(config: &Config, rules: usize, shape: &Shape) -> Work {
    Work {
        ns: rules as f64 * rule_ns(config, shape),
        what: format!(
            "{rules} rule{} × {} requests of about {} prompt blocks{}",
            if rules == 1 { "" } else { "s" },
            thousands(shape.requests as u64),
            thousands(libm::ceil(shape.prompt / shape.block_tokens) as u64),
            if config.counterfactuals {
                ", each decision asking every other rule"
            } else {
                ""
            }
        ),
        drivers: &[
            "requests",
            "counterfactuals",
            "mean-prompt",
            "+hash-block-tokens",
            "short-output-mean",
            "long-output-mean",
            "+rate",
        ],
    }
}
