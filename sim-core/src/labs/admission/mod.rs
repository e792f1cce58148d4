//! Admission control and backpressure (§9.3 of the reference article, with
//! the knee of §1.2 on a live pool): one pool behind a gateway, arrivals that
//! can exceed its capacity, and the gateway's policies side by side on the
//! same requests.
//!
//! The model, in ticks. The pool has `replicas × slots` servers; a request
//! holds one for its service time (Gamma, mean `service`, spread
//! `service-cv`), and its first token comes `first-token` mean service
//! times after dispatch, so its TTFT is its wait in the gateway's queue plus
//! that fixed time. A request meets the SLO when its TTFT is at most `slo` mean
//! service times. Arrivals are Poisson at `load` times the pool's capacity
//! (servers ÷ mean service), times `1 + surge` during the surge window. One
//! replica can fail during an incident: each request it takes then fails
//! after a tick with probability `failure`. Every policy sees the same
//! arrivals, service times and failure draws. `tests/admission_claims.rs`
//! holds the article's claims over seeds 1–100.

mod config;
mod report;
mod sim;

pub use config::{Config, Policy};
pub use report::moment_text;
pub use sim::{run, run_policies, Moment, PolicyRun, Snapshot, SWEEP};

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;

/// Every policy on the same requests, and goodput against offered load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Pool capacity, requests per tick (servers ÷ mean service time).
    pub capacity: f64,
    /// One run per policy, in the order asked (every policy: [`Policy::ALL`]).
    pub policies: Vec<PolicyRun>,
    /// Goodput per policy at each swept load: `(load, goodput per policy)`,
    /// policies in the order of `policies`.
    pub sweep: Vec<(f64, Vec<f64>)>,
}

impl Outcome {
    /// The run of `policy`, if it ran.
    pub fn policy(&self, policy: Policy) -> Option<&PolicyRun> {
        self.policies.iter().find(|r| r.policy == policy)
    }
}

/// The admission lab in the lab registry.
pub struct AdmissionLab;

impl Lab for AdmissionLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Policy;
    const INFO: LabInfo = LabInfo {
        id: "admission",
        title: "Admission control",
        section: "§9.3",
        layer: Layer::Gateway,
        summary: "Past capacity a queue only grows: caps, deadlines, queue-time bounds and a circuit breaker, side by side on the same requests.",
        units: "Ticks are abstract time steps; service times and the SLO are counted in mean service times.",
        player: Some(PlayerInfo {
            unit: "tick",
            first: 0,
            speed: 8.0,
            vs: None,
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Policy>> = Some(Focus {
        key: "policy",
        label: "Policy in the player",
        default: Policy::None,
    });

    /// Each policy's ticks on the run and on each load of the sweep: a
    /// fixed cost per tick plus the replicas scanned per dispatch, whose
    /// count grows with the load (fitted to `lblab admission` runs: 46 ns a
    /// policy-tick with one replica, 255 ns with eight replicas of eight
    /// slots; the estimate sits above both).
    fn work(config: &Config, input: &Input<'_, Policy>) -> Work {
        let per_tick = 10.0 + f64::from(config.replicas) * (1.0 + 2.0 * config.capacity());
        let loads = 1.0 + config.load * (1.0 + config.surge) + SWEEP.iter().sum::<f64>();
        Work {
            ns: 5.0 * input.items().len() as f64 * f64::from(config.ticks) * per_tick * loads,
            drivers: &["ticks", "replicas", "slots", "+service"],
            what: alloc::format!(
                "{} policies × {} ticks × 11 loads",
                input.items().len(),
                crate::params::thousands(config.ticks.into())
            ),
        }
    }

    fn run(config: &Config, input: &Input<'_, Policy>) -> Result<Outcome, RunError> {
        Ok(run(config, &input.items(), true)?)
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

    /// Per policy: arrivals against those served, those refused, dropped or
    /// failed, and those still queued or in service at the end.
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.policies
            .iter()
            .map(|r| Tally {
                what: alloc::format!("policy {}", r.policy.name()),
                arrived: r.offered.into(),
                finished: r.served.into(),
                rejected: u64::from(r.rejected) + u64::from(r.dropped) + u64::from(r.failed),
                outstanding: r.unfinished.into(),
            })
            .collect()
    }
}
