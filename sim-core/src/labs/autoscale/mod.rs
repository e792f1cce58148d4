//! Autoscaling against the balancer (§11 of the reference article): a
//! second control loop sets the replica count while the gateway routes, and
//! the two interfere.
//!
//! The model, one tick per second. A replica runs `slots` requests at once
//! (its batch); it prefills one admitted request at a time (prefill is
//! compute-bound, so it gains little from batching), `prefill` seconds for a
//! prompt whose shared prefix it does not cache and `hit-cost` of that when
//! it does, then decodes for an exponential time of mean `decode` seconds.
//! Each replica caches the last `cache` of `prefixes` shared prefixes it
//! prefilled; a new replica's cache is empty. Arrivals are Poisson at `rate`,
//! times `1 + surge` during the surge; each goes to one replica's queue by
//! the gateway rule (least outstanding, or prefix-aware with a balance
//! threshold), with Envoy-style slow start as an option.
//!
//! Every `period` seconds the scaler reads its signal over the ready
//! replicas and asks for `ceil(ready × reading ÷ target)` replicas (the
//! Kubernetes autoscaler's rule, with its 10% tolerance), clamped to
//! `min..=max`; an order is ready after `cold` seconds, and the pool shrinks
//! only to the largest count asked for over `cooldown` seconds (drained
//! replicas finish what they hold). The busy fraction is the share of
//! seconds anything ran, as `utilization.gpu` measures it; KV usage is the
//! share of slots in use; queue depth is requests running or waiting per
//! replica; the TTFT scaler reads the gateway's P95 over the period. The
//! predictive scaler knows the arrival schedule (a daily pattern would give
//! it the same) and sizes the pool one cold start ahead, with KV usage as a
//! floor. Every scaler sees the same arrivals. `tests/autoscale_claims.rs`
//! holds the article's claims over seeds.

mod config;
mod control;
mod gateway;
mod pool;
mod report;
mod scaler_loop;
mod sim;

pub use config::{Config, Router, Scaler};
pub use report::moment_text;
pub use sim::{run, run_scalers, Life, Moment, ScalerRun, Snapshot, Spot, FRESH, WARM_UP, WINDOW};

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;

/// Every scaler on the same arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// One run per scaler, in the order asked (every scaler: [`Scaler::ALL`]).
    pub runs: Vec<ScalerRun>,
}

impl Outcome {
    /// The run of `scaler`, if it ran.
    pub fn run(&self, scaler: Scaler) -> Option<&ScalerRun> {
        self.runs.iter().find(|r| r.scaler == scaler)
    }
}

/// The autoscaling lab in the lab registry.
pub struct AutoscaleLab;

impl Lab for AutoscaleLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Scaler;
    const INFO: LabInfo = LabInfo {
        id: "autoscale",
        title: "Autoscaling",
        section: "§11",
        layer: Layer::Gateway,
        summary: "A control loop sets the replica count while the balancer routes: busy fraction pinned under decode, replicas ready after the surge, a fresh replica flooded or passed over.",
        units: "One tick is one second; replica time is counted in minutes.",
        player: Some(PlayerInfo {
            unit: "second",
            first: 0,
            speed: 20.0,
            vs: None,
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Scaler>> = Some(Focus {
        key: "scaler",
        label: "Scaler in the player",
        default: Scaler::Kv,
    });

    /// Each scaler's seconds: a fixed cost plus the replicas visited per
    /// second and per arrival (routing scans the ready replicas), and the
    /// cache's list per admission. Fitted to `lblab autoscale` release runs
    /// (0.59 s for an estimate of 0.95 s at 8 req/s, surge 3, 64 replicas,
    /// 9,000 seconds), with room above them.
    fn work(config: &Config, input: &Input<'_, Scaler>) -> Work {
        let replicas = f64::from(config.max);
        let arrivals = config.rate * (1.0 + config.surge);
        let per_tick = 50.0
            + replicas * (30.0 + 8.0 * arrivals)
            + 2.0 * f64::from(config.slots)
            + arrivals * f64::from(config.cache);
        Work {
            ns: input.items().len() as f64 * f64::from(config.ticks) * per_tick,
            drivers: &["ticks", "max", "rate", "surge", "cache"],
            what: alloc::format!(
                "{} scalers × {} seconds",
                input.items().len(),
                crate::params::thousands(config.ticks.into())
            ),
        }
    }

    fn run(config: &Config, input: &Input<'_, Scaler>) -> Result<Outcome, RunError> {
        Ok(run(config, &input.items())?)
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

    /// Per scaler: arrivals against those finished and those still waiting
    /// or running at the end (nothing is refused).
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("scaler {}", r.scaler.name()),
                arrived: r.arrived.into(),
                finished: r.finished.into(),
                rejected: 0,
                outstanding: r.unfinished.into(),
            })
            .collect()
    }
}
