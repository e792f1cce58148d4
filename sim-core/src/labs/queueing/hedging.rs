//! Hedged requests (§9.2; Dean & Barroso, "The Tail at Scale", CACM 2013).
//!
//! Latencies are drawn from a seeded distribution with a slow tail: a log-normal
//! body (median 200 ms) and, with probability `slow_share`, a slow mode ×`slow_factor`.
//! Strategies, on the same draws:
//! - **none**: one request;
//! - **hedge at P-x**: if no answer by the x-th percentile of the latency
//!   distribution, send a duplicate; keep whichever finishes first; the loser is
//!   cancelled (extra load counts the duplicate's time until cancellation);
//! - **always duplicate**: two requests from the start (100% extra);
//! - for LLM calls, **hedge until first token**: a request's latency splits into
//!   time to first token (TTFT, `ttft_share` of it) and decode; the duplicate is
//!   sent at the TTFT threshold and the loser is cancelled as soon as either
//!   produces its first token, so only prefill work is duplicated. Compared with
//!   **full duplication** (the same hedge, but both copies run to their last
//!   token), in GPU work spent.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::labs::lab::{Input, Lab, LabInfo, Layer, Nothing, Panel, RunError, Tally};
use crate::labs::work::{thousands, Work};
use crate::params::{narrow, Configurable, Param, ParamError, Show};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;
use alloc::format;
use alloc::string::String;

/// Hedging configuration; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Percentile after which to hedge (default 95).
    pub hedge_at: f64,
    /// Share of requests in the slow mode (default 0.05).
    pub slow_share: f64,
    /// How much slower the slow mode is (default 5).
    pub slow_factor: f64,
    /// Share of a request's latency spent before its first token (default 0.3).
    pub ttft_share: f64,
    /// Requests simulated (default 100,000).
    pub requests: u32,
    /// Seed.
    pub seed: u64,
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real(
            "hedge-at",
            "Hedge after percentile",
            "",
            (50.0, 99.9, 0.1),
            |c| c.hedge_at,
            |c, x| c.hedge_at = x,
        )
        .doc("Send a duplicate once a request is slower than this percentile of latency."),
        P::real(
            "slow-share",
            "Slow requests",
            "",
            (0.0, 0.5, 0.01),
            |c| c.slow_share,
            |c, x| c.slow_share = x,
        )
        .doc("Share of requests in the slow tail.")
        .show(Show::Percent(0)),
        P::real(
            "slow-factor",
            "Slowdown of the tail",
            "×",
            (1.0, 50.0, 0.5),
            |c| c.slow_factor,
            |c, x| c.slow_factor = x,
        )
        .doc("How many times slower a slow request is."),
        P::real(
            "ttft-share",
            "Time to first token",
            "",
            (0.05, 0.95, 0.05),
            |c| c.ttft_share,
            |c, x| c.ttft_share = x,
        )
        .doc("Share of a request's latency before its first token.")
        .show(Show::Percent(0)),
        P::whole(
            "requests",
            "Requests",
            "",
            (1000, 1_000_000, 1000),
            |c| c.requests.into(),
            |c, x| c.requests = narrow(x),
        )
        .doc("Requests drawn for every strategy.")
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
            hedge_at: 95.0,
            slow_share: 0.05,
            slow_factor: 5.0,
            ttft_share: 0.3,
            requests: 100_000,
            seed: 1,
        }
    }
}

/// One strategy's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Strategy {
    /// Name: `none`, `hedge`, `always`, `hedge-first-token`, `duplicate-full`.
    pub strategy: alloc::string::String,
    /// Median latency (ms).
    pub p50: f64,
    /// 95th percentile (ms).
    pub p95: f64,
    /// 99th percentile (ms).
    pub p99: f64,
    /// Extra requests sent, as a share of requests (0–1).
    pub extra_load: f64,
    /// Extra work spent (server time of duplicates until cancelled), as a share
    /// of the work without hedging.
    pub extra_work: f64,
    /// Requests that got an answer (each once, from whichever copy won).
    pub answered: u64,
}

/// All strategies on the same draws.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// The hedge threshold, in ms.
    pub threshold: f64,
    /// none, hedge, always, hedge-first-token, duplicate-full.
    pub strategies: Vec<Strategy>,
}

fn draw(rng: &mut Rng, cfg: &Config) -> f64 {
    let body = rng.lognormal_mean_cv(220.0, 0.45);
    if rng.unit() < cfg.slow_share {
        body * cfg.slow_factor
    } else {
        body
    }
}

fn summarise(name: &str, mut lat: Vec<f64>, extra_load: f64, extra_work: f64) -> Strategy {
    lat.sort_by(f64::total_cmp);
    Strategy {
        strategy: name.into(),
        p50: percentile_sorted(&lat, 50.0),
        p95: percentile_sorted(&lat, 95.0),
        p99: percentile_sorted(&lat, 99.0),
        extra_load,
        extra_work,
        answered: lat.len() as u64,
    }
}

/// Run every strategy.
pub fn run(cfg: &Config) -> Result<Outcome, ParamError> {
    cfg.validate()?;
    let mut rng = Rng::new(cfg.seed, stream::PROMPTS);
    let n = cfg.requests as usize;
    let first: Vec<f64> = (0..n).map(|_| draw(&mut rng, cfg)).collect();
    let second: Vec<f64> = (0..n).map(|_| draw(&mut rng, cfg)).collect();
    let base_work: f64 = first.iter().sum();
    let mut sorted = first.clone();
    sorted.sort_by(f64::total_cmp);
    let threshold = percentile_sorted(&sorted, cfg.hedge_at);
    let ttft_threshold = threshold * cfg.ttft_share;

    let (mut hedged, mut hedged_work, mut hedges) = (Vec::with_capacity(n), 0.0, 0usize);
    let (mut ft, mut ft_work, mut ft_hedges) = (Vec::with_capacity(n), 0.0, 0usize);
    let mut dup_work = 0.0;
    let mut always = Vec::with_capacity(n);
    for (&a, &b) in first.iter().zip(&second) {
        // Hedge at the threshold: B starts at `threshold`.
        if a > threshold {
            hedges += 1;
            let done = a.min(threshold + b);
            hedged.push(done);
            hedged_work += done - threshold; // the loser (or winner) B ran until `done`
        } else {
            hedged.push(a);
        }
        always.push(a.min(b));
        // Hedge until the first token: race on TTFT, then only the winner decodes.
        let (ta, tb) = (a * cfg.ttft_share, b * cfg.ttft_share);
        if ta > ttft_threshold {
            ft_hedges += 1;
            // Full duplication: the same hedge, but both run to their last token.
            dup_work += b;
            let first_token_b = ttft_threshold + tb;
            if first_token_b < ta {
                ft.push(first_token_b + b * (1.0 - cfg.ttft_share));
                ft_work += tb; // B's prefill; A is cancelled at B's first token (its time so far is sunk)
            } else {
                ft.push(a);
                ft_work += ta - ttft_threshold; // B's prefill until A's first token
            }
        } else {
            ft.push(a);
        }
    }
    let full_work: f64 = second.iter().sum();
    let nf = n as f64;
    let ft_latency = ft.clone();
    Ok(Outcome {
        config: cfg.clone(),
        threshold,
        strategies: alloc::vec![
            summarise("none", first.clone(), 0.0, 0.0),
            summarise("hedge", hedged, hedges as f64 / nf, hedged_work / base_work),
            summarise("always", always.clone(), 1.0, full_work / base_work),
            summarise(
                "hedge-first-token",
                ft,
                ft_hedges as f64 / nf,
                ft_work / base_work
            ),
            summarise(
                "duplicate-full",
                ft_latency,
                ft_hedges as f64 / nf,
                dup_work / base_work
            ),
        ],
    })
}

/// Hedged requests in the lab registry.
pub struct HedgingLab;

impl Lab for HedgingLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "hedging",
        title: "Hedged requests",
        section: "§9.2",
        layer: Layer::Client,
        summary: "Duplicate only the slow requests: the tail it trims, the work it adds, and the first-token variant.",
        units: "Latencies in milliseconds; extra load and extra work as a share of requests.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };

    /// Five strategies, each drawing and sorting every request's latency:
    /// about 100 ns a request each (measured).
    fn work(config: &Config, _: &Input<'_, Nothing>) -> Work {
        Work {
            ns: 5.0 * 100.0 * f64::from(config.requests),
            what: format!(
                "5 strategies × {} requests",
                thousands(config.requests.into())
            ),
            drivers: &["requests"],
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

    fn tally(o: &Outcome) -> Vec<Tally> {
        o.strategies
            .iter()
            .map(|s| Tally {
                what: alloc::format!("strategy {}", s.strategy),
                arrived: u64::from(o.config.requests),
                finished: s.answered,
                rejected: 0,
                outstanding: 0,
            })
            .collect()
    }
}

/// Latency percentiles and costs per strategy.
fn report_text(o: &Outcome) -> String {
    let mut s = format!(
        "Hedge after P{} = {:.0} ms\n{:<18} {:>7} {:>7} {:>7} {:>10} {:>10}\n",
        o.config.hedge_at, o.threshold, "strategy", "p50", "p95", "p99", "extra load", "extra work"
    );
    for x in &o.strategies {
        s += &format!(
            "{:<18} {:>7.0} {:>7.0} {:>7.0} {:>9.1}% {:>9.1}%\n",
            x.strategy,
            x.p50,
            x.p95,
            x.p99,
            x.extra_load * 100.0,
            x.extra_work * 100.0
        );
    }
    s
}

/// One row per strategy.
fn report_csv(o: &Outcome) -> String {
    let mut s = String::from("strategy,p50_ms,p95_ms,p99_ms,extra_load,extra_work\n");
    for x in &o.strategies {
        s += &format!(
            "{},{},{},{},{},{}\n",
            x.strategy, x.p50, x.p95, x.p99, x.extra_load, x.extra_work
        );
    }
    s
}
