//! Capacity you rent (article §12, §14.3–14.4, §10.3): reserved and
//! metered deployments in one or two regions, each with its own prompt
//! cache; gateway pools with breakers, Azure's spillover and LiteLLM's
//! router strategies choosing among them; conversations, fan-outs and batch
//! jobs, budgets, and an incident.
//!
//! The model. Conversations arrive as a Poisson stream ([`workload`]); a
//! chat sends its turns one after another, each prompt the whole
//! conversation so far; a fan-out sends its children together over one
//! shared document; a batch job is one call. Each call goes through one
//! strategy ([`crate::providers::gateway`]) to a deployment
//! ([`deploy`]): a reserved one refuses with 429 while its utilisation is
//! above its capacity, a metered one past its tokens or requests a minute,
//! any of them with 5xx during an incident. The provider routes an admitted
//! call to a machine of that deployment by its cache key ([`cache`]) and
//! bills it. Clients retry twice, after Retry-After or a backoff. Every
//! strategy runs on the same conversations; then [`Sweep`] runs spillover
//! and equal weights at loads around the reserved capacity.
//! `tests/providers_claims.rs` holds the claims over seeds.

mod cache;
mod config;
mod deploy;
mod record;
mod report;
mod sim;
pub mod workload;

pub use cache::{granular, MIN_HIT, STEP};
pub use config::{CacheKey, Config, Preset, Prices, Strategy, PRESETS, TICK_MS};
pub use record::{DepSnap, Flow, Moment, MomentKind, Snapshot, FLOWS, PLAYER_TICKS};
pub use report::moment_text;
pub use sim::METER_S;

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;
use crate::params::{Configurable, ParamError};
use crate::stats::percentile_sorted;

/// One strategy's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrategyRun {
    /// The strategy.
    pub strategy: Strategy,
    /// Calls made (turns, children and batch jobs; stopped turns not made).
    pub requests: u32,
    /// Calls answered.
    pub served: u32,
    /// Calls that failed after every retry.
    pub failed: u32,
    /// Batch jobs sent to the batch tier.
    pub deferred: u32,
    /// Conversations stopped by their budget.
    pub budget_stops: u32,
    /// Calls still running when the run stopped.
    pub unfinished: u32,
    /// The bill, dollars: reserved hours and metered tokens.
    pub cost: f64,
    /// The bill per 1,000 calls made.
    pub cost_per_1k: f64,
    /// Share of prompt tokens read from the provider's cache.
    pub hit_share: f64,
    /// Share of conversations of two turns or more served in two regions.
    pub split_share: f64,
    /// Share of follow-up turns served in another region than the turn before.
    pub moved_share: f64,
    /// Share of served calls served by metered capacity while reserved exists.
    pub spill_share: f64,
    /// 429s (and "no backend" refusals) the client saw.
    pub client_429: u32,
    /// TTFT percentiles from the first send, ms: 50, 95, 99.
    pub ttft: [f64; 3],
    /// Calls each deployment served.
    pub per_deploy: Vec<u32>,
    /// Share of follow-up turns that found their history in the cache.
    pub history_hits: f64,
    /// Share of fan-out children after the first that found the shared
    /// document (negative: no fan-out).
    pub fanout_hits: f64,
    /// The bill every [`sim::METER_S`] seconds, dollars.
    pub meter: Vec<f32>,
    /// The player's ticks, when recorded.
    #[serde(serialize_with = "crate::labs::page_only", default)]
    pub timeline: Option<Vec<Snapshot>>,
}

fn share(of: (u32, u32)) -> f64 {
    if of.0 == 0 {
        0.0
    } else {
        f64::from(of.1) / f64::from(of.0)
    }
}

/// Run `strategy` on `convs`.
pub fn run_strategy(
    c: &Config,
    convs: &[workload::Conversation],
    strategy: Strategy,
    record: bool,
) -> StrategyRun {
    let mut r = sim::Run::new(c, convs, strategy, record);
    r.go();
    summarise(r, strategy)
}

/// The figures of a finished run.
fn summarise(r: sim::Run<'_>, strategy: Strategy) -> StrategyRun {
    let t = &r.totals;
    let mut ttft = t.ttft.clone();
    ttft.sort_by(f64::total_cmp);
    let p = |q: f64| {
        if ttft.is_empty() {
            0.0
        } else {
            percentile_sorted(&ttft, q)
        }
    };
    let cost = r.cost_at(u64::MAX);
    let unfinished = t.requests - t.served - t.failed - t.deferred;
    StrategyRun {
        strategy,
        requests: t.requests,
        served: t.served,
        failed: t.failed,
        deferred: t.deferred,
        budget_stops: t.budget_stops,
        unfinished,
        cost,
        cost_per_1k: cost / f64::from(t.requests.max(1)) * 1000.0,
        hit_share: if t.input == 0 {
            0.0
        } else {
            t.cached as f64 / t.input as f64
        },
        split_share: share(t.split),
        moved_share: share(t.pairs),
        spill_share: share((t.per_deploy.iter().sum(), t.spilled)),
        client_429: t.client_429,
        ttft: [p(50.0), p(95.0), p(99.0)],
        per_deploy: t.per_deploy.clone(),
        history_hits: share(t.follow),
        fanout_hits: if t.children.0 == 0 {
            -1.0
        } else {
            share(t.children)
        },
        meter: t.meter.clone(),
        timeline: r.rec.map(|x| x.ticks),
    }
}

/// One point of the load sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Offered load over the reserved capacity, measured: the tokens the
    /// calls would charge reserved capacity over its tokens in the window.
    pub load: f64,
    /// The arrival rate it took, req/s.
    pub rate: f64,
    /// Spillover's share of calls served by metered capacity.
    pub spill_share: f64,
    /// Spillover's bill per 1,000 calls.
    pub spill_cost: f64,
    /// Equal weights' (simple shuffle) bill per 1,000 calls.
    pub shuffle_cost: f64,
    /// 429s the client saw under spillover and under equal weights.
    pub client_429: [u32; 2],
}

/// Loads of the sweep, as multiples of the reserved capacity.
pub const LOADS: [f64; 9] = [0.25, 0.5, 0.75, 1.0, 1.15, 1.3, 1.5, 2.0, 2.5];
/// Seconds each sweep point runs at most.
pub const SWEEP_S: u32 = 300;

/// Spillover against equal weights at loads around the reserved capacity
/// (none without both reserved and metered deployments). The incident is
/// off, so only capacity makes the difference.
pub fn sweep(c: &Config) -> Vec<SweepPoint> {
    if c.reserved == 0 || c.metered == 0 {
        return Vec::new();
    }
    let mut base = c.clone();
    base.seconds = c.seconds.min(SWEEP_S);
    base.incident_region = 0;
    // Tokens a call charges a reserved deployment, from a short run at the
    // lab's own rate: the capacity in calls a second follows from it.
    let probe = sim::probe_tokens(&base);
    let capacity = f64::from(c.reserved) * f64::from(c.ptu_tpm) / 60.0 / probe.max(1.0);
    LOADS
        .iter()
        .map(|&multiple| {
            let mut p = base.clone();
            p.rate = (multiple * capacity).clamp(0.1, 40.0);
            let convs = workload::conversations(&p);
            let mut r = sim::Run::new(&p, &convs, Strategy::Spillover, false);
            r.go();
            // The load the calls actually offered, over the window.
            let offered = r.totals.charged as f64
                / (f64::from(c.reserved) * f64::from(c.ptu_tpm) / 60.0 * f64::from(p.seconds));
            let s = summarise(r, Strategy::Spillover);
            let w = run_strategy(&p, &convs, Strategy::Shuffle, false);
            SweepPoint {
                load: offered,
                rate: p.rate,
                spill_share: s.spill_share,
                spill_cost: s.cost_per_1k,
                shuffle_cost: w.cost_per_1k,
                client_429: [s.client_429, w.client_429],
            }
        })
        .collect()
}

/// Every strategy on the same conversations, and the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Names of the deployments, in order.
    pub names: Vec<String>,
    /// One run per strategy asked for.
    pub runs: Vec<StrategyRun>,
    /// Spillover against equal weights around the reserved capacity.
    pub sweep: Vec<SweepPoint>,
}

impl Outcome {
    /// The run of `s`, if it ran.
    pub fn run(&self, s: Strategy) -> Option<&StrategyRun> {
        self.runs.iter().find(|r| r.strategy == s)
    }
}

/// Run `strategies` (recording those in `record`) and the sweep.
pub fn run(
    c: &Config,
    strategies: &[Strategy],
    record: &[Strategy],
) -> Result<Outcome, ParamError> {
    c.validate()?;
    let convs = workload::conversations(c);
    let runs = strategies
        .iter()
        .map(|&s| run_strategy(c, &convs, s, record.contains(&s)))
        .collect();
    Ok(Outcome {
        config: c.clone(),
        names: (0..c.deployments()).map(|d| c.name(d)).collect(),
        runs,
        sweep: sweep(c),
    })
}

/// The providers lab in the lab registry.
pub struct ProvidersLab;

impl Lab for ProvidersLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Strategy;
    const INFO: LabInfo = LabInfo {
        id: "providers",
        title: "Providers and regions",
        section: "§12",
        layer: Layer::Gateway,
        summary: "Rented capacity: reserved deployments spilling into pay-as-you-go, pools with breakers, LiteLLM's strategies, and a provider cache that a conversation loses when it changes region.",
        units: "One tick is 100 ms; times in milliseconds, money in dollars.",
        player: Some(PlayerInfo {
            unit: "tick",
            first: 0,
            speed: 20.0,
            vs: Some("sticky"),
            opens: Opening::FirstMoment,
        }),
        // The controls (nine main ones, the cache key's three options
        // spelled out) would take an embed past its height; a link adds
        // them with `view=`.
        embed_view: &[Panel::Player, Panel::Cards],
    };
    const FOCUS: Option<Focus<Strategy>> = Some(Focus {
        key: "strategy",
        label: "Strategy in the player",
        default: Strategy::Spillover,
    });

    /// Every call is a few events, each a heap operation, a router pick over
    /// the deployments and a cache lookup in ordered maps; the sweep runs
    /// two strategies at nine loads over at most five minutes. Fitted to
    /// release runs with room above them (about 0.4 µs a call natively at
    /// 40 req/s; the estimate takes 1.5 µs, for the page's slower wasm).
    fn work(config: &Config, input: &Input<'_, Strategy>) -> Work {
        let runs = input.items().len() as f64;
        let calls = config.rate * f64::from(config.seconds);
        let per_call = 1200.0 + 40.0 * config.deployments() as f64;
        let sweep = if config.reserved > 0 && config.metered > 0 {
            // Rates up to 2.5 times the reserved capacity (at about 600
            // tokens a call), capped at 40 req/s, over at most SWEEP_S.
            let cap = f64::from(config.reserved) * f64::from(config.ptu_tpm) / 60.0 / 600.0;
            2.0 * LOADS.iter().map(|l| (l * cap).min(40.0)).sum::<f64>()
                * f64::from(config.seconds.min(SWEEP_S))
        } else {
            0.0
        };
        Work {
            ns: (runs * calls + sweep) * per_call,
            drivers: &["seconds", "rate"],
            what: alloc::format!(
                "{} strategies × {} s of calls and a load sweep",
                runs as u32,
                crate::params::thousands(config.seconds.into())
            ),
        }
    }

    fn run(config: &Config, input: &Input<'_, Strategy>) -> Result<Outcome, RunError> {
        Ok(run(config, &input.items(), input.record)?)
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> String {
        report::csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    /// Per strategy: calls made against those served, deferred to the batch
    /// tier, failed, and still running.
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("strategy {}", r.strategy.name()),
                arrived: r.requests.into(),
                finished: u64::from(r.served) + u64::from(r.deferred),
                rejected: r.failed.into(),
                outstanding: r.unfinished.into(),
            })
            .collect()
    }
}
