//! A page's runs in the worker. What to run is derived from the page's state
//! (a memo of the [`Job`]); one effect hands each new job to the worker, and
//! the worker's replies, not the effect, write the outcome. Where a run stands
//! is derived too: running while the job wanted is not the job last answered.
//!
//! Jobs coalesce: while one runs, only the newest change waits behind it, so a
//! slider drag never queues a backlog. **Cancel** terminates the worker; the
//! job it cancelled stays marked until the settings change again.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::prelude::*;

use super::{AnyPage, Shared};
use crate::platform::worker::{self, Job, Reply};
use crate::ui::RunState;

/// One stream of runs (a page's main run, or its player's recording).
#[derive(Clone, Copy)]
pub struct Run {
    wanted: Memo<Option<Job>>,
    answered: RwSignal<Option<Job>>,
    cancelled: RwSignal<Option<Job>>,
    progress: RwSignal<(u32, u32)>,
    /// The latest outcome with the configuration it ran from (`Ok(None)`:
    /// nothing yet), or why the run failed.
    pub outcome: RwSignal<Result<Option<Ran>, String>>,
    /// Why the last run refused its trace, if that is why it failed.
    pub trace_refused: RwSignal<Option<String>>,
}

impl Run {
    /// Where this stream stands.
    pub fn status(&self) -> RunState {
        let wanted = self.wanted.get();
        if wanted.is_none() || self.answered.with(|a| *a == wanted) {
            RunState::Idle
        } else if self.cancelled.with(|c| *c == wanted) {
            RunState::Cancelled
        } else {
            let (done, total) = self.progress.get();
            RunState::Running { done, total }
        }
    }

    /// The outcome, tracked (`None` while there is none or the run failed).
    pub fn get(&self) -> Option<Shared> {
        self.ran().map(|r| r.outcome)
    }

    /// The outcome and the configuration it ran from, tracked.
    pub fn ran(&self) -> Option<Ran> {
        self.outcome.with(|o| o.as_ref().ok().cloned().flatten())
    }

    /// Why the last run failed, tracked.
    pub fn error(&self) -> Option<String> {
        self.outcome.with(|o| o.as_ref().err().cloned())
    }
}

/// An outcome and the configuration its run was given. Views of the outcome
/// read this configuration, not the one the controls hold now: while the
/// next run is in the worker they keep showing the last one as it was, and
/// are not built again twice per change (once for the new settings over the
/// old outcome, once more when the new outcome arrives).
#[derive(Clone, PartialEq)]
pub struct Ran {
    /// The configuration (`L::Config`) the run was given.
    pub config: Shared,
    /// The outcome (`L::Outcome`).
    pub outcome: Shared,
}

/// The job in flight and the one waiting behind it, each with the
/// configuration it was made from.
#[derive(Default)]
struct Queue {
    busy: bool,
    next: Option<(Job, Shared)>,
}

/// Run `job` (made from `config`) in the worker whenever it changes, reading
/// replies back as `page`'s outcome; with `publish`, each outcome is also
/// what the exports and the browser tests read (the page's main run is; its
/// player's is not).
pub fn use_run(
    job: impl Fn() -> Option<Job> + Send + Sync + 'static,
    config: RwSignal<Shared>,
    page: &'static dyn AnyPage,
    publish: bool,
) -> Run {
    let run = Run {
        wanted: Memo::new(move |_| job()),
        answered: RwSignal::new(None),
        cancelled: RwSignal::new(None),
        progress: RwSignal::new((0, 0)),
        outcome: RwSignal::new(Ok(None)),
        trace_refused: RwSignal::new(None),
    };
    let queue: Rc<RefCell<Queue>> = Rc::default();
    // Synchronises the worker with the job wanted; it writes no signal.
    Effect::new(move |_| {
        if let Some(j) = run.wanted.get() {
            // The job was made from the configuration as it is now.
            let made_from = config.get_untracked();
            start(Rc::clone(&queue), (j, made_from), run, page, publish);
        }
    });
    run
}

fn start(
    queue: Rc<RefCell<Queue>>,
    (job, config): (Job, Shared),
    run: Run,
    page: &'static dyn AnyPage,
    publish: bool,
) {
    {
        let mut q = queue.borrow_mut();
        if q.busy {
            q.next = Some((job, config));
            return;
        }
        q.busy = true;
    }
    let sent = job.clone();
    worker::submit(
        &job,
        move |done, total| {
            run.progress.try_set((done, total));
        },
        move |reply| {
            // The page that asked may be gone (a tour moved to its next
            // step): its signals are disposed, and nothing is left to show.
            if run.outcome.is_disposed() {
                queue.borrow_mut().busy = false;
                return;
            }
            let cancelled = reply == Reply::Cancelled;
            match reply {
                Reply::Done { bytes, ms } => {
                    let decoded = page
                        .decode(&bytes, &config)
                        .map_err(|e| format!("cannot read the worker's outcome: {e}"));
                    if decoded.is_ok() && publish {
                        // The JSON and CSV are written (by the worker) only
                        // when an export asks for them.
                        crate::platform::exports::publish(&sent, ms);
                    }
                    run.trace_refused.set(None);
                    run.outcome
                        .set(decoded.map(|outcome| Some(Ran { config, outcome })));
                    run.progress.set((0, 0));
                    run.answered.set(Some(sent));
                }
                Reply::Text(_) | Reply::Imported(_) => {
                    run.outcome.set(Err("the worker answered with text".into()));
                    run.progress.set((0, 0));
                    run.answered.set(Some(sent));
                }
                Reply::Failed(f) => {
                    run.trace_refused.set(f.trace.then(|| f.why.clone()));
                    run.outcome.set(Err(f.why));
                    run.progress.set((0, 0));
                    run.answered.set(Some(sent));
                }
                // What the reader stopped is whatever the page wanted then,
                // the job in flight or the one waiting behind it.
                Reply::Cancelled => run.cancelled.set(run.wanted.get_untracked()),
            }
            let next = {
                let mut q = queue.borrow_mut();
                q.busy = false;
                // After a cancel nothing queued starts: the reader asked to stop.
                q.next.take().filter(|_| !cancelled)
            };
            if let Some(next) = next {
                start(queue, next, run, page, publish);
            }
        },
    );
}
