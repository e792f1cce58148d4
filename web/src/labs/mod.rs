//! The lab registry: every lab once, with the layer it belongs to. The shell's
//! home page, navigation and routing all read [`LABS`].

pub mod batching;
pub mod herding;
pub mod home;
pub mod prefix;
pub mod queueing;
pub mod routing;

use std::cell::RefCell;
use std::sync::Arc;

use leptos::prelude::*;

/// The five layers of an LLM serving stack where load decisions happen (article
/// §3), after the queueing foundations that hold at every one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// Queueing arithmetic that applies at every layer (article §1).
    Foundations,
    /// L1: the SDK or client making one call.
    Client,
    /// L2: gateway or router choosing model, provider, tenant limits.
    Gateway,
    /// L3: picking one replica for one request.
    EndpointSelection,
    /// L4: the engine's scheduler, one iteration at a time.
    Engine,
    /// L5: parallelism and memory topology of the accelerators.
    Accelerator,
}

impl Layer {
    /// Foundations, then every layer, top of the stack first.
    pub const ALL: [Layer; 6] = [
        Layer::Foundations,
        Layer::Client,
        Layer::Gateway,
        Layer::EndpointSelection,
        Layer::Engine,
        Layer::Accelerator,
    ];

    /// Short label, e.g. "L3 · Endpoint selection".
    pub fn title(self) -> &'static str {
        match self {
            Layer::Foundations => "Foundations · every layer",
            Layer::Client => "L1 · Client / SDK",
            Layer::Gateway => "L2 · Gateway",
            Layer::EndpointSelection => "L3 · Endpoint selection",
            Layer::Engine => "L4 · Engine scheduler",
            Layer::Accelerator => "L5 · Accelerator",
        }
    }

    /// What is decided at this layer, in one line.
    pub fn decides(self) -> &'static str {
        match self {
            Layer::Foundations => "How variability, utilisation and capacity turn into waiting, whatever the layer.",
            Layer::Client => "Timeouts, retries, backoff and hedged duplicates for one API call.",
            Layer::Gateway => "Which model and provider, per-tenant limits, breakers and failover.",
            Layer::EndpointSelection => "Which replica serves this request: load signals and cache affinity.",
            Layer::Engine => "What runs in each iteration: admission, batching, prefill versus decode.",
            Layer::Accelerator => "Tensor, pipeline and expert parallelism; a fixed topology, not a per-request choice.",
        }
    }
}

/// One lab as the shell lists it.
#[derive(Clone, Copy, Debug)]
pub struct LabInfo {
    /// Value of the `lab` query key.
    pub id: &'static str,
    /// Page title.
    pub title: &'static str,
    /// Where in the stack it sits.
    pub layer: Layer,
    /// One line for the home page card.
    pub summary: &'static str,
}

const ROUTING: LabInfo = LabInfo {
    id: "routing",
    title: "Routing Lab",
    layer: Layer::EndpointSelection,
    summary:
        "Replay one trace under six selection rules and see why equal counts are not equal work.",
};
const HERDING: LabInfo = LabInfo {
        id: "herding",
        title: "Stale-signal herding",
        layer: Layer::EndpointSelection,
        summary: "Step tick by tick through routers stampeding on one stale snapshot, and four ways to damp it.",
    };
const PREFIX: LabInfo = LabInfo {
        id: "prefix",
        title: "Prefix affinity",
        layer: Layer::EndpointSelection,
        summary: "Two routers, one trace: follow the cached prefix or balance the load, and the threshold between.",
    };
const BATCHING: LabInfo = LabInfo {
        id: "batching",
        title: "Engine batching",
        layer: Layer::Engine,
        summary: "Static, continuous and chunked-prefill batching, iteration by iteration: idle slots and decode stalls.",
    };

const fn explorable(
    id: &'static str,
    title: &'static str,
    layer: Layer,
    summary: &'static str,
) -> LabInfo {
    LabInfo {
        id,
        title,
        layer,
        summary,
    }
}

/// Every lab, in menu order.
pub const LABS: &[LabInfo] = &[
    ROUTING,
    HERDING,
    PREFIX,
    BATCHING,
    explorable(
        "knee",
        "Utilisation knee",
        Layer::Foundations,
        "How variable service times lower the utilisation a pool can run at before queues get long.",
    ),
    explorable(
        "little",
        "Little's law",
        Layer::Foundations,
        "A replica's throughput ceiling from its KV capacity and residency, and what cache hits add.",
    ),
    explorable(
        "retries",
        "Retry amplification",
        Layer::Client,
        "Attempts multiply down the stack; an outage shows where retries belong and what a budget does.",
    ),
    explorable(
        "hedging",
        "Hedged requests",
        Layer::Client,
        "Duplicate only the slow requests: the tail it trims, the work it adds, and the first-token variant.",
    ),
    explorable(
        "cascade",
        "Model cascades",
        Layer::Gateway,
        "Escalate the long requests to a large model: less variable, much longer, and no longer Poisson.",
    ),
];

/// Look a lab up by id.
pub fn find(id: &str) -> Option<&'static LabInfo> {
    LABS.iter().find(|l| l.id == id)
}

thread_local! {
    static LAST_JSON: RefCell<Option<Box<dyn Fn() -> String>>> = RefCell::new(None);
    static LAST_MS: RefCell<f64> = const { RefCell::new(f64::NAN) };
}

/// Record what the visible lab last computed: a JSON producer (run lazily, only
/// when asked) and how long the computation took.
pub fn publish(json: impl Fn() -> String + 'static, compute_ms: f64) {
    LAST_JSON.with(|j| *j.borrow_mut() = Some(Box::new(json)));
    LAST_MS.with(|m| *m.borrow_mut() = compute_ms);
}

/// The JSON of the last published outcome (empty when none).
pub fn last_outcome_json() -> String {
    LAST_JSON.with(|j| j.borrow().as_ref().map(|f| f()).unwrap_or_default())
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

/// The outcome of a lab run (or the error to show).
pub type LabSignals<O> = (LabOutcome<O>, Signal<Option<String>>);

/// A lab's outcome, read through the one memo every lab shares. Why not a
/// `Signal<Option<Arc<O>>>`: each distinct signal value type instantiates the
/// reactive system's generic code again (kilobytes of wasm per lab); this is a
/// typed view over a single instantiation.
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
}

/// One computed lab result, type-erased so every lab shares a single `Memo`
/// instantiation (each distinct memo type costs kilobytes of wasm).
#[derive(Clone)]
struct Erased {
    outcome: Result<Arc<dyn std::any::Any + Send + Sync>, String>,
    json: Option<Arc<dyn Fn() -> String + Send + Sync>>,
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
/// the JSON export and the browser tests, and hand back the outcome and error.
pub fn use_lab_run<O>(run: impl Fn() -> Result<O, String> + Send + Sync + 'static) -> LabSignals<O>
where
    O: serde::Serialize + Send + Sync + 'static,
{
    let erased = move || {
        let start = now_ms();
        let result = run().map(Arc::new);
        let ms = now_ms() - start;
        match result {
            Ok(o) => {
                let for_json = Arc::clone(&o);
                Erased {
                    outcome: Ok(o),
                    json: Some(Arc::new(move || {
                        serde_json::to_string(&*for_json).unwrap_or_default()
                    })),
                    ms,
                }
            }
            Err(e) => Erased {
                outcome: Err(e),
                json: None,
                ms,
            },
        }
    };
    let computed = erased_memo(Arc::new(erased));
    (
        LabOutcome {
            memo: computed,
            _outcome: std::marker::PhantomData,
        },
        Signal::derive(move || computed.with(|c| c.outcome.as_ref().err().cloned())),
    )
}

/// The one memo (and the one publishing effect) every lab goes through.
fn erased_memo(run: Arc<dyn Fn() -> Erased + Send + Sync>) -> Memo<Erased> {
    let computed = Memo::new(move |_| run());
    Effect::new(move |_| {
        computed.with(|c| {
            if let Some(json) = &c.json {
                let json = Arc::clone(json);
                publish(move || json(), c.ms);
            }
        })
    });
    computed
}

/// A lab's URL query for its current state.
pub type QueryFn = Arc<dyn Fn() -> Vec<(&'static str, String)> + Send + Sync>;

/// Keep the URL in step with a lab's state. One effect type serves every lab
/// (each distinct effect closure costs wasm).
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

    #[test]
    fn every_registered_lab_has_a_page_and_ids_are_unique() {
        let pages = ["routing", "herding", "prefix", "batching"];
        for lab in LABS {
            assert!(
                pages.contains(&lab.id) || queueing::find(lab.id).is_some(),
                "{} has no page (app.rs falls back to home)",
                lab.id
            );
            assert_eq!(find(lab.id).map(|l| l.id), Some(lab.id));
            assert_eq!(LABS.iter().filter(|l| l.id == lab.id).count(), 1);
        }
        for layer in Layer::ALL {
            assert!(!layer.title().is_empty() && !layer.decides().is_empty());
        }
    }
}
