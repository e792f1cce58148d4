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

mod arrivals;
mod config;
mod dispatch;
mod outcome;
pub mod player;
mod record;
mod report;
mod series;
mod shadows;
mod sim;
mod step;
#[cfg(test)]
mod stepwise;
mod summary;
mod tick;
pub mod work;

pub use config::{
    parse_speeds, parse_stages, AsRouting, Config, Rows, MAX_SPEEDS, MAX_STAGES, SPEC_EXAMPLE,
    TRACE_ENGINE,
};
pub use outcome::{
    Alternative, DecisionDetail, Outcome, QueueSeries, ReasonCount, ReplicaOutcome, RuleOutcome,
    TraceSource,
};
pub use sim::{run, run_on_reporting, run_rules, run_rules_on};

use alloc::string::String;
use alloc::vec::Vec;

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::params::Configurable;
use crate::routing::RuleKind;
use crate::workload::{generator, Workload};

/// The Routing Lab in the lab registry.
pub struct RoutingLab;

/// The workload `input` asks for: the generator's, or the imported trace
/// (with what the import read). `config` must have been validated.
pub(crate) fn workload_for(
    config: &Config,
    input: &Input<'_, RuleKind>,
) -> Result<(Workload, Option<crate::workload::trace::ImportReport>), RunError> {
    match &input.trace {
        None => Ok((generator::generate(&config.generator(), config.seed), None)),
        Some(t) => {
            // In milliseconds mode a tick is a millisecond: a trace keeps
            // its own timestamps, with no time scale to guess and no
            // rescaling to a utilisation.
            let mut options = t.options.clone();
            if config.timing.in_ms() {
                options.ms_per_tick = 1;
                options.target_utilisation = 0.0;
            }
            let (workload, report) = options
                .import_parsed(t.parsed, Some(config.capacity()))
                .map_err(|e| RunError::Trace(e.0))?;
            Ok((workload, Some(report)))
        }
    }
}

impl Lab for RoutingLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = RuleKind;
    const INFO: LabInfo = LabInfo {
        id: "routing",
        title: "Routing Lab",
        section: "§4.2",
        layer: Layer::EndpointSelection,
        summary: "Replay one trace under every selection rule and see why equal counts are not equal work.",
        units: "Times in ticks (one engine iteration: a prefill step or a decode step); prompts and outputs in tokens.",
        player: Some(PlayerInfo {
            unit: "tick",
            first: 0,
            speed: 8.0,
            vs: Some("round-robin"),
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Cards],
    };
    const FOCUS: Option<Focus<RuleKind>> = Some(Focus {
        key: "rule",
        label: "Selection rule",
        default: RuleKind::LeastOutstanding,
    });
    const REPLAYS_TRACES: bool = true;

    fn work(config: &Config, input: &Input<'_, RuleKind>) -> Work {
        work::work(config, input.items().len(), &work::Shape::generated(config))
    }

    /// Every rule `input` asks for on one workload; the rules in
    /// `input.record` (at most [`player::PLAYER_RULES`]) are also recorded
    /// tick by tick for the page's player, from the same tick loop.
    const JOINS: bool = true;

    // Every rule replays the same workload (generated from the seed, or the
    // same trace) with its own random streams and its own meter, and a
    // rule's counterfactuals depend only on the configuration, so runs of
    // groups of rules join into the run of all of them: the rules and the
    // recorded plays put back in the order asked (tests/fork.rs).
    fn join(parts: Vec<Outcome>, input: &Input<'_, RuleKind>) -> Option<Outcome> {
        let order = input.items();
        let mut parts = parts.into_iter();
        let mut whole = parts.next()?;
        for part in parts {
            whole.rules.extend(part.rules);
            match (whole.timeline.as_mut(), part.timeline) {
                (Some(t), Some(u)) => t.rules.extend(u.rules),
                (None, Some(u)) => whole.timeline = Some(u),
                _ => {}
            }
        }
        whole
            .rules
            .sort_by_key(|r| order.iter().position(|&k| k == r.rule));
        if let Some(t) = whole.timeline.as_mut() {
            t.rules
                .sort_by_key(|p| input.record.iter().position(|&k| k == p.rule));
        }
        Some(whole)
    }

    fn run(config: &Config, input: &Input<'_, RuleKind>) -> Result<Outcome, RunError> {
        config.validate()?;
        let (workload, import) = workload_for(config, input)?;
        // A trace's size is known once it is read.
        if import.is_some() {
            let w = work::work(config, input.items().len(), &work::Shape::of(&workload));
            if !w.fits() {
                return Err(RunError::TooMuch(crate::labs::work::refusal(
                    &w,
                    &[alloc::string::String::from(
                        "trace-limit or window-length lower (the trace panel's import settings)",
                    )],
                )));
            }
        }
        let source = if import.is_some() {
            TraceSource::Replayed
        } else {
            TraceSource::Generated
        };
        let rules = input.items();
        let meter = work::meter(config, rules.len(), &work::Shape::of(&workload));
        let mut o = sim::simulate(
            config,
            &workload,
            &rules,
            source,
            input.record,
            input.progress,
            &meter,
        );
        if meter.spent() {
            return Err(RunError::TooMuch(meter.refusal()));
        }
        o.import = import;
        Ok(o)
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

    /// Per rule: the replicas' own completion counts against the requests
    /// of the trace and the rule's outstanding count.
    fn tally(o: &Outcome) -> alloc::vec::Vec<Tally> {
        o.rules
            .iter()
            .map(|r| Tally {
                what: alloc::format!("rule {}", crate::choice::Choice::name(r.rule)),
                arrived: u64::from(o.trace.requests),
                finished: r.replicas.iter().map(|x| u64::from(x.completed)).sum(),
                rejected: 0,
                outstanding: u64::from(r.outstanding),
            })
            .collect()
    }
}
