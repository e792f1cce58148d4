//! Every lab with its types erased, for code that treats labs alike (the
//! page's worker, the home page, the CLI's flags and the tests): a lab is
//! reached by its id, configured from `(key, text)` pairs, checked against
//! the work bound ([`super::bound::check`]) and run, its outcome written out.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::lab::*;
use crate::choice::Choice;
use crate::params::{Configurable, ParamError, Spec};

/// What [`TextEntry::check`] found in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The outcome as compact JSON (to compare runs of one seed).
    pub json: String,
    /// Paths of NaN or infinite floats in the outcome ([`super::finite`]).
    pub non_finite: Vec<String>,
    /// Every request population and how it ended ([`Lab::tally`]).
    pub tallies: Vec<Tally>,
}

/// How a run is written out as text (the CLI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// [`Lab::report`] without detail.
    Report,
    /// [`Lab::report`] with detail.
    Detail,
    /// Pretty-printed JSON of the outcome.
    Json,
    /// [`Lab::csv`].
    Csv,
}

/// `(key, text)` parameter pairs, as a URL query or CLI flags give them.
pub type Pairs<'a> = [(&'a str, &'a str)];

/// Every parameter's key and canonical text, in table order.
pub type Canonical = Vec<(&'static str, String)>;

/// What an erased run needs.
pub struct RunRequest<'a> {
    /// Parameter values by key; unknown keys are ignored.
    pub pairs: &'a [(&'a str, &'a str)],
    /// Names of the items of [`LabEntry::focus`] to run; empty runs all.
    pub only: &'a [&'a str],
    /// A trace to replay instead of the lab's own workload.
    pub trace: Option<TraceInput<'a>>,
    /// Names of the items whose timeline to record (see [`Input::record`]).
    pub record: &'a [&'a str],
    /// Told how far a long run has got (`None`: nobody is listening).
    pub progress: Option<Progress<'a>>,
    /// Called once the simulation is done, before the outcome is written out
    /// (so a caller can time the simulation alone).
    pub computed: Option<&'a dyn Fn()>,
    /// Threads the run may use for a lab whose items run apart
    /// ([`super::fork`]; `None`: one run on the caller's thread).
    pub threads: Option<super::fork::Threads<'a>>,
}

impl<'a> RunRequest<'a> {
    /// A run of `pairs` with nothing else asked.
    pub fn of(pairs: &'a [(&'a str, &'a str)]) -> RunRequest<'a> {
        RunRequest {
            pairs,
            only: &[],
            trace: None,
            record: &[],
            progress: None,
            computed: None,
            threads: None,
        }
    }
}

/// A run written out once for the page: the outcome in postcard
/// ([`super::encode`]), which the page reads back typed ([`super::decode`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Written {
    /// The outcome, encoded.
    pub bytes: Vec<u8>,
}

/// A registered lab as the page sees it: what it is, what it compares, its
/// parameters. No simulation is reachable from here, so the page's module,
/// which reads [`LABS`](super::LABS), leaves every lab's run out; the
/// simulation worker and the CLI run labs through [`RunEntry`].
#[derive(Clone, Copy)]
pub struct LabEntry {
    /// Id, title, layer, summary, player, embed view.
    pub info: LabInfo,
    /// What a reader can focus on, if anything.
    pub focus: Option<FocusInfo>,
    /// Every parameter, defaults included.
    pub params: fn() -> Vec<Spec>,
    /// Whether the lab replays traces.
    pub replays_traces: bool,
    /// What the page sets when a trace is loaded ([`Lab::TRACE_SETTINGS`]).
    pub trace_settings: &'static [(&'static str, &'static str)],
    /// Build the config from `(key, text)` pairs and read every parameter back
    /// as canonical text, in table order.
    pub canonical: fn(&Pairs<'_>) -> Result<Canonical, ParamError>,
}

impl LabEntry {
    /// The entry for lab type `L`.
    pub const fn of<L: Lab>() -> LabEntry {
        LabEntry {
            info: L::INFO,
            focus: match L::FOCUS {
                Some(f) => Some(FocusInfo {
                    key: f.key,
                    label: f.label,
                    options: <L::Item as Choice>::options,
                    default: default_name::<L>,
                }),
                None => None,
            },
            params: L::Config::specs,
            replays_traces: L::REPLAYS_TRACES,
            trace_settings: L::TRACE_SETTINGS,
            canonical: canonical::<L>,
        }
    }
}

/// A registered lab as the simulation worker runs it: from `(key, text)`
/// pairs to the encoded outcome, or to an export.
#[derive(Clone, Copy)]
pub struct RunEntry {
    /// The lab's id.
    pub id: &'static str,
    /// Build the config from `(key, text)` pairs, run, and encode the outcome.
    pub run: fn(&RunRequest<'_>) -> Result<Written, RunError>,
    /// Build the config from pairs and estimate the run's work (what a page
    /// names when a run fails for want of memory).
    pub work: fn(&RunRequest<'_>) -> Result<super::work::Work, RunError>,
    /// Run and write the outcome as `lblab <lab> --json` (or, with `csv`,
    /// `--csv`) prints it: an export of what the page shows, which ran
    /// from the same settings (the simulation is deterministic).
    pub export: fn(&RunRequest<'_>, bool) -> Result<String, RunError>,
}

impl RunEntry {
    /// The entry for lab type `L`.
    pub const fn of<L: Lab>() -> RunEntry {
        RunEntry {
            id: L::INFO.id,
            run: run_written::<L>,
            work: work_of::<L>,
            export: export::<L>,
        }
    }
}

/// What only the CLI and the tests use of a lab: its plain-text report and
/// the JSON of its configuration.
#[derive(Clone, Copy)]
pub struct TextEntry {
    /// The lab's id.
    pub id: &'static str,
    /// Build the config from pairs, run, and write the outcome as `format`.
    pub run: fn(&RunRequest<'_>, Format) -> Result<String, RunError>,
    /// Build the config from pairs and write it as JSON, without running
    /// (the CLI's `--config`).
    pub config_json: fn(&Pairs<'_>) -> Result<String, RunError>,
    /// Run, and check the outcome: non-finite floats and request tallies
    /// (the property tests and `lblab bench`'s corner sweep).
    pub check: fn(&RunRequest<'_>) -> Result<Checked, RunError>,
    /// Estimate the run's work without running it ([`Lab::work`]).
    pub work: fn(&RunRequest<'_>) -> Result<super::work::Work, RunError>,
    /// Read the worker's bytes back as the page does, with the
    /// configuration `pairs` describe, and write them as compact JSON (what
    /// the encoding tests compare with the CLI's).
    pub reread: fn(&[u8], &Pairs<'_>) -> Result<String, String>,
}

impl TextEntry {
    /// The entry for lab type `L`.
    pub const fn of<L: Lab>() -> TextEntry {
        TextEntry {
            id: L::INFO.id,
            run: run_text::<L>,
            config_json: config_json::<L>,
            check: check::<L>,
            work: work_of::<L>,
            reread: reread::<L>,
        }
    }
}

/// Run, and write the outcome as the CLI's JSON or CSV.
fn export<L: Lab>(req: &RunRequest<'_>, csv: bool) -> Result<String, RunError> {
    let outcome = run_outcome::<L>(req)?;
    if csv {
        return Ok(L::csv(&outcome));
    }
    serde_json::to_string_pretty(&outcome).map_err(|e| RunError::Json(e.to_string()))
}

/// Read [`Written`] bytes back as the page does (decode, then put back the
/// configuration `pairs` describe) and write the outcome as compact JSON.
fn reread<L: Lab>(bytes: &[u8], pairs: &Pairs<'_>) -> Result<String, String> {
    let mut outcome: L::Outcome = decode(bytes)?;
    let config = config_from::<L>(pairs).map_err(|e| e.to_string())?;
    if let Some(c) = L::config_mut(&mut outcome) {
        *c = config;
    }
    serde_json::to_string(&outcome).map_err(|e| e.to_string())
}

fn check<L: Lab>(req: &RunRequest<'_>) -> Result<Checked, RunError> {
    let outcome = run_outcome::<L>(req)?;
    Ok(Checked {
        json: serde_json::to_string(&outcome).map_err(|e| RunError::Json(e.to_string()))?,
        non_finite: super::finite::non_finite(&outcome),
        tallies: L::tally(&outcome),
    })
}

/// The name of lab `L`'s default focus item.
fn default_name<L: Lab>() -> &'static str {
    L::FOCUS.map_or("", |f| f.default.name())
}

/// The config `pairs` describe, or the first value that cannot be used.
fn config_from<L: Lab>(pairs: &[(&str, &str)]) -> Result<L::Config, ParamError> {
    let mut config = L::Config::default();
    match first_error(&mut config, pairs) {
        Some(e) => Err(e),
        None => Ok(config),
    }
}

/// Set `config` from `pairs`; the first value that cannot be used. Not
/// generic, so compiled once for every lab.
fn first_error(
    config: &mut dyn crate::params::AnyConfig,
    pairs: &[(&str, &str)],
) -> Option<ParamError> {
    crate::params::erased::from_pairs(config, pairs)
        .into_iter()
        .next()
}

fn config_json<L: Lab>(pairs: &[(&str, &str)]) -> Result<String, RunError> {
    let config = config_from::<L>(pairs)?;
    serde_json::to_string_pretty(&config).map_err(|e| RunError::Json(e.to_string()))
}

fn canonical<L: Lab>(pairs: &[(&str, &str)]) -> Result<Vec<(&'static str, String)>, ParamError> {
    config_from::<L>(pairs).map(|c| crate::params::all_pairs(&c))
}

fn work_of<L: Lab>(req: &RunRequest<'_>) -> Result<super::work::Work, RunError> {
    let config = config_from::<L>(req.pairs)?;
    let only = items_named::<L>(req.only)?;
    let input = Input {
        trace: req.trace,
        only: &only,
        record: &[],
        progress: &|_, _| {},
    };
    Ok(L::work(&config, &input))
}

fn run_written<L: Lab>(req: &RunRequest<'_>) -> Result<Written, RunError> {
    let outcome = run_outcome::<L>(req)?;
    Ok(Written {
        bytes: encode(&outcome).map_err(RunError::Encode)?,
    })
}

fn run_text<L: Lab>(req: &RunRequest<'_>, format: Format) -> Result<String, RunError> {
    let outcome = run_outcome::<L>(req)?;
    Ok(match format {
        Format::Report => L::report(&outcome, false),
        Format::Detail => L::report(&outcome, true),
        Format::Csv => L::csv(&outcome),
        Format::Json => {
            serde_json::to_string_pretty(&outcome).map_err(|e| RunError::Json(e.to_string()))?
        }
    })
}

/// The items `names` name, or an error naming the focus key and the options.
fn items_named<L: Lab>(names: &[&str]) -> Result<Vec<L::Item>, RunError> {
    names
        .iter()
        .map(|name| {
            L::Item::from_name(name).ok_or_else(|| {
                RunError::Param(ParamError {
                    key: L::FOCUS.map_or("only", |f| f.key),
                    given: String::from(*name),
                    problem: crate::params::Problem::Option(L::Item::names()),
                })
            })
        })
        .collect()
}

fn run_outcome<L: Lab>(req: &RunRequest<'_>) -> Result<L::Outcome, RunError> {
    let config = config_from::<L>(req.pairs)?;
    let only = items_named::<L>(req.only)?;
    let record = items_named::<L>(req.record)?;
    if req.trace.is_some() && !L::REPLAYS_TRACES {
        return Err(RunError::NoTraces);
    }
    let quiet = |_: u32, _: u32| {};
    let input = Input {
        trace: req.trace,
        only: &only,
        record: &record,
        progress: req.progress.unwrap_or(&quiet),
    };
    // Refused before it starts when it would not finish in seconds.
    super::bound::check::<L>(&config, &input)?;
    let outcome = super::fork::run::<L>(&config, &input, req.threads)?;
    if let Some(computed) = req.computed {
        computed();
    }
    Ok(outcome)
}
