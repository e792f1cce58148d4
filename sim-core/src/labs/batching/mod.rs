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
use alloc::vec::Vec;

use super::{Focus, Lab, LabInfo, Layer};
use crate::params::{Opt, ParamError};

/// The batching player in the lab registry.
pub struct BatchingLab;

impl Mode {
    /// Every mode as a picker option.
    pub fn options() -> Vec<Opt> {
        Mode::ALL
            .iter()
            .map(|m| Opt {
                name: m.name(),
                title: m.title(),
                doc: m.doc(),
            })
            .collect()
    }
}

impl Lab for BatchingLab {
    type Config = Config;
    type Outcome = Outcome;
    const INFO: LabInfo = LabInfo {
        id: "batching",
        title: "Engine batching",
        section: "§7.2",
        layer: Layer::Engine,
        summary: "Static, continuous and chunked-prefill batching, iteration by iteration: idle slots and decode stalls.",
        player: true,
        units: "Iterations are engine steps; prefill is counted in whole chunks, output in tokens.",
    };
    const FOCUS: Option<Focus> = Some(Focus {
        key: "mode",
        label: "Batching mode",
        options: Mode::options,
        default: "continuous",
    });

    fn run(config: &Config, only: Option<&str>) -> Result<Outcome, ParamError> {
        match only.and_then(Mode::from_name) {
            Some(mode) => run(config, &[mode]),
            None => run(config, &Mode::ALL),
        }
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> String {
        report::csv(outcome)
    }
}
