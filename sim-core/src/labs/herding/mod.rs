//! The stale-signal herding lab (article §5.6): several routers dispatch on load
//! snapshots that are only refreshed every `scrape_interval` ticks. When every
//! router trusts the same stale minimum, they stampede onto one replica, then all
//! flee it at the next scrape.
//!
//! Model (the constants that give the article's magnitudes are explained in
//! `docs/model.md`):
//! - `replicas` replicas; each request occupies its replica for exactly
//!   `service_time` ticks, however busy the replica is, so a replica's outstanding
//!   count is the number of requests dispatched to it in the last `service_time`
//!   ticks. Load in flight is L = λ·S; the oscillation's amplitude is about
//!   min(λ·T, L), so the default S = 1.5·T keeps it at λ·T.
//! - Each tick ⌈(t+1)λ⌉ − ⌈tλ⌉ requests arrive (evenly paced, the default), or a
//!   Poisson number with mean `arrival_rate` drawn from its own stream; they
//!   are dealt to routers round robin in arrival order across ticks.
//! - Router `k` scrapes every `scrape_interval` ticks: in phase, all at multiples
//!   of T; staggered, router k at offsets ⌊k·T/K⌋. All start from an all-zero view.
//! - Order within a tick: completions → scrapes → dispatches (in arrival order)
//!   → skew is measured.
//! - Routers choose with the shared selection rules (least outstanding, power of
//!   two choices) over each replica's [`StaleView`]. All randomness of decisions
//!   (tie-breaks and two-choice samples) comes from one stream read in arrival
//!   order, so with in-phase scrapes the stale rule makes the very same choices
//!   whatever the router count, and the two two-choice rules sample the same pairs.

mod config;
mod outcome;
mod report;
mod rules;
mod sim;

pub use config::Config;
pub use outcome::{
    HerdMoment, Outcome, RouterView, RuleSummary, TickSnapshot, Timeline, Totals, PILE_FACTOR,
};
pub use rules::{HerdingRule, StaleView};
pub use sim::{run, run_rule, run_rules};

use alloc::string::String;

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;

/// The herding lab in the lab registry.
pub struct HerdingLab;

impl Lab for HerdingLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = HerdingRule;
    const INFO: LabInfo = LabInfo {
        id: "herding",
        title: "Stale-signal herding",
        section: "§5.6",
        layer: Layer::EndpointSelection,
        summary: "Step tick by tick through routers stampeding on one stale snapshot, and four ways to damp it.",
        units: "Ticks are abstract time steps; each request holds its replica for a fixed service time.",
        player: Some(PlayerInfo {
            unit: "tick",
            first: 0,
            speed: 4.0,
            vs: None,
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<HerdingRule>> = Some(Focus {
        key: "rule",
        label: "Rule every router uses",
        default: HerdingRule::Stale,
    });

    /// Every tick, every router's dispatches and every replica's count, per
    /// rule: at most a few milliseconds over the whole range.
    fn work(config: &Config, input: &Input<'_, HerdingRule>) -> Work {
        let per_tick =
            f64::from(config.routers) * f64::from(config.replicas) + 4.0 * config.arrival_rate;
        Work {
            ns: 50.0 * input.items().len() as f64 * f64::from(config.ticks) * per_tick,
            ..Work::light("the herding ticks")
        }
    }

    fn run(config: &Config, input: &Input<'_, HerdingRule>) -> Result<Outcome, RunError> {
        Ok(run_rules(config, &input.items())?)
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

    /// Per rule: arrivals against the requests finished, the ones no replica
    /// took, and those still in service on the last tick.
    fn tally(o: &Outcome) -> alloc::vec::Vec<Tally> {
        let arrived: u64 = o.arrivals.iter().map(|&a| u64::from(a)).sum();
        o.rules
            .iter()
            .map(|r| Tally {
                what: alloc::format!("rule {}", crate::choice::Choice::name(r.rule)),
                arrived,
                finished: u64::from(r.finished),
                rejected: u64::from(r.unrouted),
                outstanding: r
                    .timeline
                    .ticks
                    .last()
                    .map_or(0, |t| t.outstanding.iter().map(|&x| u64::from(x)).sum()),
            })
            .collect()
    }
}
