//! A lab's items on several threads, where the caller has threads.
//!
//! sim-core has none (it is `no_std`); a caller that has them (the CLI)
//! passes [`Threads`]. A lab whose items run independently of each other
//! (the Routing Lab: every rule replays the same workload with its own
//! random streams and its own meter) says so by implementing
//! [`Lab::join`]; its items are then dealt round-robin into one part per
//! thread, each part is an ordinary run of those items, and the parts are
//! joined into the outcome one run of every item gives, bit for bit
//! (`tests/fork.rs` holds the two equal).

use alloc::vec::Vec;

use super::lab::{Input, Lab, RunError};

/// Runs every job it is given, perhaps at once (the CLI: a scoped thread
/// each), and returns once all have finished.
pub type Fork<'a> = &'a dyn Fn(&mut [&mut (dyn FnMut() + Send)]);

/// The threads a run may use.
#[derive(Clone, Copy)]
pub struct Threads<'a> {
    /// How many parts to cut the items into (the machine's cores, say).
    pub ways: usize,
    /// What runs the parts.
    pub fork: Fork<'a>,
}

/// Run `input` as [`Lab::run`] does, in parts on `threads` when the lab
/// joins parts and there are two items or more; otherwise in one run. The
/// caller has checked the work bound on the whole run.
pub fn run<L: Lab>(
    config: &L::Config,
    input: &Input<'_, L::Item>,
    threads: Option<Threads<'_>>,
) -> Result<L::Outcome, RunError> {
    let items = input.items();
    let ways = threads.map_or(1, |t| t.ways.min(items.len()));
    let (Some(threads), true) = (threads, L::JOINS && ways >= 2) else {
        return L::run(config, input);
    };
    // Round-robin, so each part gets a mix of cheap and dear items.
    let groups: Vec<Vec<L::Item>> = (0..ways)
        .map(|g| items.iter().skip(g).step_by(ways).copied().collect())
        .collect();
    let mut results: Vec<Option<Result<L::Outcome, RunError>>> = (0..ways).map(|_| None).collect();
    {
        let quiet = |_: u32, _: u32| {};
        let trace = input.trace;
        let record = input.record;
        let mut jobs: Vec<_> = groups
            .iter()
            .zip(results.iter_mut())
            .map(|(group, slot)| {
                move || {
                    let part = Input {
                        trace,
                        only: group,
                        record,
                        progress: &quiet,
                    };
                    *slot = Some(L::run(config, &part));
                }
            })
            .collect();
        let mut refs: Vec<&mut (dyn FnMut() + Send)> = jobs
            .iter_mut()
            .map(|j| j as &mut (dyn FnMut() + Send))
            .collect();
        (threads.fork)(&mut refs);
    }
    let mut parts = Vec::with_capacity(ways);
    for r in results {
        match r {
            Some(r) => parts.push(r?),
            // A fork that skipped a job: run the whole thing here.
            None => return L::run(config, input),
        }
    }
    match L::join(parts, input) {
        Some(outcome) => Ok(outcome),
        None => L::run(config, input),
    }
}
