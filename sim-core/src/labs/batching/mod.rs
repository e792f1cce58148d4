//! The engine batching player (article §7.1–7.3): one arrival trace, iteration by
//! iteration, under static batching, continuous batching and chunked prefill.
//!
//! Semantics (those under which an exhaustive search found traces that reproduce
//! all of the article's figures, see `docs/model.md`; `tests/batching_player.rs`
//! checks them):
//! - Iterations are numbered from 1. A request arriving at `a` may be admitted
//!   from iteration `a + 1`, first come first served, into the free slot with the
//!   lowest index.
//! - Prefill work is a whole number of chunks; one chunk takes one iteration. Every
//!   output token comes from a decode step, the first one in the iteration after
//!   prefill finishes. A request leaves its slot after the iteration that emits its
//!   last token; the slot can be refilled in the next iteration.
//! - **Continuous**: free slots are refilled every iteration; an iteration in which
//!   any slot prefills is prefill-only, so every sequence past prefill stalls.
//! - **Static**: a batch is admitted only when every slot is free; within a batch
//!   the continuous rule applies (members past prefill wait while others prefill).
//! - **Chunked prefill**: prefill chunks ride along with decode. An iteration has a
//!   budget of `chunk_budget` work units: each decoding sequence takes one (decode
//!   first, so decode never stalls for prefill, as in Sarathi-Serve's stall-free
//!   batching), then prefilling sequences take one chunk each, in admission order,
//!   while units remain. With the budget at least the slot count (the default)
//!   every sequence advances every iteration.
//! - A slot is occupied while it holds a sequence, prefilling, decoding or stalled.
//!   Occupancy = occupied slot-iterations / (slots × iterations to drain).

mod config;
mod iteration;
mod report;
mod sim;

pub use config::{
    config_from_tuples, default_trace, random_trace, BatchRequest, Config, Mode, TraceChoice,
    MAX_ARRIVAL, MAX_OUTPUT, MAX_PREFILL, MAX_REQUESTS,
};
pub use sim::{
    budget_sweep, run, simulate, BatchEvent, BatchMoment, BudgetPoint, IterationDetail, ModeRun,
    Outcome, RequestStats, SlotState, Totals,
};

use alloc::string::String;

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;

/// The batching player in the lab registry.
pub struct BatchingLab;

impl Lab for BatchingLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Mode;
    const INFO: LabInfo = LabInfo {
        id: "batching",
        title: "Engine batching",
        section: "§7.2",
        layer: Layer::Engine,
        summary: "Static, continuous and chunked-prefill batching, iteration by iteration: idle slots and decode stalls.",
        units: "Iterations are engine steps; prefill is counted in whole chunks, output in tokens.",
        player: Some(PlayerInfo {
            unit: "iteration",
            first: 1,
            speed: 2.0,
            vs: None,
            opens: Opening::FirstDifference,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Mode>> = Some(Focus {
        key: "mode",
        label: "Batching mode",
        default: Mode::Continuous,
    });

    /// A handful of requests on a few slots: microseconds.
    fn work(_: &Config, _: &Input<'_, Mode>) -> Work {
        Work::light("the batching player's iterations")
    }

    fn run(config: &Config, input: &Input<'_, Mode>) -> Result<Outcome, RunError> {
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

    /// Per mode: the last iteration's list of finished requests against the
    /// requests that never reached a last token.
    fn tally(o: &Outcome) -> alloc::vec::Vec<Tally> {
        o.modes
            .iter()
            .map(|m| Tally {
                what: alloc::format!("mode {}", crate::choice::Choice::name(m.mode)),
                arrived: o.trace.len() as u64,
                finished: m
                    .iterations_detail
                    .last()
                    .map_or(0, |i| i.completed.len() as u64),
                rejected: 0,
                outstanding: m.requests.iter().filter(|r| r.finished == 0).count() as u64,
            })
            .collect()
    }
}
