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
use crate::labs::work::{thousands, Meter, Work};
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
            .max(f64::from(config.prompt_min))
            .min(f64::from(config.prompt_max));
        let output = (1.0 - config.long_share) * config.short_output_mean
            + config.long_share * config.long_output_mean;
        let requests = f64::from(config.requests);
        // The arrivals' span, shorter by the ramp's mean rate (the
        // generator's ramp) or stage by stage; with clients, at least each client's pauses
        // (their waits for the pool are in `ticks`).
        let plan = config.stage_plan();
        let open = if plan.is_empty() {
            2.0 * requests / (config.arrivals_per_tick().max(1e-9) * (1.0 + config.ramp))
        } else {
            // Each stage's own span (the waits between stages are in
            // `ticks`); requests past the last come at its rate.
            let (mut left, mut span) = (requests, 0.0);
            for &(rate, count) in &plan {
                let k = f64::from(count).min(left);
                span += k / rate.max(1e-9);
                left -= k;
            }
            span + left / plan.last().map_or(1.0, |s| s.0.max(1e-9))
        };
        let window = if config.clients > 0 {
            open.max(requests / f64::from(config.clients) * config.think)
        } else {
            open
        };
        Shape {
            requests,
            prompt,
            output,
            block_tokens: f64::from(config.hash_block_tokens.max(1)),
            window,
        }
    }

    /// What `workload` holds.
    ///
    /// The same figures as [`Workload::stats`] gives (its means are sums of
    /// whole token counts, exact in `f64`), without the rest of that summary
    /// (its set of every prompt block, its sorted lengths), which the page's
    /// Routing Lab run paid for twice, for figures the estimate never reads.
    pub fn of(workload: &Workload) -> Shape {
        let reqs = &workload.requests;
        let n = reqs.len();
        let mean = |total: u64| if n == 0 { 0.0 } else { total as f64 / n as f64 };
        let prompt: u64 = reqs.iter().map(|r| u64::from(r.prompt_tokens)).sum();
        let output: u64 = reqs.iter().map(|r| u64::from(r.output_tokens)).sum();
        let first = reqs.first().map_or(0, |r| r.arrival.0);
        let last = reqs.last().map_or(0, |r| r.arrival.0);
        Shape {
            requests: n as f64,
            prompt: mean(prompt),
            output: mean(output),
            block_tokens: f64::from(workload.block_tokens.max(1)),
            window: last.saturating_sub(first) as f64,
        }
    }
}

/// Nanoseconds of one tick of one replica that has work (fitted on release
/// runs of 1,300 random configurations: 5.0).
pub const TICK_NS: f64 = 5.0;
/// Nanoseconds of one preemption, besides re-admitting its prompt blocks.
pub const PREEMPT_NS: f64 = 100.0;
/// Nanoseconds per prompt block a re-admission touches in the cache.
pub const BLOCK_NS: f64 = 17.0;

/// Ticks one rule's run lasts: the arrivals' window, or as long as the pool
/// needs to serve the requests when it cannot keep up, whichever is longer
/// (ticks past `max_ticks` never run). A replica serves as many sequences at
/// once as its slots allow, or as its KV holds at their peak size if that is
/// fewer (one at least: an oversized request runs alone).
pub fn ticks(config: &Config, shape: &Shape) -> f64 {
    let replicas = f64::from(config.replicas) + f64::from(u8::from(config.scale_up_at > 0));
    let prefill = libm::ceil(shape.prompt / f64::from(config.prefill_budget.max(1)));
    let peak = (shape.prompt + shape.output) / f64::from(config.kv_block_tokens.max(1));
    let at_once = (f64::from(config.engine().kv_blocks) / peak.max(1.0))
        .clamp(1.0, f64::from(config.slots.max(1)));
    // In milliseconds mode a tick is a millisecond: steps last what the
    // preset says (a prefill chunk at mid-prompt, a decode step of the
    // batch at mid-output).
    let (prefill_step, decode_step) = match config.step_cost() {
        None => (1.0, 1.0),
        Some(c) => {
            let chunk = shape.prompt.min(f64::from(config.prefill_budget.max(1)));
            let context = shape.prompt + shape.output / 2.0;
            (
                c.prefill_s(chunk, shape.prompt / 2.0) * 1000.0,
                c.decode_s(at_once, at_once * context) * 1000.0,
            )
        }
    };
    let serve =
        shape.requests * (prefill * prefill_step + shape.output / at_once * decode_step) / replicas;
    shape.window.max(serve).min(config.max_ticks as f64)
}

/// Ticks one engine iteration lasts: one in ticks mode; in milliseconds
/// mode a decode step of a full batch at mid-output (the loop runs each
/// replica from one arrival to the next in one go, so its cost follows the
/// iterations, not the milliseconds).
pub fn step_ticks(config: &Config, shape: &Shape) -> f64 {
    match config.step_cost() {
        None => 1.0,
        Some(c) => {
            let slots = f64::from(config.slots.max(1));
            let context = shape.prompt + shape.output / 2.0;
            (c.decode_s(slots, slots * context) * 1000.0).max(1.0)
        }
    }
}

/// Nanoseconds of one rule's run of `shape` under `config` that do not
/// depend on how long it lasts: routing each request and passing its prompt
/// blocks through the caches, and the engines' work per token.
pub fn fixed_ns(config: &Config, shape: &Shape) -> f64 {
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
    shape.requests * per_request
}

/// Preemptions one rule's run is expected to make: none while a replica's
/// KV holds all its slots' sequences at their peak; otherwise growth
/// overflows it, and the newest sequence is recomputed from its start. How
/// often is chaotic (from none to one per two output tokens in calibration
/// runs); one per forty output tokens is what nine runs in ten stay below.
/// The meter catches the rest as it happens.
pub fn preemptions(config: &Config, shape: &Shape) -> f64 {
    let peak = (shape.prompt + shape.output) / f64::from(config.kv_block_tokens.max(1));
    if f64::from(config.engine().kv_blocks) >= peak * f64::from(config.slots) {
        return 0.0;
    }
    shape.requests * shape.output / 40.0
}

/// Nanoseconds one rule's run of `shape` takes under `config`: the fixed
/// part, a charge per tick of every replica, and the expected preemptions.
pub fn rule_ns(config: &Config, shape: &Shape) -> f64 {
    let replicas = f64::from(config.replicas) + f64::from(u8::from(config.scale_up_at > 0));
    let blocks = libm::ceil(shape.prompt / shape.block_tokens).max(1.0);
    fixed_ns(config, shape)
        + TICK_NS * replicas * ticks(config, shape) / step_ticks(config, shape)
        + preemptions(config, shape) * (PREEMPT_NS + BLOCK_NS * blocks)
}

/// The meter for a run of `rules` rules on `shape`: what its fixed part
/// leaves for the ticks and preemptions that cannot be foreseen.
pub fn meter(config: &Config, rules: usize, shape: &Shape) -> Meter {
    Meter::after(rules as f64 * fixed_ns(config, shape))
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
            "+kv-blocks",
            "mean-prompt",
            "+hash-block-tokens",
            "short-output-mean",
            "long-output-mean",
            "+rate",
            "+rps",
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::generator;

    /// `of` reads the same figures off a workload as its full statistics.
    #[test]
    fn shape_of_a_workload_agrees_with_its_statistics() {
        for seed in 1..6 {
            let config = Config {
                seed,
                ..Config::default()
            };
            let w = generator::generate(&config.generator(), seed);
            let (shape, s) = (Shape::of(&w), w.stats());
            assert_eq!(shape.requests, f64::from(s.requests));
            assert_eq!(shape.prompt.to_bits(), s.prompt.mean.to_bits());
            assert_eq!(shape.output.to_bits(), s.output.mean.to_bits());
            assert_eq!(shape.block_tokens, f64::from(s.block_tokens.max(1)));
            assert_eq!(
                shape.window,
                s.last_arrival.saturating_sub(s.first_arrival) as f64
            );
        }
    }
}
