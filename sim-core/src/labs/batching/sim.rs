//! The batching player's outcome and its runs: every mode on the config's
//! trace, and the chunk budget sweep. One mode's iterations are played in
//! `iteration.rs`, one method per phase of an iteration.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{BatchRequest, Config, Mode};
use super::iteration::BatchLoop;
use crate::params::{Configurable, ParamError};

/// What one slot did in one iteration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlotState {
    /// No sequence in the slot.
    Idle,
    /// The sequence computed a prefill chunk.
    Prefill {
        /// Request label.
        label: String,
    },
    /// The sequence emitted a token.
    Decode {
        /// Request label.
        label: String,
    },
    /// The sequence is in the slot but did no work (decode stalled behind a
    /// prefill, or prefill waiting for budget).
    Stalled {
        /// Request label.
        label: String,
    },
}

/// One iteration of one mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationDetail {
    /// Iteration number, from 1.
    pub iteration: u32,
    /// Per slot, what it did.
    pub slots: Vec<SlotState>,
    /// Tokens emitted in this iteration.
    pub output_tokens: u32,
    /// Whether no token was emitted.
    pub zero_output: bool,
    /// Labels of arrived requests not yet admitted, in queue order.
    pub waiting: Vec<String>,
    /// Labels of requests finished so far (this iteration included).
    pub completed: Vec<String>,
    /// What happened to requests in this iteration, in slot order.
    #[serde(default)]
    pub events: Vec<BatchEvent>,
    /// What makes this iteration worth stopping at, if anything.
    #[serde(default)]
    pub moment: Option<BatchMoment>,
}

/// Something that happened to one request in one iteration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BatchEvent {
    /// The request left the queue for a slot (0-based).
    Admitted {
        /// Request label.
        label: String,
        /// The slot.
        slot: u32,
    },
    /// Its prefill finished in this iteration.
    PrefillDone {
        /// Request label.
        label: String,
    },
    /// It emitted its first token.
    FirstToken {
        /// Request label.
        label: String,
    },
    /// It emitted its last token and freed its slot.
    Finished {
        /// Request label.
        label: String,
    },
}

/// An iteration the player flags for the reader: the first of a stretch of
/// iterations in the same condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BatchMoment {
    /// Slots sat empty while requests waited: static batching admits only
    /// when the whole batch has drained (§7.1).
    IdleWhileWaiting {
        /// Empty slots.
        idle: u32,
        /// Requests waiting.
        waiting: u32,
    },
    /// Sequences held slots but no token came out: every worker was busy
    /// with prefill, or stalled behind it (§7.2).
    ZeroOutput,
}

/// One mode's figures over the iterations played so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    /// Iterations played.
    pub iterations: u32,
    /// Requests finished by then.
    pub finished: u32,
    /// Zero-output iterations so far.
    pub zero_output_iterations: u32,
    /// Occupied slot-iterations over slots × iterations played (0–1).
    pub slot_occupancy: f64,
    /// Mean of the finished requests' mean gaps (0 when none finished).
    pub mean_gap: f64,
}

impl ModeRun {
    /// Figures over iterations `0..=index` of the detail; from the last one
    /// on they equal the run's own (a test holds them to it).
    pub fn totals_upto(&self, index: usize) -> Totals {
        let played = &self.iterations_detail[..(index + 1).min(self.iterations_detail.len())];
        let slots = played.first().map_or(0, |d| d.slots.len());
        let occupied = played
            .iter()
            .flat_map(|d| &d.slots)
            .filter(|s| **s != SlotState::Idle)
            .count();
        let at = played.last().map_or(0, |d| d.iteration);
        let gaps: Vec<f64> = self
            .requests
            .iter()
            .filter(|r| r.finished <= at && r.finished > 0)
            .filter_map(|r| r.mean_gap)
            .collect();
        let n = played.len();
        Totals {
            iterations: n as u32,
            finished: played.last().map_or(0, |d| d.completed.len() as u32),
            zero_output_iterations: played.iter().filter(|d| d.zero_output).count() as u32,
            slot_occupancy: if n == 0 {
                0.0
            } else {
                occupied as f64 / (slots as f64 * n as f64)
            },
            mean_gap: if gaps.is_empty() {
                0.0
            } else {
                gaps.iter().sum::<f64>() / gaps.len() as f64
            },
        }
    }
}

/// Per-request results of one mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequestStats {
    /// Request label.
    pub label: String,
    /// Iterations from arrival to the iteration of the first token.
    pub ttft: u32,
    /// Mean iterations per output token once prefill is done: (iteration of the
    /// last token − iteration prefill finished) / output tokens. 1.0 means a
    /// token every iteration; decode stalls raise it.
    pub mean_gap: Option<f64>,
    /// Mean iterations between consecutive tokens, (last − first) / (output − 1)
    /// (`None` for one-token outputs).
    pub inter_token_gap: Option<f64>,
    /// Iteration of the last token.
    pub finished: u32,
}

/// One mode over the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModeRun {
    /// The mode.
    pub mode: Mode,
    /// Iterations until the last request finished.
    pub iterations: u32,
    /// Iterations that emitted no token.
    pub zero_output_iterations: u32,
    /// Occupied slot-iterations over slots × iterations (0–1).
    pub slot_occupancy: f64,
    /// Occupied slot-iterations.
    pub occupied_slot_iterations: u32,
    /// Mean of the per-request mean inter-token gaps, in iterations.
    pub mean_gap: f64,
    /// Per request, in trace order.
    pub requests: Vec<RequestStats>,
    /// Every iteration.
    pub iterations_detail: Vec<IterationDetail>,
}

/// All modes on one trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// The requests played.
    pub trace: Vec<BatchRequest>,
    /// One entry per mode run.
    pub modes: Vec<ModeRun>,
    /// Chunked prefill at budgets 1–8 under both priorities.
    pub budget_sweep: Vec<BudgetPoint>,
}

/// Chunked prefill at one budget and priority.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BudgetPoint {
    /// Work units per iteration.
    pub budget: u32,
    /// Whether prefill chunks took the budget before decode.
    pub prefill_first: bool,
    /// Iterations to drain.
    pub iterations: u32,
    /// Mean of the per-request mean inter-token gaps.
    pub mean_gap: f64,
}

/// Chunked prefill at budgets 1–8, decode first and prefill first.
pub fn budget_sweep(trace: &[BatchRequest], slots: usize) -> Vec<BudgetPoint> {
    [false, true]
        .iter()
        .flat_map(|&prefill_first| {
            (1..=8).map(move |budget| {
                let r = simulate(trace, slots, budget, prefill_first, Mode::Chunked);
                BudgetPoint {
                    budget,
                    prefill_first,
                    iterations: r.iterations,
                    mean_gap: r.mean_gap,
                }
            })
        })
        .collect()
}

impl Outcome {
    /// The entry for `mode`, if it ran.
    pub fn mode(&self, mode: Mode) -> Option<&ModeRun> {
        self.modes.iter().find(|m| m.mode == mode)
    }

    /// The first iteration (0-based step) at which the modes run do not all
    /// do the same: a slot works differently, the output or the queue
    /// differs, or one mode has drained while another still runs. The
    /// player opens there: before it every mode plays the same iterations
    /// (the first admissions), so opening on iteration 1 would show three
    /// identical pictures. `None` with fewer than two modes or when they
    /// never differ.
    pub fn first_difference(&self) -> Option<usize> {
        let first = self.modes.first()?;
        let longest = self
            .modes
            .iter()
            .map(|m| m.iterations_detail.len())
            .max()
            .unwrap_or(0);
        // What the stage shows of an iteration; its number and its moment
        // follow from these.
        let shown = |d: &IterationDetail| {
            (
                d.slots.clone(),
                d.output_tokens,
                d.waiting.clone(),
                d.events.clone(),
            )
        };
        (0..longest).find(|&i| {
            let a = first.iterations_detail.get(i).map(shown);
            self.modes[1..]
                .iter()
                .any(|m| m.iterations_detail.get(i).map(shown) != a)
        })
    }
}

/// Run the given modes on the config's trace.
pub fn run(config: &Config, modes: &[Mode]) -> Result<Outcome, ParamError> {
    config.validate()?;
    let trace = config.requests();
    Ok(Outcome {
        config: config.clone(),
        modes: modes
            .iter()
            .map(|&m| {
                simulate(
                    &trace,
                    config.slots as usize,
                    config.chunk_budget,
                    config.prefill_first,
                    m,
                )
            })
            .collect(),
        budget_sweep: budget_sweep(&trace, config.slots as usize),
        trace,
    })
}

/// Play `trace` (sorted by arrival) on `slots` slots in `mode`.
pub fn simulate(
    trace: &[BatchRequest],
    slots: usize,
    chunk_budget: u32,
    prefill_first: bool,
    mode: Mode,
) -> ModeRun {
    let mut play = BatchLoop::new(trace, slots, chunk_budget, prefill_first, mode);
    let bound = play.bound();
    while play.completed.len() < trace.len() && play.t < bound {
        play.iteration();
    }
    play.finish()
}
