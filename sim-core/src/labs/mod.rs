//! One module per lab, and the one registry that lists them.
//!
//! Every lab implements [`Lab`]: a [`Configurable`] config (its parameter
//! table), a `run` that returns a serialisable outcome, and a plain-text report.
//! [`LABS`] lists every lab once; the CLI's subcommands, the web app's home page,
//! navigation and `?lab=` routing, the golden-output tests and the browser smoke
//! tests all iterate it. A new lab is one module plus one line in [`LABS`] (and a
//! page in the web crate, which a test there demands).

pub mod batching;
pub mod goodput;
pub mod herding;
pub mod prefix;
pub mod queueing;
pub mod routing;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;

use crate::params::{Configurable, Opt, ParamError, Spec};
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

/// What the registry, the home page and the CLI's help say about a lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
    /// Whether the page is a step-through player (it has a `step` URL key).
    pub player: bool,
    /// One line defining the lab's units (what a tick or a step is), shown
    /// wherever the lab appears without its introduction (an embed).
    pub units: &'static str,
}

/// The items a lab compares (rules, modes) when a reader can pick one to look
/// at in detail: the web page's picker (`rule=` / `mode=` in the URL) and the
/// CLI's flag of the same name, which runs only that item.
#[derive(Clone, Copy, Debug)]
pub struct Focus {
    /// URL key and CLI flag.
    pub key: &'static str,
    /// Label for the picker.
    pub label: &'static str,
    /// The items, in table order.
    pub options: fn() -> Vec<Opt>,
    /// The item a page opens on.
    pub default: &'static str,
}

/// One lab: configuration, simulation, report.
pub trait Lab {
    /// The configuration and its parameter table.
    type Config: Configurable + Serialize;
    /// What a run returns (also the JSON that `lblab <id> --json` prints).
    type Outcome: Serialize;
    /// Id, title, layer, summary.
    const INFO: LabInfo;
    /// What a reader can focus on, if the lab compares several items.
    const FOCUS: Option<Focus> = None;
    /// Whether [`Lab::run_on`] replays traces (so the CLI offers `--trace`).
    const REPLAYS_TRACES: bool = false;
    /// Whether a run can take long enough to deserve a progress bar and a
    /// cancel button (sweeps, long replays).
    const REPORTS_PROGRESS: bool = false;
    /// The parameter sections ([`crate::params::Tier::Section`]) of its config
    /// table this lab uses; parameters of other sections are not its own.
    const SECTIONS: &'static [&'static str] = &[];
    /// Keys of a shared config table this lab does not read (the goodput lab
    /// sweeps the rate, so the Routing Lab's `rate` would be a dead control):
    /// left out of its controls, flags and docs like another section's keys.
    const UNUSED: &'static [&'static str] = &[];

    /// Run the lab. `only` (one of [`Focus::options`]) restricts the run to one
    /// item where the lab can skip the others; `None` runs everything.
    fn run(config: &Self::Config, only: Option<&str>) -> Result<Self::Outcome, ParamError>;

    /// Run the lab on a replayed trace instead of its own workload (`None` when
    /// the lab does not replay traces).
    fn run_on(
        config: &Self::Config,
        trace: &TraceInput<'_>,
        only: Option<&str>,
    ) -> Option<Result<Self::Outcome, RunError>> {
        let _ = (config, trace, only);
        None
    }

    /// [`Lab::run`] or [`Lab::run_on`], telling `progress` how many of how
    /// many steps are done as it goes. Labs whose runs are long override it.
    fn run_reporting(
        config: &Self::Config,
        trace: Option<&TraceInput<'_>>,
        only: Option<&str>,
        progress: Progress<'_>,
    ) -> Result<Self::Outcome, RunError> {
        let _ = progress;
        match trace {
            None => Self::run(config, only).map_err(RunError::Param),
            Some(t) => Self::run_on(config, t, only).ok_or(RunError::NoTraces)?,
        }
    }

    /// For a lab whose page plays a run beyond its outcome (the Routing
    /// Lab's tick-by-tick timeline): that record, [`encode`]d, for the rules
    /// named in `only` (comma-separated). `None`: this lab has none.
    fn play(
        config: &Self::Config,
        trace: Option<&TraceInput<'_>>,
        only: Option<&str>,
    ) -> Option<Result<Vec<u8>, RunError>> {
        let _ = (config, trace, only);
        None
    }

    /// A plain-text report: the summary table, and with `detail` the per-step or
    /// per-replica tables too. The CLI prints it; golden files hold it.
    fn report(outcome: &Self::Outcome, detail: bool) -> String;

    /// The main comparison as CSV (header row first), for exports.
    fn csv(outcome: &Self::Outcome) -> String;
}

/// How an erased run should be written out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// [`Lab::report`] without detail.
    Report,
    /// [`Lab::report`] with detail.
    Detail,
    /// Pretty-printed JSON of the outcome.
    Json,
    /// The same JSON on one line (for machines: the page's worker).
    JsonCompact,
    /// [`Lab::csv`].
    Csv,
}

/// Why an erased run produced no output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A parameter (or the focus) cannot be used.
    Param(ParamError),
    /// The lab does not replay traces.
    NoTraces,
    /// The outcome could not be written as JSON.
    Json(String),
    /// The trace could not be imported.
    Trace(String),
}

/// A trace to replay: the file's text and how to import it.
#[derive(Clone, Copy, Debug)]
pub struct TraceInput<'a> {
    /// The whole file, as text.
    pub text: &'a str,
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
            RunError::Trace(e) => write!(f, "trace: {e}"),
        }
    }
}

/// `(key, text)` parameter pairs, as a URL query or CLI flags give them.
pub type Pairs<'a> = [(&'a str, &'a str)];

/// Every parameter's key and canonical text, in table order.
pub type Canonical = Vec<(&'static str, String)>;

/// A registered lab with its types erased, for code that treats every lab
/// alike (the CLI, the golden tests, the home page).
#[derive(Clone, Copy)]
pub struct LabEntry {
    /// Id, title, layer, summary.
    pub info: LabInfo,
    /// What a reader can focus on, if anything.
    pub focus: Option<Focus>,
    /// Every parameter, defaults included.
    pub params: fn() -> Vec<Spec>,
    /// Whether [`LabEntry::run`] accepts a trace.
    pub replays_traces: bool,
    /// Whether runs report progress (see [`Lab::REPORTS_PROGRESS`]).
    pub reports_progress: bool,
    /// Build the config from `(key, text)` pairs, run, and write the outcome.
    pub run: fn(&RunRequest<'_>) -> Result<String, RunError>,
    /// Build the config from `(key, text)` pairs and write it as JSON, without
    /// running (the CLI's `--config`).
    pub config_json: fn(&Pairs<'_>) -> Result<String, RunError>,
    /// Build the config from `(key, text)` pairs and read every parameter back
    /// as canonical text, in table order.
    pub canonical: fn(&Pairs<'_>) -> Result<Canonical, ParamError>,
    /// [`Lab::play`] on parameter pairs (`None`: the lab has no timeline).
    pub play: fn(&RunRequest<'_>) -> Option<Coded>,
    /// The run as compact JSON (for exports) and as [`encode`]d bytes (for
    /// the page to read back); `format` is ignored.
    pub run_coded: fn(&RunRequest<'_>) -> JsonAndBytes,
}

/// An [`encode`]d record, or why there is none.
pub type Coded = Result<Vec<u8>, RunError>;

/// A run as JSON and as [`encode`]d bytes.
pub type JsonAndBytes = Result<(String, Vec<u8>), RunError>;

/// What an erased run needs.
pub struct RunRequest<'a> {
    /// Parameter values by key; unknown keys are ignored.
    pub pairs: &'a [(&'a str, &'a str)],
    /// One item of [`LabEntry::focus`] to run alone.
    pub only: Option<&'a str>,
    /// A trace to replay instead of the lab's own workload.
    pub trace: Option<TraceInput<'a>>,
    /// How to write the outcome.
    pub format: Format,
    /// Told how far a long run has got (`None`: nobody is listening).
    pub progress: Option<Progress<'a>>,
    /// Called once the simulation is done, before the outcome is written out
    /// (so a caller can time the simulation alone).
    pub computed: Option<&'a dyn Fn()>,
}

impl LabEntry {
    /// The entry for lab type `L`.
    pub const fn of<L: Lab>() -> LabEntry
    where
        L::Config: Serialize,
    {
        LabEntry {
            info: L::INFO,
            focus: L::FOCUS,
            params: specs_of::<L>,
            replays_traces: L::REPLAYS_TRACES,
            reports_progress: L::REPORTS_PROGRESS,
            run: run_erased::<L>,
            config_json: config_json::<L>,
            canonical: canonical::<L>,
            play: play_erased::<L>,
            run_coded: run_coded::<L>,
        }
    }
}

/// The parameters lab `L` shows: its config's table without the sections it
/// does not use.
pub fn specs_of<L: Lab>() -> Vec<Spec> {
    L::Config::specs()
        .into_iter()
        .filter(|s| s.tier.shown_in(L::SECTIONS) && !L::UNUSED.contains(&s.key))
        .collect()
}

/// The config `pairs` describe, or the first value that cannot be used.
fn config_from<L: Lab>(pairs: &[(&str, &str)]) -> Result<L::Config, ParamError> {
    let (config, errors) = crate::params::from_pairs::<L::Config>(pairs.iter().copied());
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(config),
    }
}

fn config_json<L: Lab>(pairs: &[(&str, &str)]) -> Result<String, RunError> {
    let config = config_from::<L>(pairs).map_err(RunError::Param)?;
    serde_json::to_string_pretty(&config).map_err(|e| RunError::Json(e.to_string()))
}

fn canonical<L: Lab>(pairs: &[(&str, &str)]) -> Result<Vec<(&'static str, String)>, ParamError> {
    config_from::<L>(pairs).map(|c| crate::params::all_pairs(&c))
}

fn play_erased<L: Lab>(req: &RunRequest<'_>) -> Option<Coded> {
    match config_from::<L>(req.pairs) {
        Ok(config) => L::play(&config, req.trace.as_ref(), req.only),
        Err(e) => Some(Err(RunError::Param(e))),
    }
}

/// Encode an outcome (or any record) positionally with postcard: every
/// field in declaration order, no names. Outcomes never skip a field when
/// serialising, so this reads back exactly (`web` decodes it on the page).
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, RunError> {
    postcard::to_allocvec(value).map_err(|e| RunError::Json(e.to_string()))
}

/// Read back what [`encode`] wrote.
pub fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| e.to_string())
}

fn run_coded<L: Lab>(req: &RunRequest<'_>) -> JsonAndBytes {
    let outcome = run_outcome::<L>(req)?;
    let json = serde_json::to_string(&outcome).map_err(|e| RunError::Json(e.to_string()))?;
    Ok((json, encode(&outcome)?))
}

fn run_erased<L: Lab>(req: &RunRequest<'_>) -> Result<String, RunError> {
    let outcome = run_outcome::<L>(req)?;
    Ok(match req.format {
        Format::Report => L::report(&outcome, false),
        Format::Detail => L::report(&outcome, true),
        Format::Csv => L::csv(&outcome),
        Format::Json => {
            serde_json::to_string_pretty(&outcome).map_err(|e| RunError::Json(e.to_string()))?
        }
        Format::JsonCompact => {
            serde_json::to_string(&outcome).map_err(|e| RunError::Json(e.to_string()))?
        }
    })
}

fn run_outcome<L: Lab>(req: &RunRequest<'_>) -> Result<L::Outcome, RunError> {
    let config = config_from::<L>(req.pairs).map_err(RunError::Param)?;
    if let (Some(only), Some(focus)) = (req.only, L::FOCUS) {
        if !(focus.options)().iter().any(|o| o.name == only) {
            let names = (focus.options)().iter().map(|o| o.name).collect();
            return Err(RunError::Param(ParamError {
                key: focus.key,
                given: String::from(only),
                problem: crate::params::Problem::Option(names),
            }));
        }
    }
    let quiet = |_: u32, _: u32| {};
    let outcome = L::run_reporting(
        &config,
        req.trace.as_ref(),
        req.only,
        req.progress.unwrap_or(&quiet),
    )?;
    if let Some(computed) = req.computed {
        computed();
    }
    Ok(outcome)
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

/// Every lab, in menu order. The one list.
pub static LABS: &[LabEntry] = &[
    LabEntry::of::<routing::RoutingLab>(),
    LabEntry::of::<goodput::GoodputLab>(),
    LabEntry::of::<herding::HerdingLab>(),
    LabEntry::of::<prefix::PrefixLab>(),
    LabEntry::of::<batching::BatchingLab>(),
    LabEntry::of::<queueing::knee::KneeLab>(),
    LabEntry::of::<queueing::little::LittleLab>(),
    LabEntry::of::<queueing::retries::RetriesLab>(),
    LabEntry::of::<queueing::hedging::HedgingLab>(),
    LabEntry::of::<queueing::cascade::CascadeLab>(),
];

/// The registered lab with `id`.
pub fn find(id: &str) -> Option<&'static LabEntry> {
    LABS.iter().find(|l| l.info.id == id)
}
