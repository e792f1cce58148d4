//! The lab pages, and the plumbing every page shares.
//!
//! Which labs exist is sim-core's registry (`sim_core::labs::LABS`): the home
//! page, the navigation and `?lab=` routing read it. [`PAGES`] maps each lab id
//! to its page component; a test fails when a registered lab has no page.
//!
//! Shared plumbing: [`lab::LabPage`] reads a lab's state from the URL through its
//! parameter table and writes it back, [`use_lab_job`] runs the lab in the
//! worker (`crate::worker`) and publishes the outcome for the exports, and
//! [`draw_effect`] redraws a chart when what it shows changes.

pub mod batching;
pub mod goodput;
pub mod herding;
pub mod home;
pub mod lab;
pub mod prefix;
pub mod queueing;
pub mod routing;
pub mod traces;

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;

/// Builds one lab's page from the page's query pairs.
pub type PageFn = fn(Vec<(String, String)>) -> AnyView;

/// Every lab's page, by lab id (the ids of `sim_core::labs::LABS`).
pub const PAGES: &[(&str, PageFn)] = &[
    ("routing", |pairs| {
        view! { <routing::RoutingLab pairs=pairs /> }.into_any()
    }),
    ("goodput", |pairs| {
        view! { <goodput::GoodputLab pairs=pairs /> }.into_any()
    }),
    ("herding", |pairs| {
        view! { <herding::HerdingLab pairs=pairs /> }.into_any()
    }),
    ("prefix", |pairs| {
        view! { <prefix::PrefixLab pairs=pairs /> }.into_any()
    }),
    ("batching", |pairs| {
        view! { <batching::BatchingLab pairs=pairs /> }.into_any()
    }),
    ("knee", queueing::knee::page),
    ("little", queueing::little::page),
    ("retries", queueing::retries::page),
    ("hedging", queueing::hedging::page),
    ("cascade", queueing::cascade::page),
];

/// The page of lab `id`, if it has one.
pub fn page(id: &str) -> Option<PageFn> {
    PAGES.iter().find(|(i, _)| *i == id).map(|(_, p)| *p)
}

thread_local! {
    static LAST_JSON: RefCell<Option<Box<dyn Fn() -> String>>> = RefCell::new(None);
    static LAST_CSV: RefCell<Option<Box<dyn Fn() -> String>>> = RefCell::new(None);
    static LAST_MS: RefCell<f64> = const { RefCell::new(f64::NAN) };
}

/// Record what the visible lab last computed: JSON and CSV producers (run
/// lazily, only when asked) and how long the computation took.
pub fn publish(json: impl Fn() -> String + 'static, csv: impl Fn() -> String + 'static, ms: f64) {
    LAST_JSON.with(|j| *j.borrow_mut() = Some(Box::new(json)));
    LAST_CSV.with(|c| *c.borrow_mut() = Some(Box::new(csv)));
    LAST_MS.with(|m| *m.borrow_mut() = ms);
    // `<html data-runs>` counts published outcomes (with `data-busy`, what
    // tests and scripts wait on).
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let n = root
            .get_attribute("data-runs")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let _ = root.set_attribute("data-runs", &(n + 1).to_string());
    }
}

/// The JSON of the last published outcome, as `lblab <lab> --json` prints it
/// (empty when none).
pub fn last_outcome_json() -> String {
    LAST_JSON.with(|j| j.borrow().as_ref().map(|f| f()).unwrap_or_default())
}

/// The CSV of the last published outcome, as `lblab <lab> --csv` prints it
/// (empty when none).
pub fn last_outcome_csv() -> String {
    LAST_CSV.with(|c| c.borrow().as_ref().map(|f| f()).unwrap_or_default())
}

/// Milliseconds of the last published computation (NaN when none).
pub fn last_compute_ms() -> f64 {
    LAST_MS.with(|m| *m.borrow())
}

/// `performance.now()` of whatever global this runs in (a window or the
/// worker), in milliseconds.
pub fn now_ms_anywhere() -> f64 {
    use wasm_bindgen::JsCast;
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// `performance.now()` in milliseconds (0 where unavailable, e.g. native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// A lab's outcome, read through the one signal every lab shares. Why not a
/// `Signal<Option<Arc<O>>>`: each distinct signal value type instantiates the
/// reactive system's generic code again; this is a typed view over a single
/// instantiation.
pub struct LabOutcome<O> {
    state: RwSignal<Erased>,
    _outcome: std::marker::PhantomData<fn() -> O>,
}

impl<O> Clone for LabOutcome<O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O> Copy for LabOutcome<O> {}

impl<O: Send + Sync + 'static> LabOutcome<O> {
    /// Read the outcome (`None` while there is none or the run failed),
    /// tracking it like a signal.
    pub fn with<R>(&self, f: impl FnOnce(&Option<Arc<O>>) -> R) -> R {
        self.state.with(|c| {
            f(&c.outcome
                .as_ref()
                .ok()
                .and_then(|o| o.clone())
                .and_then(|o| o.downcast::<O>().ok()))
        })
    }

    /// The outcome, untracked (for event handlers).
    pub fn get_untracked(&self) -> Option<Arc<O>> {
        self.state.with_untracked(|c| {
            c.outcome
                .as_ref()
                .ok()
                .and_then(|o| o.clone())
                .and_then(|o| o.downcast::<O>().ok())
        })
    }

    /// The run's error, if it failed (tracked).
    pub fn error(&self) -> Option<String> {
        self.state.with(|c| c.outcome.as_ref().err().cloned())
    }
}

/// One computed lab result, type-erased so every lab shares a single signal
/// instantiation (`Ok(None)`: nothing computed yet).
#[derive(Clone)]
struct Erased {
    outcome: Result<Option<Arc<dyn std::any::Any + Send + Sync>>, String>,
}

impl PartialEq for Erased {
    fn eq(&self, other: &Self) -> bool {
        match (&self.outcome, &other.outcome) {
            (Ok(Some(a)), Ok(Some(b))) => Arc::ptr_eq(a, b),
            (Ok(None), Ok(None)) => true,
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }
}

/// Where a page's simulation stands: idle, running (with progress), or
/// cancelled by the reader.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunState {
    /// Nothing running; the outcome is current.
    Idle,
    /// A run is in the worker: steps done and total (0, 0 before the first
    /// report), and when it started (ms, `performance.now()`).
    Running {
        /// Steps done.
        done: u32,
        /// Steps in all (0 when the run does not report).
        total: u32,
        /// When the run was submitted.
        since: f64,
    },
    /// The reader cancelled; the outcome shown is from earlier settings.
    Cancelled,
}

/// The job a page wants run, as it changes (`None`: nothing to run yet, e.g.
/// a trace still loading).
pub type JobFn = Arc<dyn Fn() -> Option<crate::worker::Job> + Send + Sync>;

/// Run a lab in the worker whenever `job` changes: one job at a time per page,
/// the latest settings winning (changes made while a run is in flight wait for
/// it, and only the newest of them runs next). Replies are deserialised into
/// `O` and handed back; with `csv`, they are also published for the exports
/// and the browser tests (the page's main run does; side runs do not).
pub fn use_lab_job<O>(
    job: JobFn,
    csv: Option<fn(&O) -> String>,
) -> (LabOutcome<O>, RwSignal<RunState>)
where
    O: serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let state = RwSignal::new(Erased { outcome: Ok(None) });
    let status = RwSignal::new(RunState::Idle);
    let queue: std::rc::Rc<RefCell<JobQueue>> = Default::default();
    Effect::new(move |_| {
        if let Some(j) = job() {
            start::<O>(std::rc::Rc::clone(&queue), j, state, status, csv);
        }
    });
    (
        LabOutcome {
            state,
            _outcome: std::marker::PhantomData,
        },
        status,
    )
}

/// A page's job in flight and the one waiting behind it.
#[derive(Default)]
struct JobQueue {
    busy: bool,
    next: Option<crate::worker::Job>,
}

fn start<O>(
    queue: std::rc::Rc<RefCell<JobQueue>>,
    job: crate::worker::Job,
    state: RwSignal<Erased>,
    status: RwSignal<RunState>,
    csv: Option<fn(&O) -> String>,
) where
    O: serde::de::DeserializeOwned + Send + Sync + 'static,
{
    {
        let mut q = queue.borrow_mut();
        if q.busy {
            q.next = Some(job);
            return;
        }
        q.busy = true;
    }
    let since = now_ms();
    status.set(RunState::Running {
        done: 0,
        total: 0,
        since,
    });
    let after = std::rc::Rc::clone(&queue);
    crate::worker::submit(
        &job,
        move |done, total| status.set(RunState::Running { done, total, since }),
        move |reply| {
            match reply {
                crate::worker::Reply::Done { json, bytes, ms } => {
                    match sim_core::labs::decode::<O>(&bytes) {
                        Ok(o) => {
                            let o = Arc::new(o);
                            if let Some(csv) = csv {
                                let for_csv = Arc::clone(&o);
                                publish(move || json.to_string(), move || csv(&for_csv), ms);
                            }
                            state.set(Erased {
                                outcome: Ok(Some(o)),
                            });
                            status.set(RunState::Idle);
                        }
                        Err(e) => {
                            state.set(Erased {
                                outcome: Err(format!("cannot read the worker's outcome: {e}")),
                            });
                            status.set(RunState::Idle);
                        }
                    }
                }
                crate::worker::Reply::Failed(why) => {
                    state.set(Erased { outcome: Err(why) });
                    status.set(RunState::Idle);
                }
                crate::worker::Reply::Cancelled => status.set(RunState::Cancelled),
            }
            let next = {
                let mut q = after.borrow_mut();
                q.busy = false;
                // After a cancel nothing queued starts: the reader asked to stop.
                let next = q.next.take();
                next.filter(|_| status.get_untracked() != RunState::Cancelled)
            };
            if let Some(next) = next {
                start::<O>(after, next, state, status, csv);
            }
        },
    );
}

/// A lab's URL query for its current state.
pub type QueryFn = Arc<dyn Fn() -> Vec<(&'static str, String)> + Send + Sync>;

/// Keep the URL in step with a lab's state. One effect type serves every lab.
pub fn sync_url(query: QueryFn) {
    Effect::new(move |_| crate::url::replace_query(&query()));
}

/// Keep a player's step inside a run that got shorter (not while there is no
/// run yet: the step a link opens on must survive until the first outcome).
pub fn clamp_step(step: RwSignal<usize>, len: Signal<usize>) {
    Effect::new(move |_| {
        let n = len.get();
        if n > 0 && step.get_untracked() >= n {
            step.set(n.saturating_sub(1));
        }
    });
}

/// Builds a lab's chart from whatever signals it needs (`None`: nothing to draw yet).
pub type SpecFn =
    Arc<dyn Fn(&crate::theme::ChartTheme) -> Option<crate::charts::ChartSpec> + Send + Sync>;

/// Redraw `canvas` in the page's theme whenever what `spec` reads changes; the
/// returned signal holds the drawing error to show, if any. The chart reads
/// out its values under the pointer or keyboard focus ([`draw_linked`]).
pub fn draw_effect(
    canvas: NodeRef<leptos::html::Canvas>,
    spec: SpecFn,
) -> RwSignal<Option<String>> {
    draw_linked(canvas, spec, None)
}

/// What a click (or Enter) on a player's chart does with the data x under it.
pub type PickFn = Arc<dyn Fn(f64) + Send + Sync>;

/// A pick that moves a player to the step at data x (steps are the chart's
/// x units: ticks, requests, iterations from 0) and pauses it.
pub fn seek_to(step: RwSignal<usize>, playing: RwSignal<bool>) -> PickFn {
    Arc::new(move |x| {
        playing.set(false);
        step.set(x.round().max(0.0) as usize);
    })
}

/// [`draw_effect`], plus: the values under the pointer or the keyboard
/// cursor (← → on the focused chart) in a `role="tooltip"` element, and with
/// `pick`, a click or Enter on the chart hands its data x to `pick`.
pub fn draw_linked(
    canvas: NodeRef<leptos::html::Canvas>,
    spec: SpecFn,
    pick: Option<PickFn>,
) -> RwSignal<Option<String>> {
    let error = RwSignal::new(None::<String>);
    let drawn: std::rc::Rc<RefCell<Option<Drawn>>> = Default::default();
    let hooked = std::rc::Rc::new(std::cell::Cell::new(false));
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            let theme = crate::theme::ChartTheme::from_css();
            if let Some(spec) = spec(&theme) {
                match crate::charts::draw_on_canvas(&c, &spec, &theme) {
                    Ok(area) => {
                        error.set(None);
                        *drawn.borrow_mut() = Some(Drawn { spec, area });
                    }
                    Err(e) => error.set(Some(e)),
                }
            }
            if !hooked.replace(true) {
                hover::attach(&c, std::rc::Rc::clone(&drawn), pick.clone());
            }
        }
    });
    error
}

/// The last drawing of a chart: what it showed and where.
pub struct Drawn {
    spec: crate::charts::ChartSpec,
    area: crate::charts::PlotArea,
}

mod hover;

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::labs::{Layer, LABS};

    #[test]
    fn every_registered_lab_has_a_page_and_nothing_else_does() {
        let registered: Vec<&str> = LABS.iter().map(|l| l.info.id).collect();
        let pages: Vec<&str> = PAGES.iter().map(|(id, _)| *id).collect();
        assert_eq!(
            pages, registered,
            "PAGES must list exactly the labs of sim_core::labs::LABS, in order"
        );
        for layer in Layer::ALL {
            assert!(!layer.title().is_empty() && !layer.decides().is_empty());
        }
    }
}
