//! The seeded synthetic workload of the Routing Lab (article §4.2).
//!
//! Four independent random streams ([`crate::rng::stream`]) feed it, so e.g. a new
//! prompt-length CV never moves an arrival:
//! - **arrivals**: Poisson at `rate` requests per tick, or Gamma inter-arrivals with
//!   shape `b` (CV = 1/√b) when `burstiness` ≠ 1;
//! - **prompts**: log-normal lengths with the given mean and CV, clipped to
//!   `[prompt_min, prompt_max]` (the outcome reports the observed range);
//! - **outputs**: a long class with probability `long_share`; each class is
//!   Gamma with its own mean and CV (the Routing Lab's defaults: short 100, CV
//!   0.25; long 300, CV 0.5). Far more spread-out outputs (50 vs 600) make
//!   random versus round robin a coin flip (`docs/model.md`, Calibration);
//! - **prefixes**: a pool of shared prefixes with Zipf(1) popularity, each request's
//!   prefix covering a uniform share of its prompt (60–90% by default). Prefix `k`
//!   is one fixed chain of block ids, so two requests share `min` of their lengths.

use alloc::vec::Vec;

use super::{BlockId, Request, Workload};
use crate::rng::{stream, Rng};
use crate::time::Tick;

/// Everything the generator needs; the Routing Lab's `Config` fills it.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorSpec {
    /// Number of requests.
    pub requests: u32,
    /// Mean arrivals per tick (λ).
    pub rate: f64,
    /// Gamma shape of inter-arrival times; 1 is Poisson, below 1 is burstier.
    pub burstiness: f64,
    /// Mean prompt length before clipping, in tokens.
    pub mean_prompt: f64,
    /// Coefficient of variation of the prompt length.
    pub prompt_cv: f64,
    /// Shortest prompt, in tokens.
    pub prompt_min: u32,
    /// Longest prompt, in tokens.
    pub prompt_max: u32,
    /// Share of requests in the long-output class (0–1).
    pub long_share: f64,
    /// Mean output of a short request, in tokens.
    pub short_output_mean: f64,
    /// CV of short outputs.
    pub short_output_cv: f64,
    /// Mean output of a long request, in tokens.
    pub long_output_mean: f64,
    /// CV of long outputs.
    pub long_output_cv: f64,
    /// Number of distinct shared prefixes (0 disables sharing).
    pub prefix_pool: u32,
    /// Smallest share of a prompt that its prefix covers (0–1).
    pub prefix_cover_min: f64,
    /// Largest share of a prompt that its prefix covers (0–1).
    pub prefix_cover_max: f64,
    /// Tokens per hash block.
    pub block_tokens: u32,
}

/// Draw a workload from `spec` with `seed`. Same spec and seed, same workload.
pub fn generate(spec: &GeneratorSpec, seed: u64) -> Workload {
    let mut arrivals = Rng::new(seed, stream::ARRIVALS);
    let mut prompts = Rng::new(seed, stream::PROMPTS);
    let mut outputs = Rng::new(seed, stream::OUTPUTS);
    let mut prefixes = Rng::new(seed, stream::PREFIXES);

    let bt = spec.block_tokens.max(1);
    let max_blocks = spec.prompt_max.div_ceil(bt);
    // Prefix k is the chain k*max_blocks .. (k+1)*max_blocks; unique blocks follow.
    let pool = spec.prefix_pool;
    let mut next_unique: BlockId = pool.saturating_mul(max_blocks);
    // Zipf(1) popularity: weight of prefix k (0-based) is 1/(k+1).
    let weights: Vec<f64> = (0..pool).map(|k| 1.0 / f64::from(k + 1)).collect();
    let total_weight: f64 = weights.iter().sum();

    let mut time = 0.0f64;
    let mut requests = Vec::with_capacity(spec.requests as usize);
    for _ in 0..spec.requests {
        time += if spec.burstiness == 1.0 {
            arrivals.exponential(1.0 / spec.rate)
        } else {
            arrivals.gamma(spec.burstiness, 1.0 / (spec.rate * spec.burstiness))
        };
        let arrival = Tick(libm::floor(time) as u64);

        let raw = prompts.lognormal_mean_cv(spec.mean_prompt, spec.prompt_cv);
        let prompt_tokens = (libm::round(raw) as u32).clamp(spec.prompt_min, spec.prompt_max);

        let long = outputs.unit() < spec.long_share;
        let (mean, cv) = if long {
            (spec.long_output_mean, spec.long_output_cv)
        } else {
            (spec.short_output_mean, spec.short_output_cv)
        };
        let output_tokens = (libm::round(outputs.gamma_mean_cv(mean, cv)) as u32).max(1);

        let n_blocks = prompt_tokens.div_ceil(bt);
        let mut blocks = Vec::with_capacity(n_blocks as usize);
        if pool > 0 {
            let mut pick = prefixes.unit() * total_weight;
            let mut k = 0;
            while k + 1 < pool && pick >= weights[k as usize] {
                pick -= weights[k as usize];
                k += 1;
            }
            let cover = prefixes.uniform(spec.prefix_cover_min, spec.prefix_cover_max);
            let shared =
                ((libm::floor(cover * f64::from(prompt_tokens)) as u32) / bt).min(n_blocks);
            blocks.extend((0..shared).map(|j| k * max_blocks + j));
        }
        while (blocks.len() as u32) < n_blocks {
            blocks.push(next_unique);
            next_unique = next_unique.wrapping_add(1);
        }
        requests.push(Request {
            arrival,
            prompt_tokens,
            output_tokens,
            blocks,
            long,
        });
    }
    Workload {
        block_tokens: bt,
        requests,
    }
}
