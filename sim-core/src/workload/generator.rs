//! The seeded synthetic workload of the Routing Lab (article §4.2).
//!
//! Four independent random streams ([`crate::rng::stream`]) feed it, so e.g. a new
//! prompt-length CV never moves an arrival:
//! - **arrivals**: Poisson at `rate` requests per tick, or Gamma inter-arrivals with
//!   shape `b` (CV = 1/√b) when `burstiness` ≠ 1; with a `ramp` above 1 the rate
//!   climbs linearly in time from `rate` to `ramp × rate` over the trace (the
//!   load ramps of published benchmarks), by stretching the same draws;
//!   with `stages`, the rate is each stage's in turn, stage by stage;
//! - **prompts**: log-normal lengths with the given mean and CV, clipped to
//!   `[prompt_min, prompt_max]` (the outcome reports the observed range);
//! - **outputs**: a long class with probability `long_share`; each class is
//!   Gamma with its own mean and CV (the Routing Lab's defaults: short 100, CV
//!   0.25; long 300, CV 0.5). Far more spread-out outputs (50 vs 600) make
//!   random versus round robin a coin flip (`docs/model.md`, Calibration);
//! - **prefixes**: a pool of shared prefixes with Zipf(s) popularity (s = 1 by
//!   default; 0 makes every prefix equally likely, as the shared-prefix groups
//!   of benchmark tools are), each request's
//!   prefix covering a uniform share of its prompt (60–90% by default). Prefix `k`
//!   is one fixed chain of block ids, so two requests share `min` of their lengths.
//!   With `prefix_variants` = V the rest of the prompt is one of V fixed tails
//!   of its prefix, so whole prompts repeat.

use alloc::vec::Vec;

use super::{BlockId, Request, Workload};
use crate::rng::{stream, Rng};
use crate::time::Tick;

/// Everything the generator needs; the Routing Lab's `Config` fills it.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorSpec {
    /// Number of requests.
    pub requests: u32,
    /// Mean arrivals per tick (λ), at the start of the trace.
    pub rate: f64,
    /// The rate at the end of the trace over the rate at its start (1 is a
    /// steady rate; at least 1).
    pub ramp: f64,
    /// Load stages as (arrivals per tick, requests), in order; empty for
    /// one stage at `rate` with `ramp`. Requests past the last stage come
    /// at its rate. Times run on from one stage to the next here; the
    /// routing run holds each stage until the previous one is answered.
    pub stages: Vec<(f64, u32)>,
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
    /// Zipf exponent of the prefixes' popularity: prefix k (from 0) is drawn
    /// with weight 1/(k+1)^s; 0 is uniform.
    pub prefix_zipf: f64,
    /// Prompts a prefix comes with: 0 gives every request a tail of its own;
    /// V > 0 draws the tail after the shared prefix from V fixed ones per
    /// prefix, so whole prompts repeat (a group's few questions, asked again).
    pub prefix_variants: u32,
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
    // Variant tails follow the prefixes: tail v of prefix k is the chain
    // starting at (pool + k·V + v)·max_blocks (ids wrap at 2^32).
    let variants = spec.prefix_variants;
    let mut next_unique: BlockId = pool.wrapping_mul(max_blocks).wrapping_mul(1 + variants);
    // Zipf(s) popularity: weight of prefix k (0-based) is 1/(k+1)^s.
    let weights: Vec<f64> = (0..pool)
        .map(|k| {
            // Exact for the default, whatever `pow` rounds to.
            if spec.prefix_zipf == 1.0 {
                1.0 / f64::from(k + 1)
            } else {
                1.0 / libm::pow(f64::from(k + 1), spec.prefix_zipf)
            }
        })
        .collect();
    let total_weight: f64 = weights.iter().sum();

    let mut time = 0.0f64;
    let mut requests = Vec::with_capacity(spec.requests as usize);
    let (mut stage, mut left) = (0usize, spec.stages.first().map_or(0, |s| s.1));
    for _ in 0..spec.requests {
        // With stages, the rate is the stage's and the ramp is not used.
        let rate = match spec.stages.get(stage) {
            Some(&(r, _)) => r,
            None => spec.stages.last().map_or(spec.rate, |s| s.0),
        };
        time += if spec.burstiness == 1.0 {
            arrivals.exponential(1.0 / rate)
        } else {
            arrivals.gamma(spec.burstiness, 1.0 / (rate * spec.burstiness))
        };
        let arrival = if spec.stages.is_empty() {
            Tick(libm::floor(ramped(time, spec)) as u64)
        } else {
            left = left.saturating_sub(1);
            if left == 0 && stage < spec.stages.len() {
                stage += 1;
                left = spec.stages.get(stage).map_or(u32::MAX, |s| s.1);
            }
            Tick(libm::floor(time) as u64)
        };

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
            blocks.extend((0..shared).map(|j| k.wrapping_mul(max_blocks) + j));
            if variants > 0 {
                let v = prefixes.below(variants);
                let chain = pool.wrapping_add(k.wrapping_mul(variants) + v);
                let start = chain.wrapping_mul(max_blocks);
                blocks.extend((shared..n_blocks).map(|j| start.wrapping_add(j)));
            }
        }
        while (blocks.len() as u32) < n_blocks {
            blocks.push(next_unique);
            next_unique = next_unique.wrapping_add(1);
        }
        requests.push(Request {
            adapter: 0,
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

/// The arrival time, under a linear ramp, of the arrival a steady rate puts at
/// `steady` ticks. The rate climbs as λ(t) = a·(1 + (m − 1)·t/T) over the
/// span T that holds `requests` arrivals on average, T = 2n / (a·(1 + m));
/// its integral is a·t + a·(m − 1)·t² / (2T), and the arrival comes when that
/// reaches a·`steady` (the same cumulative draw): the positive root of the
/// quadratic. Past T the rate stays where the ramp left it rising.
fn ramped(steady: f64, spec: &GeneratorSpec) -> f64 {
    let m = spec.ramp;
    if m <= 1.0 {
        return steady;
    }
    let span = 2.0 * f64::from(spec.requests) / (spec.rate * (1.0 + m));
    // a·t + c·t² = a·steady, with c = a(m − 1)/(2T); divide through by a.
    let c = (m - 1.0) / (2.0 * span);
    (libm::sqrt(1.0 + 4.0 * c * steady) - 1.0) / (2.0 * c)
}
