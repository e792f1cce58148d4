//! The Routing Lab's runs: every rule asked for on one workload, each on
//! the tick loop of [`super::tick`], the first ones recorded for the player.

use alloc::vec::Vec;

use super::outcome::{Outcome, TraceSource};
use super::player::{Timeline, PLAYER_RULES};
use super::tick::run_one;
use super::{record, Config};
use crate::labs::lab::Progress;
use crate::labs::work::Meter;
use crate::params::{Configurable, ParamError};
use crate::routing::RuleKind;
use crate::workload::{generator, Workload};

/// Run every rule of the registry on the trace `config` describes.
pub fn run(config: &Config) -> Result<Outcome, ParamError> {
    run_rules(config, RuleKind::ALL)
}

/// Run the given rules on the trace `config` describes.
pub fn run_rules(config: &Config, rules: &[RuleKind]) -> Result<Outcome, ParamError> {
    config.validate()?;
    let workload = generator::generate(&config.generator(), config.seed);
    Ok(simulate(
        config,
        &workload,
        rules,
        TraceSource::Generated,
        &[],
        &|_, _| {},
        &Meter::unlimited(),
    ))
}

/// Run the given rules on an existing workload (a replayed trace, say). The
/// config's workload fields are ignored; its engine and rule settings apply.
pub fn run_rules_on(
    config: &Config,
    workload: &Workload,
    rules: &[RuleKind],
) -> Result<Outcome, ParamError> {
    run_on_reporting(config, workload, rules, &|_, _| {}, &Meter::unlimited())
}

/// [`run_rules_on`], telling `progress` after each rule and charging
/// `meter` as it goes (a run whose meter runs out stops early: check
/// [`Meter::spent`] before reading the outcome).
pub fn run_on_reporting(
    config: &Config,
    workload: &Workload,
    rules: &[RuleKind],
    progress: Progress<'_>,
    meter: &Meter,
) -> Result<Outcome, ParamError> {
    config.validate()?;
    Ok(simulate(
        config,
        workload,
        rules,
        TraceSource::Replayed,
        &[],
        progress,
        meter,
    ))
}

/// Every rule in `rules` on `workload`; the rules in `record` (the first
/// [`PLAYER_RULES`] of them) are recorded tick by tick as they run, in the
/// order `record` names them (the timeline and the metrics come from the same
/// tick loop). `config` must be valid.
pub(super) fn simulate(
    config: &Config,
    workload: &Workload,
    rules: &[RuleKind],
    source: TraceSource,
    record: &[RuleKind],
    progress: Progress<'_>,
    meter: &Meter,
) -> Outcome {
    let total = rules.len() as u32;
    let record = &record[..record.len().min(PLAYER_RULES)];
    let mut plays = Vec::new();
    let mut outcomes = Vec::with_capacity(rules.len());
    for (i, &rule) in rules.iter().enumerate() {
        // A spent meter stops the run: the caller refuses it.
        if meter.spent() {
            break;
        }
        let r = if record.contains(&rule) {
            let (play, r) = record::record_rule(config, workload, rule, meter);
            plays.push(play);
            r
        } else {
            run_one(config, workload, rule, meter)
        };
        progress(i as u32 + 1, total);
        outcomes.push(r);
    }
    plays.sort_by_key(|p: &super::player::RulePlay| record.iter().position(|&r| r == p.rule));
    Outcome {
        config: config.clone(),
        source,
        import: None,
        trace: workload.stats(),
        rules: outcomes,
        timeline: (!record.is_empty()).then(|| Timeline {
            replicas: config.replicas,
            requests: record::requests(workload),
            rules: plays,
        }),
    }
}
