//! Prefill and decode on different GPUs (§7.3 of the reference article;
//! Splitwise, ISCA 2024; DistServe, OSDI 2024), against the same GPUs each
//! doing both, and Dynamo's conditional disaggregation in between.
//!
//! The model. Every GPU runs one engine priced by `crate::hardware` (BF16,
//! no tensor parallelism). A step processes at most `chunk` tokens: one per
//! decoding sequence first, then prompt chunks in arrival order (vLLM's
//! chunked prefill), and lasts what the roofline gives for all of them, so a
//! long prompt on a GPU that decodes stretches every decode in its steps.
//! Prompts are a group's shared prefix (`shared` of the mean) plus a
//! log-normal uncached part; each GPU caches the prefixes of its last
//! `cache` groups and does not recompute a cached one.
//!
//! - **Colocated**: a request goes to the GPU with the least KV held or
//!   queued plus the prompt tokens it would compute (Dynamo's KV router
//!   cost with full overlap credit).
//! - **Disaggregated**: the prefill pool's router weighs the same way over
//!   its queued prompt tokens; once the prompt is computed the decode
//!   router picks a decode GPU and the KV it does not already cache crosses
//!   the prefill GPU's link, one transfer at a time, `hop` ms plus bytes
//!   over `bandwidth`. The first token comes from the decode GPU's first
//!   step after the KV lands (the time to first token includes the transfer).
//! - **Conditional** (Dynamo's `isl_bounding`, `prefill_load`,
//!   `isl_or_load`, `lib/llm/src/kv_router`): the decode GPU is picked up
//!   front, and the prompt is prefilled there when its uncached part is
//!   below `isl-threshold` tokens and `isl-ratio` of the prompt, or when the
//!   prefill GPU it would use has more than `busy` steps of prompt tokens
//!   queued, or either.
//!
//! The decode router weighs KV held against prefix credit; Dynamo turns the
//! credit off under plain disaggregation and keeps it under conditional
//! (`build_decode_router_override`). A decode GPU that caches the prefix
//! receives only the rest of the KV (as vLLM's KV connector pulls only the
//! tokens beyond the decode side's own prefix hit).
//!
//! The chart sweeps the mean prompt from 256 to 32,768 tokens on the same
//! requests; the crossover is the prompt length from which disaggregation's
//! mean request latency (arrival to last token) is below the colocated one's,
//! and `until` the longer length from which it is above again (the prefill
//! GPUs can no longer keep up).
//! `tests/disagg_claims.rs` holds the claims over seeds.

mod config;
mod report;
mod sim;

pub use config::{Config, DecodeRouter, Setup};
pub use report::crossover_text;
pub use sim::Measured;

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Input, Lab, LabInfo, Layer, Nothing, Panel, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;
use crate::params::{Configurable, ParamError};
use crate::stats::{mean, percentile_sorted};

/// The mean prompt lengths of the sweep, tokens.
pub const SWEEP: [u32; 8] = [256, 512, 1024, 2048, 4096, 8192, 16_384, 32_768];

/// One setup at the configured prompt length; times in milliseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetupRun {
    /// The setup.
    pub setup: Setup,
    /// Time to first token, median and 95th percentile.
    pub ttft_p50: f64,
    /// See `ttft_p50`.
    pub ttft_p95: f64,
    /// Time per output token after the first, median and 95th percentile over requests.
    pub tpot_p50: f64,
    /// See `tpot_p50`.
    pub tpot_p95: f64,
    /// Mean request latency, arrival to last token.
    pub e2e: f64,
    /// Share of prefills run on a GPU that decodes.
    pub local: f64,
    /// Mean KV transfer time of a remote prefill (0 when none).
    pub transfer: f64,
    /// Share of prompt tokens served from a prefix cache.
    pub cached: f64,
    /// Output tokens per second per GPU.
    pub throughput: f64,
    /// Requests finished (every one is).
    pub finished: u32,
}

/// Every setup's mean figures at one mean prompt length of the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Mean prompt length, tokens.
    pub prompt: u32,
    /// Mean request latency per setup, in [`Setup::ALL`] order, ms.
    pub e2e: Vec<f64>,
    /// Mean time to first token per setup, ms.
    pub ttft: Vec<f64>,
    /// Mean time per output token per setup, ms.
    pub tpot: Vec<f64>,
}

/// Where disaggregation starts to pay, on mean request latency.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Crossover {
    /// Disaggregated is ahead from this mean prompt length on (tokens,
    /// interpolated between two lengths of the sweep on a log scale).
    At(f64),
    /// Disaggregated is ahead already at the shortest prompt of the sweep.
    Below,
    /// Colocated stays ahead over the whole sweep.
    Never,
}

/// Every setup on the same requests, and the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// One run per setup at the configured prompt, in [`Setup::ALL`] order.
    pub runs: Vec<SetupRun>,
    /// The sweep of mean prompt lengths ([`SWEEP`]).
    pub sweep: Vec<Point>,
    /// Disaggregated against colocated over the sweep.
    pub crossover: Crossover,
    /// Where disaggregated falls behind colocated again, past the
    /// crossover ([`falls_behind`]); `None` when it stays ahead to the end
    /// of the sweep or is never ahead.
    #[serde(default)]
    pub until: Option<f64>,
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn summarise(setup: Setup, m: Measured, gpus: f64) -> SetupRun {
    let finished = m.e2e.len() as u32;
    let ttft = sorted(m.ttft);
    let tpot = sorted(m.tpot);
    SetupRun {
        setup,
        ttft_p50: percentile_sorted(&ttft, 50.0),
        ttft_p95: percentile_sorted(&ttft, 95.0),
        tpot_p50: percentile_sorted(&tpot, 50.0),
        tpot_p95: percentile_sorted(&tpot, 95.0),
        e2e: mean(&m.e2e),
        local: f64::from(m.local) / f64::from(finished.max(1)),
        transfer: if m.transfer.is_empty() {
            0.0
        } else {
            mean(&m.transfer)
        },
        cached: m.cached.0 as f64 / (m.cached.1.max(1)) as f64,
        throughput: m.output.0 as f64 / m.output.1.max(1e-9) / gpus,
        finished,
    }
}

/// Disaggregated's mean latency minus colocated's at one point of the sweep.
fn split_gap(p: &Point) -> f64 {
    p.e2e[Setup::Disagg.index()] - p.e2e[Setup::Colocated.index()]
}

/// Where the gap changes sign between two neighbouring points of the sweep,
/// interpolated on the logarithm of the length.
fn sign_change(a: &Point, b: &Point) -> f64 {
    let (ga, gb) = (split_gap(a), split_gap(b));
    // Natural logarithms: `log2` and `exp2` would each bring their own
    // tables into the page's bundle.
    let (la, lb) = (
        libm::log(f64::from(a.prompt)),
        libm::log(f64::from(b.prompt)),
    );
    libm::exp(la + (lb - la) * ga / (ga - gb))
}

/// The crossover from the sweep: the first length where disaggregated's
/// mean latency is at most colocated's, interpolated on log₂ of the length.
pub fn crossover(sweep: &[Point]) -> Crossover {
    match sweep.iter().position(|p| split_gap(p) <= 0.0) {
        None => Crossover::Never,
        Some(0) => Crossover::Below,
        Some(i) => Crossover::At(sign_change(&sweep[i - 1], &sweep[i])),
    }
}

/// Where disaggregated falls behind colocated again after `from`: the
/// first length past the crossover whose mean latency is above
/// colocated's, interpolated like the crossover. `None` when the split
/// stays ahead to the end of the sweep (or is never ahead). Long prompts
/// overload the prefill pool, so the split's lead is a window, and a card
/// that gave only its start would read as "ahead from here on".
pub fn falls_behind(sweep: &[Point], from: Crossover) -> Option<f64> {
    let start = match from {
        Crossover::Never => return None,
        Crossover::Below => 0,
        Crossover::At(_) => sweep.iter().position(|p| split_gap(p) <= 0.0)?,
    };
    let i = start + sweep[start..].iter().position(|p| split_gap(p) > 0.0)?;
    // `i > start` since the point at `start` has a gap of at most 0.
    Some(sign_change(&sweep[i - 1], &sweep[i]))
}

/// Run every setup at the configured prompt, then the sweep.
pub fn run(c: &Config) -> Result<Outcome, ParamError> {
    c.validate()?;
    // `validate` checked that the preset runs.
    let cost = c.preset().step_cost().map_err(|e| ParamError {
        key: "model",
        given: c.model.name().into(),
        problem: crate::params::Problem::Unfit(e.0),
    })?;
    let draws = sim::draws(c);
    let gpus = f64::from((c.prefill + c.decode) * c.tp);
    let runs = Setup::ALL
        .iter()
        .map(|&s| summarise(s, sim::simulate(c, &cost, s, c.prompt, &draws), gpus))
        .collect();
    let sweep: Vec<Point> = SWEEP
        .iter()
        .map(|&prompt| {
            let mut p = Point {
                prompt,
                e2e: Vec::new(),
                ttft: Vec::new(),
                tpot: Vec::new(),
            };
            for &s in Setup::ALL {
                let m = sim::simulate(c, &cost, s, prompt, &draws);
                p.e2e.push(mean(&m.e2e));
                p.ttft.push(mean(&m.ttft));
                p.tpot.push(mean(&m.tpot));
            }
            p
        })
        .collect();
    let crossover = crossover(&sweep);
    Ok(Outcome {
        config: c.clone(),
        runs,
        crossover,
        until: falls_behind(&sweep, crossover),
        sweep,
    })
}

/// The disaggregation lab in the lab registry.
pub struct DisaggLab;

impl Lab for DisaggLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "disagg",
        title: "Disaggregation",
        section: "§7.3",
        layer: Layer::Accelerator,
        summary: "Prefill on some GPUs and decode on the others, against every GPU doing both: where the KV transfer stops costing more than it saves.",
        units: "Times in milliseconds, priced from the GPU and model presets.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };

    /// Nine prompt lengths × five setups. A run's events are engine steps;
    /// each costs a fixed part and a scan of the engines, and each token a
    /// step serves costs a little more. Steps: every prompt chunk, and the
    /// output tokens over the decode batch, whose size is at least what
    /// Little's law gives with every step at its unloaded time (arrival rate
    /// × output × step time, over the engines). Fitted to `lblab disagg
    /// --requests 1500` release runs: 300 ms at otherwise default settings
    /// (estimate 470 ms) and 760 ms with `--rate 0.1`, where every request
    /// decodes alone (estimate 930 ms).
    fn work(config: &Config, _: &Input<'_, Nothing>) -> Work {
        let engines = f64::from(config.prefill + config.decode);
        let step = config
            .preset()
            .step_cost()
            .map_or(0.0, |c| c.decode_s(1.0, f64::from(config.prompt)));
        let output = f64::from(config.output);
        let batch = (config.rate * output * step / engines).max(1.0);
        let sweep_mean: f64 = SWEEP.iter().map(|&l| f64::from(l)).sum::<f64>() / SWEEP.len() as f64;
        let chunks = (sweep_mean + f64::from(config.prompt)) / f64::from(config.chunk) + 2.0;
        let per_step = 40.0 + engines;
        let per_request = (output / batch + chunks) * per_step + 5.0 * output;
        Work {
            ns: 45.0 * f64::from(config.requests) * per_request,
            what: alloc::format!(
                "5 setups × 9 prompt lengths × {} requests",
                super::work::thousands(config.requests.into())
            ),
            drivers: &["requests", "output"],
        }
    }

    fn run(config: &Config, _: &Input<'_, Nothing>) -> Result<Outcome, RunError> {
        Ok(run(config)?)
    }

    fn report(outcome: &Outcome, detail: bool) -> alloc::string::String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> alloc::string::String {
        report::csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("setup {}", r.setup.name()),
                arrived: o.config.requests.into(),
                finished: r.finished.into(),
                rejected: 0,
                outstanding: 0,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// A sweep point whose colocated and split latencies are `co` and `di`.
    fn point(prompt: u32, co: f64, di: f64) -> Point {
        let mut e2e = vec![co; Setup::ALL.len()];
        e2e[Setup::Disagg.index()] = di;
        Point {
            prompt,
            e2e,
            ttft: Vec::new(),
            tpot: Vec::new(),
        }
    }

    /// The split ahead between 1,024 and 4,096 tokens: the window has both
    /// ends, each interpolated between its two neighbouring lengths.
    #[test]
    fn the_split_is_ahead_in_a_window_with_two_ends() {
        let sweep = [
            point(512, 100.0, 110.0),
            point(1024, 100.0, 101.0),
            point(2048, 100.0, 95.0),
            point(4096, 100.0, 98.0),
            point(8192, 100.0, 300.0),
        ];
        let from = crossover(&sweep);
        let Crossover::At(a) = from else {
            panic!("{from:?}")
        };
        let b = falls_behind(&sweep, from).expect("behind again at 8,192");
        assert!(a > 1024.0 && a < 2048.0, "{a}");
        assert!(b > 4096.0 && b < 8192.0, "{b}");
    }

    /// Ahead to the end of the sweep, or never ahead: no end to give.
    #[test]
    fn no_end_when_the_split_stays_ahead_or_is_never_ahead() {
        let ahead = [point(256, 100.0, 99.0), point(512, 100.0, 90.0)];
        assert_eq!(crossover(&ahead), Crossover::Below);
        assert_eq!(falls_behind(&ahead, crossover(&ahead)), None);
        let behind = [point(256, 100.0, 101.0), point(512, 100.0, 190.0)];
        assert_eq!(crossover(&behind), Crossover::Never);
        assert_eq!(falls_behind(&behind, Crossover::Never), None);
        assert_eq!(falls_behind(&[], Crossover::Below), None);
    }
}
