//! LoRA adapters as a routing resource (article §6.3): a replica holds a
//! few adapters in accelerator slots, loading another stalls it, and the
//! router weighs "which replica has adapter X" against "which is free",
//! the prefix trade-off on a lumpier resource.
//!
//! The model. Requests arrive as a Poisson stream, each on one of
//! `adapters` adapters of Zipf popularity, its prompt the adapter's system
//! prompt followed by tokens of its own. Every replica is the engine of
//! [`crate::engine`] (one tick a [`TICK_MS`] ms iteration, prefill first)
//! with adapters on ([`crate::engine::adapters`]): `lora-slots` adapters in
//! accelerator memory, which is also the most distinct adapters in one
//! batch (vLLM's `max_loras`, a request past it is passed over), an LRU of
//! `host-adapters` in host memory, loads of the adapter's size over the
//! cold or host bandwidth that stall the replica, and a few per mille of
//! step time for each extra adapter in a batch. Five rules route the same
//! requests: round robin, least load, residency-only affinity, llm-d's
//! scorer pipeline with its LoRA-affinity scorer, and AIBrix-style
//! placement first. A sixth run, the prefix twin, sends the same requests
//! with no adapters through prefix-aware routing, so the hottest replica's
//! share under the two kinds of affinity can be compared. Then [`tiers`]
//! sweeps a store shared by the pool over a range of bandwidths, on the
//! same arrivals with long shared documents and no adapters.
//! `tests/lora_claims.rs` holds the claims over seeds.

mod config;
mod report;
mod sim;
pub mod tiers;

pub use config::{Config, Rule, TICK_MS};
pub use report::moment_text;
pub use sim::{
    prefix_twin, run_rule, workload, Moment, PrefixTwin, ReplicaSnap, Routed, RuleRun, Snapshot,
    HOT_GAP, PLAYER_TICKS,
};

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;
use crate::params::{Configurable, ParamError};

/// Every rule on the same requests, and the prefix twin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// One run per rule, in the order asked (every rule: [`Rule::ALL`]).
    pub runs: Vec<RuleRun>,
    /// The same requests with no adapters under prefix-aware routing.
    pub twin: PrefixTwin,
    /// The cache-tier sweep ([`tiers`]).
    pub tiers: Vec<tiers::TierPoint>,
}

impl Outcome {
    /// The run of `rule`, if it ran.
    pub fn run(&self, rule: Rule) -> Option<&RuleRun> {
        self.runs.iter().find(|r| r.rule == rule)
    }
}

/// Run `rules` (recording the player for `record`) and the prefix twin.
pub fn run(c: &Config, rules: &[Rule], record: &[Rule]) -> Result<Outcome, ParamError> {
    c.validate()?;
    let w = workload(c);
    let runs = rules
        .iter()
        .map(|&r| run_rule(c, &w, r, record.contains(&r)))
        .collect();
    Ok(Outcome {
        config: c.clone(),
        runs,
        twin: prefix_twin(c, &w),
        tiers: tiers::sweep(c),
    })
}

/// The LoRA lab in the lab registry.
pub struct LoraLab;

impl Lab for LoraLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Rule;
    const INFO: LabInfo = LabInfo {
        id: "lora",
        title: "LoRA and cache tiers",
        section: "§6.3",
        layer: Layer::EndpointSelection,
        summary: "Affinity on other resources: adapters that stall a replica while they load and pile onto the few replicas holding them, and a shared KV store that makes affinity a matter of bandwidth.",
        units: "One tick is a 25 ms engine iteration; times are in milliseconds.",
        player: Some(PlayerInfo {
            unit: "tick",
            first: 0,
            speed: 20.0,
            vs: Some("least-load"),
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Rule>> = Some(Focus {
        key: "rule",
        label: "Rule in the player",
        default: Rule::Residency,
    });

    /// Six runs (five rules and the twin) and the tier sweep's 24, each
    /// ticking every replica for the arrivals and the drain, with a routing
    /// decision per request that reads every replica's adapters. Fitted to
    /// release runs with room above them (default: 0.20 s against an
    /// estimate of 0.33 s; 100 req/s: 0.54 s against 0.87 s).
    fn work(config: &Config, input: &Input<'_, Rule>) -> Work {
        let runs = input.items().len() as f64 + 1.0;
        let replicas = f64::from(config.replicas);
        // A run's ticks (arrivals and some drain) cost a little per replica
        // and per sequence; each request a routing decision over every
        // replica and its prompt's blocks through the caches. Past capacity
        // the queues grow with time and every tick scans them, so a term in
        // the square of the requests (fitted: 600 s at 100 req/s, where
        // five rules took 9.5 s on 8 replicas).
        let run = |seconds: u32, prompt: u32| {
            let ticks = f64::from(seconds) * 1000.0 / f64::from(TICK_MS) * 1.5;
            let requests = config.rate * f64::from(seconds);
            let per_tick = 30.0 * replicas + 4.0 * replicas * f64::from(config.slots);
            let per_request = 150.0 * replicas + 40.0 * f64::from(prompt / 64);
            ticks * per_tick + requests * per_request + 5.0 * requests * requests / replicas
        };
        // The tier sweep: three rules at each bandwidth, on prompts of
        // `tiers::PROMPT` tokens, over at most `tiers::SECONDS`.
        let sweep =
            (3 * tiers::GBPS.len()) as f64 * run(config.seconds.min(tiers::SECONDS), tiers::PROMPT);
        Work {
            ns: runs * run(config.seconds, config.prompt) + sweep,
            drivers: &["seconds", "rate", "replicas", "slots"],
            what: alloc::format!(
                "{} runs and a 24-run tier sweep × {} s of requests",
                runs as u32,
                crate::params::thousands(config.seconds.into())
            ),
        }
    }

    fn run(config: &Config, input: &Input<'_, Rule>) -> Result<Outcome, RunError> {
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

    /// Per rule: requests that arrived against those finished and those
    /// still queued or running when the run stopped (none is refused).
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("rule {}", r.rule.name()),
                arrived: r.arrived.into(),
                finished: r.finished.into(),
                rejected: 0,
                outstanding: r.unfinished.into(),
            })
            .collect()
    }
}
