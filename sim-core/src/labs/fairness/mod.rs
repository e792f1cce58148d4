//! Fairness between tenants sharing one engine (§8 of the reference
//! article): whom a scheduler serves when everyone wants more than their
//! share, counted in requests, in tokens, in weighted token service (VTC)
//! and in GPU time, and what token fairness costs the prefix cache.
//!
//! The model, in engine iterations. One engine runs `slots` sequences with
//! chunked prefill (`budget` tokens an iteration: one per decoding sequence,
//! the rest for prompt chunks) and a prefix cache of `cache` tokens. Up to
//! four tenants with different shapes ([`TENANTS`]): long prompts, long
//! outputs, many small chat requests (the interactive one), and one whose
//! requests share a 1,200-token system prompt and come in bursts. Steady
//! tenants are closed loops of clients that always want more, so every
//! scheduler works under contention. GPU time counts computed prompt tokens
//! and output tokens at `decode-cost` each. Every scheduler sees the same
//! tenants and seed. `tests/fairness_claims.rs` holds the article's claims
//! over seeds 1–100.

mod config;
mod outcome;
mod report;
mod scheduler_loop;
mod scheduling;
mod sim;

pub use config::{Config, Scheduler, Shape, TENANTS};
pub use outcome::{Moment, SchedulerRun, Seat, Snapshot, TenantRun};
pub use report::moment_text;
pub use sim::run_schedulers;

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;

/// Every scheduler on the same tenants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// One run per scheduler, in the order asked (every one:
    /// [`Scheduler::ALL`]); the recorded ones carry their timeline.
    pub runs: Vec<SchedulerRun>,
}

impl Outcome {
    /// The run of `scheduler`, if it ran.
    pub fn run(&self, scheduler: Scheduler) -> Option<&SchedulerRun> {
        self.runs.iter().find(|r| r.scheduler == scheduler)
    }
}

/// The fairness lab in the lab registry.
pub struct FairnessLab;

impl Lab for FairnessLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Scheduler;
    const INFO: LabInfo = LabInfo {
        id: "fairness",
        title: "Fairness between tenants",
        section: "§8",
        layer: Layer::Engine,
        summary: "Tenants with long prompts, long outputs, chat and a shared system prompt on one engine: FCFS, request and token fairness, VTC and strict priority.",
        units: "One step is one engine iteration; tokens are prompt or output tokens, GPU time is counted in prompt-token units.",
        player: Some(PlayerInfo {
            unit: "iteration",
            first: 1,
            speed: 12.0,
            vs: None,
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Scheduler>> = Some(Focus {
        key: "scheduler",
        label: "Scheduler in the player",
        default: Scheduler::Vtc,
    });

    /// Each scheduler's iterations: a fixed cost, a cost per slot (the
    /// fill, decode and prefill passes), and the prefix cache's linear scans
    /// at each admission (its entries are about `cache` ÷ the tenants' mean
    /// prompt, some 400 tokens, and more when a wide `spread` makes many
    /// short prompts; admissions about one per 20 slots an iteration). Fitted to `lblab fairness` runs of 20,000 iterations: 320
    /// ns a scheduler-iteration at the defaults, 630 with a 100,000-token
    /// cache, 1,350 with 64 slots and 64 clients, 4,700 with 64 slots, the
    /// largest cache and a spread of 2; the estimate sits above each.
    fn work(config: &Config, input: &Input<'_, Scheduler>) -> Work {
        let entries = 1.0 + f64::from(config.cache) * (1.0 + config.spread) / 400.0;
        let admissions = f64::from(config.slots) / 20.0;
        let per_tick = 250.0 + 25.0 * f64::from(config.slots) + 6.0 * admissions * entries;
        Work {
            ns: input.items().len() as f64 * f64::from(config.ticks) * per_tick,
            drivers: &["ticks", "cache", "slots", "spread"],
            what: alloc::format!(
                "{} schedulers × {} iterations",
                input.items().len(),
                crate::params::thousands(config.ticks.into())
            ),
        }
    }

    /// Records the timelines `input.record` names; a run of one scheduler
    /// alone (`lblab fairness --scheduler=…`) records that one.
    fn run(config: &Config, input: &Input<'_, Scheduler>) -> Result<Outcome, RunError> {
        let record = if input.only.len() == 1 {
            input.only
        } else {
            input.record
        };
        Ok(Outcome {
            config: config.clone(),
            runs: run_schedulers(config, &input.items(), record)?,
        })
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

    /// Per scheduler: requests sent against those finished and those still
    /// waiting or running (a preempted request waits again; none is
    /// refused).
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("scheduler {}", r.scheduler.name()),
                arrived: r.arrived.into(),
                finished: r.tenants.iter().map(|t| u64::from(t.finished)).sum(),
                rejected: 0,
                outstanding: r.unfinished.into(),
            })
            .collect()
    }
}
