//! The evaluate lab on a replayed trace: the trace's requests, grouped into
//! the conversations their prefix chains imply, take the place of the drawn
//! ones, and every experiment runs on them unchanged. The trace's own
//! statistics travel with the outcome, so a reader sees how much of its
//! prompts any cache could reuse before reading what a cache-aware rule did
//! with it (§15: match prefix reuse to real traffic).

use alloc::string::String;
use serde::{Deserialize, Serialize};

use super::plan::Plan;
use super::{estimate, experiments, Config, Design, Outcome, Shape};
use crate::labs::lab::{RunError, TraceInput};
use crate::params::Configurable;
use crate::workload::trace::{Capacity, ImportReport};
use crate::workload::TraceStats;

/// What a replayed trace held, as the lab read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// What the import read, kept and skipped.
    pub import: ImportReport,
    /// The trace's own statistics at its imported timing.
    pub stats: TraceStats,
    /// Conversations recovered from its prefix chains.
    pub conversations: u32,
    /// A warning when the trace does not fill the measured window.
    pub shortfall: Option<String>,
    /// The import, the conversations and any shortfall in a few sentences
    /// for the page (written here, so the page needs no code of its own).
    pub words: String,
}

/// A warning when a trace whose statistics are `t`, with `in_window` of
/// its requests in the measured window, does not fill that window of
/// `config` (a short trace behind a long warm-up measures little).
fn shortfall(config: &Config, t: &TraceStats, in_window: usize) -> Option<String> {
    let end = u64::from(config.warm + config.measure);
    (t.last_arrival < end).then(|| {
        alloc::format!(
            "the trace's last request arrives at tick {}, before the measured window (ticks {}–{}) ends: only {} of its {} requests arrive in it; lower warm or measure to fit it",
            crate::params::thousands(t.last_arrival),
            crate::params::thousands(config.warm.into()),
            crate::params::thousands(end),
            crate::params::thousands(in_window as u64),
            crate::params::thousands(t.requests.into())
        )
    })
}

/// Every experiment of `items` on the trace `t`, imported against this
/// pool's capacity (so a target utilisation compresses it for this pool).
pub fn run(config: &Config, t: &TraceInput<'_>, items: &[Design]) -> Result<Outcome, RunError> {
    config.validate()?;
    let capacity = Capacity {
        replicas: config.replicas,
        slots: config.slots,
        prefill_budget: config.prefill,
    };
    let (w, import) = t
        .options
        .import_parsed(t.parsed, Some(capacity))
        .map_err(|e| RunError::Trace(e.0))?;
    let plan = Plan::from_trace(config, &w);
    let stats = w.stats();
    // The trace's size is known only now: refuse here what would not fit.
    let blocks = w.requests.iter().map(|r| r.blocks.len()).sum::<usize>() as f64
        / w.requests.len().max(1) as f64;
    // A run sends at most the trace's requests, however long its window.
    let t = f64::from(config.warm + config.measure);
    let shape = Shape {
        per_tick: plan.per_tick.min(w.requests.len() as f64 / t),
        blocks,
        block_tokens: w.block_tokens,
    };
    let work = estimate(config, items.len(), &shape);
    if !work.fits() {
        return Err(RunError::TooMuch(crate::labs::work::refusal(
            &work,
            &[String::from(
                "measure, warm or points lower, or a lower target-utilisation",
            )],
        )));
    }
    let window = u64::from(config.warm)..u64::from(config.warm + config.measure);
    let in_window = w
        .requests
        .iter()
        .filter(|r| window.contains(&r.arrival.0))
        .count();
    let shortfall = shortfall(config, &stats, in_window);
    let conversations = plan.convs.len() as u32;
    let words = alloc::format!(
        "{}. It holds {} conversations, found by following its prefix chains; rate, burstiness, turns, think and the prompt settings are not used.{}",
        import.summary(),
        crate::params::thousands(conversations.into()),
        shortfall
            .as_ref()
            .map(|s| alloc::format!(" Note: {s}."))
            .unwrap_or_default()
    );
    let replay = Replay {
        import,
        stats,
        conversations,
        shortfall,
        words,
    };
    Ok(experiments(config, &plan, items, Some(replay)))
}
