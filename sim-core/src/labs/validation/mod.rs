//! The Routing Lab against published deployments. Each [`Scenario`] is the
//! setup of a public A/B comparison of routing policies (GPU, model, pool,
//! gateways, workload, as close as its source describes them), with the
//! figures the source reports; [`validate`] runs it over seeds and sets the
//! simulated figures beside the published ones.
//!
//! What is judged, and why only this: the lab prices an iteration with a
//! roofline, not the source's engine, so absolute figures are shown but not
//! judged. Judged are
//! - the **rank order** of the source's policies, by throughput and by TTFT,
//!   seed by seed: every pair the source separates by more than
//!   [`TIE`] must come out in the same order (a closer pair is a tie, either
//!   order passes); a scenario holds at [`ORDER_PASS`] of its seeds;
//! - the **headline ratio** between the source's best policy and its
//!   baseline, at the seed median: throughput within a factor
//!   [`THROUGHPUT_FACTOR`] of the published ratio, TTFT within
//!   [`TTFT_FACTOR`] (tails under overload move a lot with small changes).

mod report;
pub mod scenarios;

pub use report::{fig, figure_rows, judged, rank_verdict, text, FigureRow, Judged};

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::routing::{self, Config};
use crate::params::{from_pairs, ParamError};
use crate::routing::RuleKind;
use crate::stats::{mean, percentile_sorted};

/// Two published figures within this factor of each other are a tie.
pub const TIE: f64 = 1.1;
/// Share of seeds whose rank order must match the source's.
pub const ORDER_PASS: f64 = 0.8;
/// How far the simulated headline throughput ratio may be from the source's.
pub const THROUGHPUT_FACTOR: f64 = 1.5;
/// How far the simulated headline TTFT ratio may be from the source's.
pub const TTFT_FACTOR: f64 = 5.0;

/// What a source's throughput figure counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Throughput {
    /// Requests completed per second, to the last response (a benchmark
    /// that waits for every answer, as `vllm bench serve` does).
    Requests,
    /// Output tokens of the requests sent, per second from the first
    /// sending to the last answer (inference-perf's `output_tokens_per_sec`:
    /// a stage's tokens over the span its requests took).
    SpanOutputTokens,
}

impl Throughput {
    /// The unit, as the source writes it.
    pub fn unit(self) -> &'static str {
        match self {
            Throughput::Requests => "req/s",
            Throughput::SpanOutputTokens => "output tok/s",
        }
    }
}

/// Which TTFT statistic a source reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// The mean.
    Mean,
    /// The 90th percentile.
    P90,
}

impl Latency {
    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Latency::Mean => "TTFT mean",
            Latency::P90 => "TTFT p90",
        }
    }
}

/// One policy's published figures, and the lab's rule that stands for it.
#[derive(Clone, Copy, Debug)]
pub struct Published {
    /// The source's name for the policy.
    pub policy: &'static str,
    /// The lab's rule modelling it.
    pub rule: RuleKind,
    /// Throughput, in the scenario's [`Throughput`] unit.
    pub throughput: f64,
    /// TTFT, seconds, the scenario's [`Latency`] statistic.
    pub ttft_s: f64,
}

/// A published deployment to reproduce.
#[derive(Clone, Copy, Debug)]
pub struct Scenario {
    /// Short name (CLI, URL).
    pub id: &'static str,
    /// Title.
    pub title: &'static str,
    /// Where the figures come from.
    pub source: &'static str,
    /// The Routing Lab settings, as a URL query (`key=value&…`).
    pub setup: &'static str,
    /// What the throughput figures count.
    pub throughput: Throughput,
    /// Which TTFT statistic the figures are.
    pub ttft: Latency,
    /// The source's policies, best first.
    pub published: &'static [Published],
    /// Indices into `published`: the headline policy and its baseline.
    pub headline: (usize, usize),
    /// How many of the first load stages of the setup (`stages=`) warm the
    /// caches and are left out of the figures, as the source leaves them
    /// out. With stages, each figure is the mean over the stages measured of
    /// the figure over that stage's requests, as inference-perf sums up.
    pub warm_up: usize,
    /// What the lab's version of the setup leaves out or guesses.
    pub gaps: &'static [&'static str],
}

impl Scenario {
    /// The Routing Lab configuration of the setup.
    pub fn config(&self) -> Result<Config, ParamError> {
        let (config, mut errors) = from_pairs::<Config>(self.pairs());
        match errors.pop() {
            Some(e) => Err(e),
            None => Ok(config),
        }
    }

    fn pairs(&self) -> impl Iterator<Item = (&'static str, &'static str)> {
        self.setup.split('&').filter_map(|kv| kv.split_once('='))
    }

    /// The lab's rules, in the order of `published`.
    pub fn rules(&self) -> Vec<RuleKind> {
        self.published.iter().map(|p| p.rule).collect()
    }

    /// A link to the setup in the Routing Lab, relative to the page.
    pub fn link(&self) -> String {
        format!("?lab=routing&{}", self.setup)
    }

    /// The CLI command that runs the setup.
    pub fn command(&self) -> String {
        let flags: Vec<String> = self.pairs().map(|(k, v)| format!("--{k}={v}")).collect();
        format!("lblab routing {}", flags.join(" "))
    }
}

/// The figures of one seed's run, per published policy: (throughput, TTFT s).
pub fn measure(scenario: &Scenario, seed: u64) -> Result<Vec<(f64, f64)>, ParamError> {
    let mut config = scenario.config()?;
    config.seed = seed;
    let rules = scenario.rules();
    // One workload for the run and for reading its requests back (drawing
    // it twice gave the same requests at twice the cost).
    let workload = crate::workload::generator::generate(&config.generator(), seed);
    let outcome = routing::run_rules_on(&config, &workload, &rules)?;
    // One tick is a millisecond (every scenario has a GPU).
    let per_s = if config.timing.in_ms() { 1000.0 } else { 1.0 };
    let mut stages = stage_ranges(
        &config.stage_starts(workload.requests.len()),
        workload.requests.len(),
    );
    stages.drain(..scenario.warm_up.min(stages.len().saturating_sub(1)));
    Ok(rules
        .iter()
        .map(|&rule| {
            let r = outcome
                .rules
                .iter()
                .find(|r| r.rule == rule)
                // Cannot fail: `run_rules_on` runs with an unlimited meter,
                // so every rule asked for has an outcome.
                .expect("every rule asked for ran");
            let figures: Vec<(f64, f64)> = stages
                .iter()
                .map(|range| {
                    figures(
                        scenario,
                        r,
                        &workload.requests[range.clone()],
                        range.start,
                        per_s,
                    )
                })
                .collect();
            // inference-perf's summary across stages is the plain mean of
            // each stage's figure (checked against the llm-d report: the
            // mean of its 16 stages' output tok/s is its summary, 8,730.0).
            let n = figures.len().max(1) as f64;
            (
                figures.iter().map(|f| f.0).sum::<f64>() / n,
                figures.iter().map(|f| f.1).sum::<f64>() / n,
            )
        })
        .collect())
}

/// The requests of each load stage, by index, from the first request of
/// each stage after the first (one range for the whole run without stages).
fn stage_ranges(starts: &[usize], n: usize) -> Vec<core::ops::Range<usize>> {
    let mut bounds = alloc::vec![0];
    bounds.extend_from_slice(starts);
    bounds.push(n);
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

/// One rule's (throughput, TTFT s) over the requests `reqs`, the first of
/// which is request `first` of the run.
fn figures(
    scenario: &Scenario,
    r: &routing::RuleOutcome,
    reqs: &[crate::workload::Request],
    first: usize,
    per_s: f64,
) -> (f64, f64) {
    let idx = first..first + reqs.len();
    let start = r.sent_at.get(first).copied().unwrap_or(0);
    let throughput = match scenario.throughput {
        Throughput::Requests => f64::from(r.completed) / r.ticks as f64 * per_s,
        Throughput::SpanOutputTokens => {
            let end = r.finished_at[idx.clone()]
                .iter()
                .flatten()
                .max()
                .copied()
                .unwrap_or(start);
            let span = end.saturating_sub(start).max(1);
            let tokens: u64 = r.finished_at[idx.clone()]
                .iter()
                .zip(reqs)
                .filter(|(f, _)| f.is_some())
                .map(|(_, q)| u64::from(q.output_tokens))
                .sum();
            tokens as f64 / span as f64 * per_s
        }
    };
    let mut ttfts: Vec<f64> = r.ttft_by_request[idx]
        .iter()
        .flatten()
        .map(|&t| t as f64)
        .collect();
    ttfts.sort_by(f64::total_cmp);
    let ttft = match scenario.ttft {
        Latency::Mean => mean(&ttfts),
        Latency::P90 => percentile_sorted(&ttfts, 90.0),
    } / per_s;
    (throughput, ttft)
}

/// Median, least and greatest of a set of seeds' values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The median.
    pub median: f64,
    /// The least.
    pub min: f64,
    /// The greatest.
    pub max: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        Spread {
            median: percentile_sorted(&v, 50.0),
            min: v.first().copied().unwrap_or(0.0),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

/// One policy's simulated figures over the seeds.
#[derive(Clone, Debug)]
pub struct PolicyRow {
    /// The published figures.
    pub published: Published,
    /// Simulated throughput over the seeds.
    pub throughput: Spread,
    /// Simulated TTFT (s) over the seeds.
    pub ttft: Spread,
    /// Whether its median throughput stands where the source puts it
    /// against every policy the source clearly separates it from.
    pub throughput_in_order: bool,
    /// The same for its median TTFT.
    pub ttft_in_order: bool,
}

/// A scenario's comparison over seeds.
#[derive(Clone, Debug)]
pub struct Validation {
    /// The scenario.
    pub scenario: Scenario,
    /// The seeds run.
    pub seeds: Vec<u64>,
    /// One row per published policy.
    pub rows: Vec<PolicyRow>,
    /// Seeds whose throughput order matches the source's.
    pub throughput_order: usize,
    /// Seeds whose TTFT order matches the source's.
    pub ttft_order: usize,
    /// The headline throughput ratio (headline over baseline) per seed.
    pub throughput_ratio: Spread,
    /// The headline TTFT ratio (baseline over headline) per seed.
    pub ttft_ratio: Spread,
}

impl Validation {
    /// The published headline throughput ratio.
    pub fn published_throughput_ratio(&self) -> f64 {
        let (a, b) = self.scenario.headline;
        let p = self.scenario.published;
        p[a].throughput / p[b].throughput
    }

    /// The published headline TTFT ratio.
    pub fn published_ttft_ratio(&self) -> f64 {
        let (a, b) = self.scenario.headline;
        let p = self.scenario.published;
        p[b].ttft_s / p[a].ttft_s
    }

    /// Whether the throughput order holds in enough seeds.
    pub fn throughput_order_holds(&self) -> bool {
        self.throughput_order as f64 >= ORDER_PASS * self.seeds.len() as f64
    }

    /// Whether the TTFT order holds in enough seeds.
    pub fn ttft_order_holds(&self) -> bool {
        self.ttft_order as f64 >= ORDER_PASS * self.seeds.len() as f64
    }

    /// Whether the median throughput ratio is within its factor.
    pub fn throughput_ratio_holds(&self) -> bool {
        within(
            self.throughput_ratio.median,
            self.published_throughput_ratio(),
            THROUGHPUT_FACTOR,
        )
    }

    /// Whether the median TTFT ratio is within its factor.
    pub fn ttft_ratio_holds(&self) -> bool {
        within(
            self.ttft_ratio.median,
            self.published_ttft_ratio(),
            TTFT_FACTOR,
        )
    }

    /// Whether every judged line holds.
    pub fn holds(&self) -> bool {
        self.throughput_order_holds()
            && self.ttft_order_holds()
            && self.throughput_ratio_holds()
            && self.ttft_ratio_holds()
    }
}

/// `x` within a factor `f` of `target`.
pub fn within(x: f64, target: f64, f: f64) -> bool {
    x >= target / f && x <= target * f
}

/// Whether `figures` order every pair the way `published` does, where the
/// published pair differs by more than [`TIE`]; `higher` says which way is
/// better.
pub fn same_order(published: &[f64], figures: &[f64], higher: bool) -> bool {
    let better = |a: f64, b: f64| if higher { a > b } else { a < b };
    (0..published.len()).all(|i| {
        (0..published.len()).all(|j| {
            let (p, q) = (published[i], published[j]);
            let clear = better(p, q) && p.max(q) > TIE * p.min(q);
            !clear || better(figures[i], figures[j])
        })
    })
}

/// Whether `figures[k]` stands against every other figure where
/// `published[k]` does, for the pairs the source separates by more than
/// [`TIE`]; `higher` says which way is better.
pub fn in_order(published: &[f64], figures: &[f64], k: usize, higher: bool) -> bool {
    let better = |a: f64, b: f64| if higher { a > b } else { a < b };
    (0..published.len()).all(|j| {
        let (p, q) = (published[k], published[j]);
        let clear = p.max(q) > TIE * p.min(q);
        !clear || better(p, q) == better(figures[k], figures[j])
    })
}

/// Run `scenario` over `seeds`, telling `progress` after each seed.
pub fn validate(
    scenario: &Scenario,
    seeds: &[u64],
    progress: &dyn Fn(usize, usize),
) -> Result<Validation, ParamError> {
    let mut figures = Vec::with_capacity(seeds.len());
    for (i, &seed) in seeds.iter().enumerate() {
        figures.push(measure(scenario, seed)?);
        progress(i + 1, seeds.len());
    }
    Ok(summarise(scenario, seeds, &figures))
}

/// The comparison of `scenario` from each seed's figures (`figures[i]` is
/// [`measure`] of `seeds[i]`): what [`validate`] returns, kept apart so the
/// web page can measure in its worker and summarise where it draws.
pub fn summarise(scenario: &Scenario, seeds: &[u64], figures: &[Vec<(f64, f64)>]) -> Validation {
    let n = scenario.published.len();
    let (a, b) = scenario.headline;
    let pub_thr: Vec<f64> = scenario.published.iter().map(|p| p.throughput).collect();
    let pub_ttft: Vec<f64> = scenario.published.iter().map(|p| p.ttft_s).collect();
    let mut thr: Vec<Vec<f64>> = alloc::vec![Vec::new(); n];
    let mut ttft: Vec<Vec<f64>> = alloc::vec![Vec::new(); n];
    let (mut thr_ratio, mut ttft_ratio) = (Vec::new(), Vec::new());
    let (mut thr_order, mut ttft_order) = (0, 0);
    for figures in figures {
        let t: Vec<f64> = figures.iter().map(|f| f.0).collect();
        let l: Vec<f64> = figures.iter().map(|f| f.1).collect();
        thr_order += usize::from(same_order(&pub_thr, &t, true));
        ttft_order += usize::from(same_order(&pub_ttft, &l, false));
        thr_ratio.push(t[a] / t[b]);
        ttft_ratio.push(l[b] / l[a].max(1e-9));
        for k in 0..n {
            thr[k].push(t[k]);
            ttft[k].push(l[k]);
        }
    }
    let thr: Vec<Spread> = thr.iter().map(|v| Spread::of(v)).collect();
    let ttft: Vec<Spread> = ttft.iter().map(|v| Spread::of(v)).collect();
    let thr_medians: Vec<f64> = thr.iter().map(|s| s.median).collect();
    let ttft_medians: Vec<f64> = ttft.iter().map(|s| s.median).collect();
    Validation {
        scenario: *scenario,
        seeds: seeds.to_vec(),
        rows: (0..n)
            .map(|k| PolicyRow {
                published: scenario.published[k],
                throughput: thr[k],
                ttft: ttft[k],
                throughput_in_order: in_order(&pub_thr, &thr_medians, k, true),
                ttft_in_order: in_order(&pub_ttft, &ttft_medians, k, false),
            })
            .collect(),
        throughput_order: thr_order,
        ttft_order,
        throughput_ratio: Spread::of(&thr_ratio),
        ttft_ratio: Spread::of(&ttft_ratio),
    }
}
