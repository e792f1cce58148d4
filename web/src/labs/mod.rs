//! The lab pages, and the plumbing every page shares.
//!
//! Which labs exist is sim-core's registry (`sim_core::labs::LABS`): the home
//! page, the navigation and `?lab=` routing read it. [`PAGES`] maps each lab id
//! to its page component; a test fails when a registered lab has no page.
//!
//! Shared plumbing: [`lab::LabPage`] reads a lab's state from the URL through its
//! parameter table and writes it back, [`use_lab_run`] runs the lab in one memo
//! and publishes the outcome for the exports, and [`draw_effect`] redraws a
//! chart when what it shows changes.

pub mod batching;
pub mod herding;
pub mod home;
pub mod lab;
pub mod prefix;
pub mod queueing;
pub mod routing;

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

/// `performance.now()` in milliseconds (0 where unavailable, e.g. native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// A lab's outcome, read through the one memo every lab shares. Why not a
/// `Signal<Option<Arc<O>>>`: each distinct signal value type instantiates the
/// reactive system's generic code again; this is a typed view over a single
/// instantiation.
pub struct LabOutcome<O> {
    memo: Memo<Erased>,
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
        self.memo.with(|c| {
            f(&c.outcome
                .as_ref()
                .ok()
                .and_then(|o| Arc::clone(o).downcast::<O>().ok()))
        })
    }

    /// The outcome, untracked (for event handlers).
    pub fn get_untracked(&self) -> Option<Arc<O>> {
        self.memo.with_untracked(|c| {
            c.outcome
                .as_ref()
                .ok()
                .and_then(|o| Arc::clone(o).downcast::<O>().ok())
        })
    }

    /// The run's error, if it failed (tracked).
    pub fn error(&self) -> Option<String> {
        self.memo.with(|c| c.outcome.as_ref().err().cloned())
    }
}

/// One computed lab result, type-erased so every lab shares a single `Memo`
/// instantiation.
#[derive(Clone)]
struct Erased {
    outcome: Result<Arc<dyn std::any::Any + Send + Sync>, String>,
    json: Option<Arc<dyn Fn() -> String + Send + Sync>>,
    csv: Option<Arc<dyn Fn() -> String + Send + Sync>>,
    ms: f64,
}

impl PartialEq for Erased {
    fn eq(&self, other: &Self) -> bool {
        match (&self.outcome, &other.outcome) {
            (Ok(a), Ok(b)) => Arc::ptr_eq(a, b),
            (Err(a), Err(b)) => a == b,
            _ => false,
        }
    }
}

/// Run a lab whenever the signals `run` reads change: time it, publish it for
/// the exports and the browser tests (JSON as the CLI's `--json`, CSV from
/// `csv`), and hand back the outcome.
pub fn use_lab_run<O>(
    run: impl Fn() -> Result<O, String> + Send + Sync + 'static,
    csv: fn(&O) -> String,
) -> LabOutcome<O>
where
    O: serde::Serialize + Send + Sync + 'static,
{
    let erased = move || {
        let start = now_ms();
        let result = run().map(Arc::new);
        let ms = now_ms() - start;
        match result {
            Ok(o) => {
                let (for_json, for_csv) = (Arc::clone(&o), Arc::clone(&o));
                Erased {
                    outcome: Ok(o),
                    json: Some(Arc::new(move || {
                        serde_json::to_string(&*for_json).unwrap_or_default()
                    })),
                    csv: Some(Arc::new(move || csv(&for_csv))),
                    ms,
                }
            }
            Err(e) => Erased {
                outcome: Err(e),
                json: None,
                csv: None,
                ms,
            },
        }
    };
    let memo = erased_memo(Arc::new(erased));
    LabOutcome {
        memo,
        _outcome: std::marker::PhantomData,
    }
}

/// The one memo (and the one publishing effect) every lab goes through.
fn erased_memo(run: Arc<dyn Fn() -> Erased + Send + Sync>) -> Memo<Erased> {
    let computed = Memo::new(move |_| run());
    Effect::new(move |_| {
        computed.with(|c| {
            if let (Some(json), Some(csv)) = (&c.json, &c.csv) {
                let (json, csv) = (Arc::clone(json), Arc::clone(csv));
                publish(move || json(), move || csv(), c.ms);
            }
        })
    });
    computed
}

/// A lab's URL query for its current state.
pub type QueryFn = Arc<dyn Fn() -> Vec<(&'static str, String)> + Send + Sync>;

/// Keep the URL in step with a lab's state. One effect type serves every lab.
pub fn sync_url(query: QueryFn) {
    Effect::new(move |_| crate::url::replace_query(&query()));
}

/// Keep a player's step inside a run that got shorter.
pub fn clamp_step(step: RwSignal<usize>, len: Signal<usize>) {
    Effect::new(move |_| {
        let n = len.get();
        if step.get_untracked() >= n {
            step.set(n.saturating_sub(1));
        }
    });
}

/// Builds a lab's chart from whatever signals it needs (`None`: nothing to draw yet).
pub type SpecFn =
    Arc<dyn Fn(&crate::theme::ChartTheme) -> Option<crate::charts::ChartSpec> + Send + Sync>;

/// Redraw `canvas` in the page's theme whenever what `spec` reads changes; the
/// returned signal holds the drawing error to show, if any.
pub fn draw_effect(
    canvas: NodeRef<leptos::html::Canvas>,
    spec: SpecFn,
) -> RwSignal<Option<String>> {
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(c) = canvas.get() {
            let theme = crate::theme::ChartTheme::from_css();
            if let Some(spec) = spec(&theme) {
                error.set(crate::charts::draw_on_canvas(&c, &spec, &theme).err());
            }
        }
    });
    error
}

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
