//! The contract every lab keeps ([`Lab`]) and what the registry and the
//! front ends need to treat labs alike: where a lab sits in the stack, its
//! panels and player, its focus picker, one run's inputs, the erased entries
//! ([`LabEntry`], [`TextEntry`]) and the outcome's encodings. The registry
//! itself, the one list of labs, is `labs/mod.rs`.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;

use crate::choice::Choice;
pub use crate::choice::Nothing;
use crate::params::{Configurable, Opt, ParamError};
use crate::workload::trace::ImportOptions;

/// Where in an LLM serving stack a lab's decision happens (article §3), after
/// the queueing foundations that hold at every layer (article §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    /// Queueing arithmetic that applies at every layer.
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
            Layer::Foundations => {
                "How variability, utilisation and capacity turn into waiting, whatever the layer."
            }
            Layer::Client => "Timeouts, retries, backoff and hedged duplicates for one API call.",
            Layer::Gateway => "Which model and provider, per-tenant limits, breakers and failover.",
            Layer::EndpointSelection => {
                "Which replica serves this request: load signals and cache affinity."
            }
            Layer::Engine => {
                "What runs in each iteration: admission, batching, prefill versus decode."
            }
            Layer::Accelerator => {
                "Tensor, pipeline and expert parallelism; a fixed topology, not a per-request choice."
            }
        }
    }
}

/// The panels of a lab page, by the name an embed's `view=` list uses: the
/// step-through view and its player bar, charts, the controls, headline
/// numbers, tables, and the introduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Panel {
    /// A player's stage and bar.
    Player,
    /// Charts.
    Chart,
    /// The controls panel.
    Controls,
    /// Headline numbers.
    Cards,
    /// Tables.
    Table,
    /// The introduction.
    Intro,
}

impl Panel {
    /// Every panel, in the order an embed shows them.
    pub const ALL: [Panel; 6] = [
        Panel::Player,
        Panel::Chart,
        Panel::Controls,
        Panel::Cards,
        Panel::Table,
        Panel::Intro,
    ];

    /// The name in `view=` lists and `data-panel` attributes.
    pub fn name(self) -> &'static str {
        match self {
            Panel::Player => "player",
            Panel::Chart => "chart",
            Panel::Controls => "controls",
            Panel::Cards => "cards",
            Panel::Table => "table",
            Panel::Intro => "intro",
        }
    }

    /// The panel called `name`.
    pub fn from_name(name: &str) -> Option<Panel> {
        Panel::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// How a lab's page steps through a run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PlayerInfo {
    /// What one step is called ("tick", "request", "iteration").
    pub unit: &'static str,
    /// The number of the first step as people read it (0 for ticks, 1 for
    /// requests and iterations); the URL's `step` key counts the same way.
    pub first: usize,
    /// Steps per second a player plays at when opened.
    pub speed: f64,
    /// The item shown side by side with the one in focus when a link names
    /// none (`vs=`; skipped when it is the item in focus): the comparison
    /// that makes the lab's point.
    pub vs: Option<&'static str>,
    /// Where the player opens when a link names no step.
    pub opens: Opening,
}

/// Where a player opens when its link names no step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Opening {
    /// At the first step: the story builds from an empty pool.
    Start,
    /// At the first key moment, so the reader lands on the point (the first
    /// step when the run has none).
    FirstMoment,
    /// At the first step where the items side by side (the batching modes)
    /// stop doing the same, so the reader lands on what tells them apart
    /// (the first step when they never differ).
    FirstDifference,
}

/// What the registry, the home page and the CLI's help say about a lab.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LabInfo {
    /// Identifier: the `lab` URL key, the CLI subcommand, the golden file's name.
    pub id: &'static str,
    /// Page title.
    pub title: &'static str,
    /// The reference article's section it follows, e.g. "§4.2".
    pub section: &'static str,
    /// Where in the stack it sits.
    pub layer: Layer,
    /// One line for the home page card and the CLI's command list.
    pub summary: &'static str,
    /// One line defining the lab's units (what a tick or a step is), shown
    /// wherever the lab appears without its introduction (an embed).
    pub units: &'static str,
    /// How its page steps through a run (`None`: the page is not a player
    /// and has no `step` URL key).
    pub player: Option<PlayerInfo>,
    /// The panels an embed of the lab shows when its link names none: the
    /// ones that make its point within an article column.
    pub embed_view: &'static [Panel],
}

/// The item a reader looks at in detail when a lab compares several (a rule,
/// a mode): the page's picker (`rule=` / `mode=` in the URL) and the CLI's
/// flag of the same name, which runs only that item.
#[derive(Clone, Copy, Debug)]
pub struct Focus<I: 'static> {
    /// URL key and CLI flag.
    pub key: &'static str,
    /// Label for the picker.
    pub label: &'static str,
    /// The item a page opens on.
    pub default: I,
}

/// [`Focus`] without its item type, for code that treats every lab alike.
#[derive(Clone, Copy, Debug)]
pub struct FocusInfo {
    /// URL key and CLI flag.
    pub key: &'static str,
    /// Label for the picker.
    pub label: &'static str,
    /// The items, in table order.
    pub options: fn() -> Vec<Opt>,
    /// The name of the item a page opens on.
    pub default: fn() -> &'static str,
}

/// What one run takes besides the configuration.
pub struct Input<'a, I> {
    /// A trace to replay instead of the lab's own workload (labs whose
    /// [`Lab::REPLAYS_TRACES`] is set; the others refuse one).
    pub trace: Option<TraceInput<'a>>,
    /// The items to run; empty runs every one.
    pub only: &'a [I],
    /// Items whose step-by-step timeline to record as well, for labs that
    /// record one only on request (the Routing Lab: the player's rule and
    /// its side-by-side partner, among the items run).
    pub record: &'a [I],
    /// Told `(done, total)` as the run goes.
    pub progress: Progress<'a>,
}

impl<I: Choice> Input<'static, I> {
    /// Every item, on the lab's own workload, nothing recorded, nobody told.
    pub fn all() -> Input<'static, I> {
        Input {
            trace: None,
            only: &[],
            record: &[],
            progress: &|_, _| {},
        }
    }
}

impl<'a, I: Choice> Input<'a, I> {
    /// `only` this item.
    pub fn one(item: &'a [I]) -> Input<'a, I> {
        Input {
            trace: None,
            only: item,
            record: &[],
            progress: &|_, _| {},
        }
    }

    /// The items to run: `only` in the order given (repeats dropped), or
    /// every item in table order.
    pub fn items(&self) -> Vec<I> {
        if self.only.is_empty() {
            return I::ALL.to_vec();
        }
        let mut out: Vec<I> = Vec::new();
        for &i in self.only {
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out
    }
}

/// One lab: configuration, simulation, report.
pub trait Lab: 'static {
    /// The configuration and its parameter table.
    type Config: Configurable + Serialize + Sync;
    /// What a run returns (also the JSON that `lblab <id> --json` prints).
    type Outcome: Serialize + serde::de::DeserializeOwned + Send + 'static;
    /// What a reader can focus on ([`Nothing`] when the lab compares nothing).
    type Item: Choice;
    /// Id, title, layer, summary, player and embed view.
    const INFO: LabInfo;
    /// The picker, if the lab compares several items.
    const FOCUS: Option<Focus<Self::Item>> = None;
    /// Whether [`Lab::run`] replays traces (so the CLI offers `--trace`).
    const REPLAYS_TRACES: bool = false;
    /// Settings the page applies when a reader loads a trace, so the
    /// engines can hold its prompts (tens of thousands of tokens where the
    /// labs' teaching defaults use hundreds): the Routing Lab's keys,
    /// unless the lab names its own.
    const TRACE_SETTINGS: &'static [(&'static str, &'static str)] = super::routing::TRACE_ENGINE;
    /// Whether [`Lab::join`] joins runs of parts of the items, so a caller
    /// with threads may run the parts at once ([`super::fork`]).
    const JOINS: bool = false;

    /// What the run `input` asks for would cost, estimated from the config
    /// before it runs ([`super::work`]): a run above the limit is refused
    /// with the settings that would fit.
    fn work(config: &Self::Config, input: &Input<'_, Self::Item>) -> super::work::Work;

    /// Run the lab: validate the config, run the items `input` asks for on
    /// its workload or trace, and report progress as it goes.
    fn run(config: &Self::Config, input: &Input<'_, Self::Item>)
        -> Result<Self::Outcome, RunError>;

    /// A plain-text report: the summary table, and with `detail` the per-step or
    /// per-replica tables too. The CLI prints it; golden files hold it.
    fn report(outcome: &Self::Outcome, detail: bool) -> String;

    /// The main comparison as CSV (header row first), for exports.
    fn csv(outcome: &Self::Outcome) -> String;

    /// The configuration inside an outcome (`None` when the outcome holds
    /// none). An outcome's configuration travels to the page only in JSON
    /// (see [`json_only`]): the page holds the configuration it sent and puts
    /// it back here after decoding.
    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config>;

    /// Every population of requests the outcome accounts for, one [`Tally`]
    /// each (a rule's run, a sweep point): what the property tests hold to
    /// `arrived = finished + rejected + outstanding`.
    fn tally(outcome: &Self::Outcome) -> Vec<Tally>;

    /// The outcome one run of every item of `input` gives, from `parts`:
    /// runs of the same configuration and trace over groups of its items
    /// that hold each item once. `None` (the default) for a lab whose items
    /// share one run; a lab that joins sets [`Lab::JOINS`].
    fn join(parts: Vec<Self::Outcome>, input: &Input<'_, Self::Item>) -> Option<Self::Outcome> {
        let _ = (parts, input);
        None
    }
}

/// How one population of simulated requests ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Which population (`"rule least-kv"`, `"point 3, rule p2c"`).
    pub what: String,
    /// Requests that arrived (or were generated).
    pub arrived: u64,
    /// Requests that completed.
    pub finished: u64,
    /// Requests turned away, dropped or timed out.
    pub rejected: u64,
    /// Requests still queued or running when the run stopped.
    pub outstanding: u64,
}

impl Tally {
    /// Whether every arrival is accounted for exactly once.
    pub fn balances(&self) -> bool {
        self.finished
            .checked_add(self.rejected)
            .and_then(|n| n.checked_add(self.outstanding))
            == Some(self.arrived)
    }
}

/// Why a run produced no outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A parameter (or the focus) cannot be used.
    Param(ParamError),
    /// The lab does not replay traces.
    NoTraces,
    /// The outcome could not be written as JSON.
    Json(String),
    /// The outcome could not be encoded for the page.
    Encode(String),
    /// The trace could not be imported.
    Trace(String),
    /// The run would take too long; says what drives it and what would fit.
    TooMuch(String),
}

impl From<ParamError> for RunError {
    fn from(e: ParamError) -> RunError {
        RunError::Param(e)
    }
}

/// A trace to replay: the file's rows, parsed once, and how to import them.
#[derive(Clone, Copy, Debug)]
pub struct TraceInput<'a> {
    /// The file, parsed.
    pub parsed: &'a crate::workload::trace::ParsedTrace,
    /// Time scale, window, limit, compression.
    pub options: &'a ImportOptions,
}

/// Told `(done, total)` as a long run progresses.
pub type Progress<'a> = &'a dyn Fn(u32, u32);

impl core::fmt::Display for RunError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RunError::Param(e) => write!(f, "{e}"),
            RunError::NoTraces => write!(f, "this lab does not replay traces"),
            RunError::Json(e) => write!(f, "cannot write JSON: {e}"),
            RunError::Encode(e) => write!(f, "cannot encode the outcome: {e}"),
            RunError::Trace(e) => write!(f, "trace: {e}"),
            RunError::TooMuch(e) => write!(f, "{e}"),
        }
    }
}

/// An outcome (or any record) as the worker sends it to the page: postcard,
/// serde's compact binary format made for messages between no_std peers.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(value).map_err(|e| e.to_string())
}

/// Read back what [`encode`] wrote.
pub fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| e.to_string())
}

/// Serialize an `Option` field only the page needs (a player's recording):
/// the page's binary message carries it, JSON writes `null`, so an export
/// equals the CLI's JSON (the recording is a view of the run, not one of its
/// figures). `serde_json` is human-readable and postcard is not, which is
/// what tells the two apart.
pub fn page_only<T: Serialize, S: serde::Serializer>(
    value: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) if !s.is_human_readable() => s.serialize_some(v),
        _ => s.serialize_none(),
    }
}

/// Serialize a field only for JSON (`lblab <lab> --json` and exports),
/// writing nothing into the page's binary message: an outcome's
/// configuration, which the page already holds (it sent it), so neither the
/// worker's encoding nor the page's decoding spends anything on it. The
/// field's `deserialize_with` is [`json_or_default`].
pub fn json_only<T: Serialize, S: serde::Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    if s.is_human_readable() {
        value.serialize(s)
    } else {
        s.serialize_unit()
    }
}

/// Read back what [`json_only`] wrote: the value from JSON, the default
/// from the page's binary message (where the page then puts back the value
/// it holds, see [`Lab::config_mut`]).
pub fn json_or_default<'de, T, D>(d: D) -> Result<T, D::Error>
where
    T: serde::Deserialize<'de> + Default,
    D: serde::Deserializer<'de>,
{
    if d.is_human_readable() {
        T::deserialize(d)
    } else {
        <() as serde::Deserialize>::deserialize(d)?;
        Ok(T::default())
    }
}

/// A CSV field: quoted (with inner quotes doubled) when it holds a comma, a
/// quote or a line break (RFC 4180).
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        let mut out = String::from("\"");
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
        out
    } else {
        String::from(s)
    }
}
