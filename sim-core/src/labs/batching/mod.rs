//! The engine batching player (article §7.1–7.3): one arrival trace, iteration by
//! iteration, under static batching, continuous batching and chunked prefill.
//!
//! Semantics (those under which `shared/notes/batching-model.md` found traces that
//! reproduce all of the article's figures; `tests/batching_player.rs` checks them):
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
mod sim;

pub use config::{
    config_from_tuples, default_trace, random_trace, BatchRequest, Config, Mode, TraceChoice,
};
pub use sim::{
    budget_sweep, run, simulate, BudgetPoint, IterationDetail, ModeRun, Outcome, RequestStats,
    SlotState,
};
