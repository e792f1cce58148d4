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
//!
//! The seeded check keeps all Lmax slots busy for a long horizon, each slot
//! running sequence after sequence whose output length is drawn from an
//! exponential distribution with the chosen mean (so W varies from sequence to
//! sequence). Completions per tick come out at Lmax / E[W]: Little's law needs no
//! assumption about the distribution.

use serde::{Deserialize, Serialize};

use crate::labs::lab::{Input, Lab, LabInfo, Layer, Nothing, Panel, RunError, Tally};
use crate::labs::work::Work;
use crate::params::{narrow, Configurable, Param, ParamError, Show};
use crate::rng::{stream, Rng};
use alloc::format;
use alloc::string::String;

/// Ticks the seeded check runs for.
pub const CHECK_HORIZON: f64 = 200_000.0;

/// Sequences the seeded check simulates at most. Every slot is the same
/// renewal process, so once this many sequences have run, the rest of the
/// slots are counted at the rate the simulated ones showed (a replica of
/// 200,000 KV blocks holding 1-block sequences would otherwise be billions
/// of sequences).
pub const CHECK_SEQUENCES: u64 = 2_000_000;

/// Little's-law sizing inputs; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// KV capacity, in blocks (default 20,000).
    pub kv_blocks: u32,
    /// Tokens per KV block (default 16).
    pub block_tokens: u32,
    /// Prompt tokens per request (default 8,000, an agent step).
    pub prompt_tokens: u32,
    /// Output tokens per request (default 100).
    pub output_tokens: u32,
    /// Prompt tokens prefilled per tick (default 320, as in the routing lab's
    /// engine).
    pub prefill_rate: u32,
    /// Share of prompt tokens served from the prefix cache (0–1; default 0.75).
    pub cache_hit: f64,
    /// Seed of the check.
    pub seed: u64,
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::whole(
            "kv-blocks",
            "KV capacity",
            "blocks",
            (1000, 200_000, 1000),
            |c| c.kv_blocks.into(),
            |c, x| c.kv_blocks = narrow(x),
        )
        .doc("KV-cache blocks on one replica."),
        P::whole(
            "prompt",
            "Prompt",
            "tokens",
            (100, 64_000, 100),
            |c| c.prompt_tokens.into(),
            |c, x| c.prompt_tokens = narrow(x),
        )
        .doc("Prompt tokens per request."),
        P::whole(
            "output",
            "Output",
            "tokens",
            (10, 4000, 10),
            |c| c.output_tokens.into(),
            |c, x| c.output_tokens = narrow(x),
        )
        .doc("Output tokens per request, one decoded per tick."),
        P::whole(
            "prefill-rate",
            "Prefill speed",
            "tokens/tick",
            (64, 8192, 64),
            |c| c.prefill_rate.into(),
            |c, x| c.prefill_rate = narrow(x),
        )
        .doc("Prompt tokens processed per tick."),
        P::real(
            "cache-hit",
            "Prefix-cache hits",
            "",
            (0.0, 1.0, 0.05),
            |c| c.cache_hit,
            |c, x| c.cache_hit = x,
        )
        .doc("Share of prompt tokens already cached.")
        .show(Show::Percent(0)),
        P::whole(
            "block-tokens",
            "KV block size",
            "tokens",
            (1, 1024, 1),
            |c| c.block_tokens.into(),
            |c, x| c.block_tokens = narrow(x),
        )
        .doc("Tokens per KV block (vLLM's default is 16).")
        .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            kv_blocks: 20_000,
            block_tokens: 16,
            prompt_tokens: 8_000,
            output_tokens: 100,
            prefill_rate: 320,
            cache_hit: 0.75,
            seed: 1,
        }
    }
}

/// The ceiling with and without cache hits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
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
    /// The seeded check, with the cache-hit share.
    pub check: Check,
}

/// The seeded check of λmax = Lmax / W with variable output lengths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// Sequences started in the simulated slots (the last in each slot is
    /// still running at the horizon).
    pub started: u64,
    /// Sequences completed over the horizon.
    pub sequences: u64,
    /// Their mean residency, in ticks.
    pub mean_residency: f64,
    /// Completions per tick.
    pub throughput: f64,
    /// Slots simulated; the rest of the Lmax slots were counted at the
    /// simulated ones' rate (see [`CHECK_SEQUENCES`]).
    pub slots_simulated: u32,
}

impl Outcome {
    /// λmax at another cache-hit share (same replica and request shape).
    pub fn ceiling_at(&self, cache_hit: f64) -> f64 {
        let w = self.prefill_ticks * (1.0 - cache_hit) + f64::from(self.config.output_tokens);
        f64::from(self.l_max) / w
    }
}

/// Keep `slots` slots busy for [`CHECK_HORIZON`] ticks with sequences of
/// `prefill` ticks plus an exponential number of output ticks of mean `output`
/// (slot after slot, until [`CHECK_SEQUENCES`] have run).
fn check(slots: u32, prefill: f64, output: f64, seed: u64) -> Check {
    let mut rng = Rng::new(seed, stream::OUTPUTS);
    let (mut started, mut sequences, mut total) = (0u64, 0u64, 0.0f64);
    let mut simulated = 0u32;
    for _ in 0..slots {
        if sequences >= CHECK_SEQUENCES {
            break;
        }
        simulated += 1;
        let mut t = 0.0;
        loop {
            // At least one output token; the mean stays close to `output`.
            let w = prefill + libm::ceil(rng.exponential(output) - 0.5).max(1.0);
            started += 1;
            if t + w > CHECK_HORIZON {
                break;
            }
            t += w;
            total += w;
            sequences += 1;
        }
    }
    // The slots not simulated complete at the simulated ones' rate.
    let completed = if simulated == slots {
        sequences as f64
    } else {
        sequences as f64 / f64::from(simulated.max(1)) * f64::from(slots)
    };
    Check {
        started,
        sequences,
        mean_residency: if sequences > 0 {
            total / sequences as f64
        } else {
            0.0
        },
        throughput: completed / CHECK_HORIZON,
        slots_simulated: simulated,
    }
}

/// Compute the ceiling.
pub fn run(cfg: &Config) -> Result<Outcome, ParamError> {
    cfg.validate()?;
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
        check: check(l_max, prefill_cached, decode, cfg.seed),
    })
}

/// Little's-law sizing in the lab registry.
pub struct LittleLab;

impl Lab for LittleLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "little",
        title: "Little's law",
        section: "§1.3",
        layer: Layer::Foundations,
        summary: "A replica's throughput ceiling from its KV capacity and residency, and what cache hits add.",
        units: "Times in ticks; KV in blocks; throughput in requests per tick.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };

    /// The ceiling is a formula; the seeded check stops at
    /// [`CHECK_SEQUENCES`] sequences, about 20 ns each.
    fn work(_: &Config, _: &Input<'_, Nothing>) -> Work {
        Work {
            ns: 20.0 * CHECK_SEQUENCES as f64,
            ..Work::light("the seeded check")
        }
    }

    fn run(config: &Config, _input: &Input<'_, Nothing>) -> Result<Outcome, RunError> {
        Ok(run(config)?)
    }

    fn report(outcome: &Outcome, _detail: bool) -> alloc::string::String {
        report_text(outcome)
    }

    fn csv(outcome: &Outcome) -> alloc::string::String {
        report_csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    /// The seeded check's sequences: each simulated slot ends with one still
    /// running at the horizon.
    fn tally(o: &Outcome) -> alloc::vec::Vec<Tally> {
        alloc::vec![Tally {
            what: String::from("sequences of the seeded check"),
            arrived: o.check.started,
            finished: o.check.sequences,
            rejected: 0,
            outstanding: u64::from(o.check.slots_simulated),
        }]
    }
}

/// The ceiling with and without cache hits, and the seeded check.
fn report_text(o: &Outcome) -> String {
    let c = &o.config;
    format!(
        "Lmax = {} sequences ({} blocks each); W = {:.1} prefill + {} decode = {:.1} ticks → λmax = {:.4} requests/tick\n\
         with {:.0}% of the prompt cached: W = {:.1} ticks → λmax = {:.4} requests/tick (+{:.1}%)\n\
         seeded check (exponential outputs): {:.4} requests/tick over {} sequences, mean W {:.1} ticks{}\n",
        o.l_max,
        o.blocks_per_sequence,
        o.prefill_ticks,
        c.output_tokens,
        o.residency,
        o.lambda_max,
        c.cache_hit * 100.0,
        o.residency_cached,
        o.lambda_max_cached,
        if o.lambda_max > 0.0 {
            (o.lambda_max_cached / o.lambda_max - 1.0) * 100.0
        } else {
            0.0
        },
        o.check.throughput,
        o.check.sequences,
        o.check.mean_residency,
        if o.check.slots_simulated < o.l_max {
            format!(
                " ({} of the {} slots simulated, the rest counted at their rate)",
                o.check.slots_simulated, o.l_max
            )
        } else {
            String::new()
        }
    )
}

/// Both ceilings as one row.
fn report_csv(o: &Outcome) -> String {
    format!(
        "l_max,blocks_per_sequence,residency,lambda_max,residency_cached,lambda_max_cached,check_throughput\n{},{},{},{},{},{},{}\n",
        o.l_max,
        o.blocks_per_sequence,
        o.residency,
        o.lambda_max,
        o.residency_cached,
        o.lambda_max_cached,
        o.check.throughput)
}
