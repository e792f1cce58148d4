//! The Routing Lab (article §4.2): one seeded arrival trace replayed under every
//! selection rule, on identical replica engines, with TTFT, E2E, SLO, cache and
//! balance metrics per rule.
//!
//! Data flow: [`Config`] → [`crate::workload::generator`] (or a replayed trace)
//! → for each rule: router → [`crate::engine::Replica`]s, stepped tick by tick →
//! [`RuleOutcome`] → [`Outcome`].
//!
//! Order within a tick (total and fixed): arrivals of this tick are routed in
//! arrival order, each seeing the queues left by the previous one; then every
//! replica, in index order, runs one engine step; then outstanding requests are
//! sampled for the queue-evolution series. A run ends when every request has
//! finished, or at `max_ticks`, when unfinished requests are reported outstanding.

mod config;
mod outcome;
pub mod player;
mod report;
mod series;
mod shadows;
mod sim;

pub use config::{parse_speeds, Config, MAX_SPEEDS, SWEEP, TRACE_ENGINE};
pub use outcome::{
    Alternative, DecisionDetail, Outcome, QueueSeries, ReasonCount, ReplicaOutcome, RuleOutcome,
    TraceSource,
};
pub use sim::{run, run_on_reporting, run_rules, run_rules_on, run_rules_reporting};

use alloc::string::String;
use alloc::vec::Vec;

use super::{Focus, Lab, LabInfo, Layer, Progress, RunError, TraceInput};
use crate::params::{Configurable, ParamError};
use crate::routing::RuleKind;

/// The player's timeline for the rules named in `only` (comma-separated, at
/// most [`player::PLAYER_RULES`]; none named: least outstanding), on the
/// generated trace or on `trace`.
pub fn play(
    config: &Config,
    trace: Option<&TraceInput<'_>>,
    only: Option<&str>,
) -> Result<player::Timeline, RunError> {
    config.validate().map_err(RunError::Param)?;
    let mut rules: Vec<RuleKind> = Vec::new();
    for name in only.unwrap_or("").split(',').filter(|n| !n.is_empty()) {
        let rule = RuleKind::from_name(name).ok_or_else(|| {
            RunError::Param(ParamError {
                key: "rule",
                given: String::from(name),
                problem: crate::params::Problem::Option(
                    RuleKind::ALL.iter().map(|r| r.name()).collect(),
                ),
            })
        })?;
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    if rules.is_empty() {
        rules.push(RuleKind::LeastOutstanding);
    }
    let workload = match trace {
        None => crate::workload::generator::generate(&config.generator(), config.seed),
        Some(t) => {
            t.options
                .import(t.text, Some(config.capacity()))
                .map_err(|e| RunError::Trace(e.0))?
                .0
        }
    };
    Ok(player::record(config, &workload, &rules))
}

/// The Routing Lab in the lab registry.
pub struct RoutingLab;

/// The rules a run covers: `only` (a rule's name) alone, or every rule. The
/// goodput lab, which shares this config, asks the same way.
pub(crate) fn rules_for(only: Option<&str>) -> Vec<RuleKind> {
    match only.and_then(RuleKind::from_name) {
        Some(rule) => alloc::vec![rule],
        None => RuleKind::ALL.to_vec(),
    }
}

impl Lab for RoutingLab {
    type Config = Config;
    type Outcome = Outcome;
    const INFO: LabInfo = LabInfo {
        id: "routing",
        title: "Routing Lab",
        section: "§4.2",
        layer: Layer::EndpointSelection,
        summary: "Replay one trace under every selection rule and see why equal counts are not equal work.",
        player: false,
        units: "Times in ticks (one engine iteration: a prefill step or a decode step); prompts and outputs in tokens.",
    };
    const FOCUS: Option<Focus> = Some(Focus {
        key: "rule",
        label: "Selection rule",
        options: RuleKind::options,
        default: "least-outstanding",
    });
    const REPLAYS_TRACES: bool = true;
    const REPORTS_PROGRESS: bool = true;

    fn run(config: &Config, only: Option<&str>) -> Result<Outcome, ParamError> {
        run_rules(config, &rules_for(only))
    }

    fn run_on(
        config: &Config,
        trace: &TraceInput<'_>,
        only: Option<&str>,
    ) -> Option<Result<Outcome, RunError>> {
        Some(Self::run_reporting(config, Some(trace), only, &|_, _| {}))
    }

    fn run_reporting(
        config: &Config,
        trace: Option<&TraceInput<'_>>,
        only: Option<&str>,
        progress: Progress<'_>,
    ) -> Result<Outcome, RunError> {
        let rules = rules_for(only);
        match trace {
            None => sim::run_rules_reporting(config, &rules, progress).map_err(RunError::Param),
            Some(t) => {
                config.validate().map_err(RunError::Param)?;
                let (workload, report) = t
                    .options
                    .import(t.text, Some(config.capacity()))
                    .map_err(|e| RunError::Trace(e.0))?;
                let mut o = sim::run_on_reporting(config, &workload, &rules, progress)
                    .map_err(RunError::Param)?;
                o.import = Some(report);
                Ok(o)
            }
        }
    }

    fn play(
        config: &Config,
        trace: Option<&TraceInput<'_>>,
        only: Option<&str>,
    ) -> Option<Result<Vec<u8>, RunError>> {
        Some(play(config, trace, only).and_then(|t| super::encode(&t)))
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> String {
        report::csv(outcome)
    }
}
