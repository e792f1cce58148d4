//! What the page asks of the simulation worker and what the worker answers
//! ([`Ask`], [`Answer`]; postcard between the two wasm modules), and the
//! worker's side of it as plain Rust ([`Server`]): the worker module is only
//! the JavaScript glue around a `Server`, so everything it does with a
//! request is tested natively here.
//!
//! A trace file crosses once per worker: the page sends its bytes beside
//! the first job that needs it, the server parses it then, and later jobs
//! name it by key; every change of the settings replays the parsed rows.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{runner, validation, RunEntry, RunError, RunRequest, TraceInput};
use crate::params;
use crate::workload::trace::{text_of, ImportOptions, ParsedTrace};

/// `(key, text)` parameter pairs, owned.
pub type OwnedPairs = Vec<(String, String)>;

/// One request from the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Ask {
    /// Run a lab through the registry, as `lblab <lab>` does.
    Run(Job),
    /// The validation page: one published scenario over seeds `1..=seeds`.
    Validate {
        /// The scenario's id.
        scenario: String,
        /// Seeds to measure (1–20).
        seeds: u32,
    },
    /// The outcome of a run the page shows, written as the CLI writes it:
    /// the job is run again (the same settings give the same outcome), so
    /// the page holds no JSON or CSV writer and the worker no reader of
    /// outcomes.
    Export {
        /// The run whose outcome to write (its recording is not needed).
        job: Job,
        /// CSV (`--csv`) rather than JSON (`--json`).
        csv: bool,
    },
    /// Read a router's own configuration (the `router-config` crate, which
    /// the worker module asks before this server; [`Server::answer`] only
    /// refuses it).
    ImportConfig {
        /// The lab the reader is on.
        lab: String,
        /// The pasted or dropped text.
        text: String,
    },
    /// Write the lab's rule and settings in a router's own format.
    ExportConfig {
        /// The lab and its settings.
        lab: String,
        /// Every parameter, as `(key, text)`.
        pairs: OwnedPairs,
        /// The format's id (`router_config::FORMATS`).
        format: String,
        /// The page's address up to the query, for the reproducing link.
        base: String,
    },
}

/// What one line of an import report says about a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Said {
    /// A value that differs from the router's default, and what it changes.
    Differs,
    /// A value stated that equals the router's default.
    Restates,
    /// A key or value the lab does not model, named.
    NotModelled,
    /// A secret the import dropped (never kept in the link or exports).
    Secret,
    /// Anything else worth knowing (an assumption the import made).
    Note,
}

/// A router's configuration read into a lab's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConfigReport {
    /// The format's id (`router_formats::FORMATS`).
    pub id: String,
    /// What was read ("LiteLLM router (YAML)").
    pub format: String,
    /// The lab's settings the configuration decides, as `(key, text)`.
    pub pairs: OwnedPairs,
    /// What the page shows about it, one line each.
    pub lines: Vec<(Said, String)>,
    /// One-click changes the report suggests: a label and the settings.
    pub fixes: Vec<(String, OwnedPairs)>,
}

impl ConfigReport {
    /// The lab that runs it (its format's).
    pub fn lab(&self) -> &'static str {
        super::router_formats::format(&self.id).map_or("", |f| f.lab)
    }
}

/// A lab run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// The lab's id.
    pub lab: String,
    /// Every parameter, as `(key, text)`.
    pub pairs: OwnedPairs,
    /// Names of the focus items to run (empty: all).
    pub only: Vec<String>,
    /// Names of the focus items whose timeline to record.
    pub record: Vec<String>,
    /// A trace to replay: the key of the file the worker was sent, and the
    /// import options.
    pub trace: Option<(u32, OwnedPairs)>,
}

/// One message back to the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    /// The run is under way: the parameters that drive its work (what the
    /// page names if the worker dies under it).
    Started {
        /// Parameter keys, most effective first.
        drivers: Vec<String>,
    },
    /// How far a long run has got.
    Progress {
        /// Steps done.
        done: u32,
        /// Steps in all.
        total: u32,
    },
    /// The outcome, encoded ([`super::encode`]).
    Done {
        /// The outcome's bytes (as one run of bytes, not a sequence of
        /// numbers: copied, not walked, on both sides).
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
        /// Milliseconds the simulation took (the caller's clock).
        ms: f64,
        /// Trace files parsed by this worker so far.
        parses: u32,
    },
    /// An export's text.
    Text(String),
    /// A router configuration, read (boxed: it is the largest answer).
    Imported(alloc::boxed::Box<ConfigReport>),
    /// Why the request produced nothing.
    Failed {
        /// One line for the page.
        why: String,
        /// It was the trace that was refused.
        trace: bool,
    },
}

/// The worker's state between requests: the trace it holds, parsed.
#[derive(Default)]
pub struct Server {
    /// The held trace's key, and its rows or why they cannot be read.
    trace: Option<(u32, Result<ParsedTrace, String>)>,
    parses: u32,
}

/// The caller's clock, in milliseconds (only to time runs; the simulation
/// never reads it).
pub type Clock<'a> = &'a dyn Fn() -> f64;

impl Server {
    /// A fresh server holding nothing.
    pub fn new() -> Server {
        Server::default()
    }

    /// Take a trace file's bytes under `key`: read as text and parsed here,
    /// once, for every later job that names `key`.
    pub fn hold_trace(&mut self, key: u32, bytes: Result<Vec<u8>, String>) {
        let parsed = bytes
            .and_then(|b| text_of(b).map_err(|e| e.0))
            .and_then(|text| {
                self.parses += 1;
                ParsedTrace::parse(&text).map_err(|e| e.0)
            });
        self.trace = Some((key, parsed));
    }

    /// The key of the trace held, if any.
    pub fn held(&self) -> Option<u32> {
        self.trace.as_ref().map(|(k, _)| *k)
    }

    /// Trace files parsed so far.
    pub fn parses(&self) -> u32 {
        self.parses
    }

    /// Answer `ask`, telling `post` every message as it goes (progress, then
    /// the outcome or why not). `now` times the run.
    pub fn answer(&self, ask: &Ask, now: Clock<'_>, post: &mut dyn FnMut(Answer)) {
        match ask {
            Ask::Run(job) => self.run(job, now, post),
            Ask::Validate { scenario, seeds } => validate(scenario, *seeds, now, post),
            Ask::Export { job, csv } => post(self.export(job, *csv)),
            Ask::ImportConfig { .. } | Ask::ExportConfig { .. } => post(Answer::Failed {
                why: "router configurations are read by the router-config crate".into(),
                trace: false,
            }),
        }
    }

    /// `job`'s registry entry, the trace it names and its import options, or
    /// why it cannot run.
    fn prepare<'a>(
        &'a self,
        job: &Job,
    ) -> Result<(&'static RunEntry, Option<&'a ParsedTrace>, ImportOptions), Answer> {
        let fail = |why: String, trace: bool| Answer::Failed { why, trace };
        let Some(entry) = runner(&job.lab) else {
            return Err(fail(
                alloc::format!("no lab '{}'", params::shown(&job.lab)),
                false,
            ));
        };
        let Some((key, import)) = &job.trace else {
            return Ok((entry, None, ImportOptions::default()));
        };
        let parsed = match &self.trace {
            Some((held, Ok(p))) if held == key => p,
            Some((held, Err(why))) if held == key => {
                return Err(fail(alloc::format!("trace: {why}"), true))
            }
            _ => return Err(fail("trace: the trace file was not received".into(), true)),
        };
        let (options, errors) = params::from_pairs::<ImportOptions>(
            import.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        );
        match errors.first() {
            Some(e) => Err(fail(e.to_string(), true)),
            None => Ok((entry, Some(parsed), options)),
        }
    }

    fn run(&self, job: &Job, now: Clock<'_>, post: &mut dyn FnMut(Answer)) {
        let (entry, parsed, import) = match self.prepare(job) {
            Ok(p) => p,
            Err(answer) => return post(answer),
        };
        let pairs = borrowed(&job.pairs);
        let only: Vec<&str> = job.only.iter().map(String::as_str).collect();
        let record: Vec<&str> = job.record.iter().map(String::as_str).collect();
        let request = RunRequest {
            pairs: &pairs,
            only: &only,
            trace: parsed.map(|parsed| TraceInput {
                parsed,
                options: &import,
            }),
            record: &record,
            progress: None,
            computed: None,
            // One worker, one thread (a pool of workers would fork here).
            threads: None,
        };
        if let Ok(w) = (entry.work)(&request) {
            post(Answer::Started {
                drivers: w
                    .drivers
                    .iter()
                    .map(|d| String::from(d.trim_start_matches('+')))
                    .collect(),
            });
        }
        let start = now();
        let end = core::cell::Cell::new(f64::NAN);
        let computed = || end.set(now());
        // Progress goes out as it comes; the caller's `post` decides what
        // is worth a message (a run over in a blink needs none).
        let post = core::cell::RefCell::new(post);
        let progress =
            |done: u32, total: u32| (post.borrow_mut())(Answer::Progress { done, total });
        let out = (entry.run)(&RunRequest {
            progress: Some(&progress),
            computed: Some(&computed),
            ..request
        });
        let answer = match out {
            Ok(written) => Answer::Done {
                bytes: written.bytes,
                ms: end.get() - start,
                parses: self.parses,
            },
            Err(e) => Answer::Failed {
                trace: matches!(e, RunError::Trace(_)),
                why: e.to_string(),
            },
        };
        (post.borrow_mut())(answer);
    }

    /// `job` run again and written as the CLI's JSON or CSV.
    fn export(&self, job: &Job, csv: bool) -> Answer {
        let (entry, parsed, import) = match self.prepare(job) {
            Ok(p) => p,
            Err(answer) => return answer,
        };
        let pairs = borrowed(&job.pairs);
        let only: Vec<&str> = job.only.iter().map(String::as_str).collect();
        let request = RunRequest {
            only: &only,
            trace: parsed.map(|parsed| TraceInput {
                parsed,
                options: &import,
            }),
            ..RunRequest::of(&pairs)
        };
        match (entry.export)(&request, csv) {
            Ok(text) => Answer::Text(text),
            Err(e) => Answer::Failed {
                trace: matches!(e, RunError::Trace(_)),
                why: e.to_string(),
            },
        }
    }
}

/// Owned pairs as the registry takes them.
fn borrowed(pairs: &OwnedPairs) -> Vec<(&str, &str)> {
    pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect()
}

/// The validation page's job: one published scenario over seeds
/// `1..=seeds` (at most 20), progress after every seed, and every seed's
/// figures encoded as one list.
fn validate(scenario: &str, seeds: u32, now: Clock<'_>, post: &mut dyn FnMut(Answer)) {
    let Some(found) = validation::scenarios::find(scenario) else {
        return post(Answer::Failed {
            why: String::from("no such published scenario"),
            trace: false,
        });
    };
    let seeds = if (1..=20).contains(&seeds) { seeds } else { 20 };
    let start = now();
    let mut all: Vec<(f64, f64)> = Vec::new();
    for seed in 1..=seeds {
        match validation::measure(found, u64::from(seed)) {
            Ok(figures) => all.extend(figures),
            Err(e) => {
                return post(Answer::Failed {
                    why: e.to_string(),
                    trace: false,
                })
            }
        }
        post(Answer::Progress {
            done: seed,
            total: seeds,
        });
    }
    post(match super::encode(&all) {
        Ok(bytes) => Answer::Done {
            bytes,
            ms: now() - start,
            parses: 0,
        },
        Err(why) => Answer::Failed { why, trace: false },
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn answers(server: &Server, ask: &Ask) -> Vec<Answer> {
        let mut out = Vec::new();
        server.answer(ask, &|| 0.0, &mut |a| out.push(a));
        out
    }

    fn job(lab: &str, trace: Option<(u32, OwnedPairs)>) -> Ask {
        Ask::Run(Job {
            lab: lab.into(),
            pairs: vec![("requests".into(), "40".into())],
            only: vec![],
            record: vec![],
            trace,
        })
    }

    #[test]
    fn a_run_starts_then_answers_its_outcome_and_exports_it() {
        let server = Server::new();
        let got = answers(&server, &job("routing", None));
        assert!(matches!(got.first(), Some(Answer::Started { drivers }) if !drivers.is_empty()));
        assert!(
            matches!(got.last(), Some(Answer::Done { .. })),
            "no outcome: {got:?}"
        );
        let Ask::Run(run) = job("routing", None) else {
            unreachable!()
        };
        for csv in [false, true] {
            let export = answers(
                &server,
                &Ask::Export {
                    job: run.clone(),
                    csv,
                },
            );
            let [Answer::Text(text)] = &export[..] else {
                panic!("{export:?}");
            };
            assert_eq!(text.starts_with('{'), !csv, "{text}");
        }
    }

    #[test]
    fn a_trace_is_parsed_once_for_every_run_that_names_it() {
        let mut server = Server::new();
        let row =
            r#"{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [0, 3]}"#;
        let text: String = (0..20)
            .map(|i| row.replace("0,", &alloc::format!("{i},")) + "\n")
            .collect();
        server.hold_trace(7, Ok(text.into_bytes()));
        for _ in 0..3 {
            let got = answers(&server, &job("routing", Some((7, vec![]))));
            assert!(
                matches!(got.last(), Some(Answer::Done { parses: 1, .. })),
                "{got:?}"
            );
        }
        assert_eq!(server.parses(), 1);
        // A job naming a file the worker does not hold is refused as a trace.
        let got = answers(&server, &job("routing", Some((8, vec![]))));
        assert!(matches!(
            got.last(),
            Some(Answer::Failed { trace: true, .. })
        ));
    }

    #[test]
    fn a_trace_with_a_huge_number_is_refused_at_once() {
        let mut server = Server::new();
        let line = alloc::format!(
            r#"{{"timestamp": {}, "input_length": 600, "output_length": 5, "hash_ids": [0, 3]}}"#,
            "9".repeat(1_000_000)
        );
        server.hold_trace(1, Ok(line.into_bytes()));
        let got = answers(&server, &job("routing", Some((1, vec![]))));
        let Some(Answer::Failed { why, trace: true }) = got.last() else {
            panic!("{got:?}");
        };
        assert!(why.contains("at most 64 characters"), "{why}");
    }

    #[test]
    fn unknown_labs_and_bad_settings_fail_with_a_reason() {
        let server = Server::new();
        assert!(matches!(
            &answers(&server, &job("nope", None))[..],
            [Answer::Failed { trace: false, .. }]
        ));
        let bad = Ask::Export {
            job: Job {
                lab: "knee".into(),
                pairs: vec![("wait".into(), "-1".into())],
                only: vec![],
                record: vec![],
                trace: None,
            },
            csv: true,
        };
        assert!(matches!(
            &answers(&server, &bad)[..],
            [Answer::Failed { trace: false, .. }]
        ));
    }

    #[test]
    fn asks_and_answers_survive_postcard() {
        let ask = job("routing", Some((3, vec![("limit".into(), "10".into())])));
        let back: Ask =
            super::super::decode(&super::super::encode(&ask).expect("encodes")).expect("decodes");
        assert_eq!(back, ask);
        let import = Ask::ImportConfig {
            lab: "providers".into(),
            text: "model_list: []".into(),
        };
        let back: Ask = super::super::decode(&super::super::encode(&import).expect("encodes"))
            .expect("decodes");
        assert_eq!(back, import);
        let report = Answer::Imported(alloc::boxed::Box::new(ConfigReport {
            id: "litellm".into(),
            format: "LiteLLM router (YAML)".into(),
            pairs: vec![("regions".into(), "2".into())],
            lines: vec![(Said::Secret, "api_key".into())],
            fixes: vec![("Pin".into(), vec![("strategy".into(), "sticky".into())])],
        }));
        let back: Answer = super::super::decode(&super::super::encode(&report).expect("encodes"))
            .expect("decodes");
        assert_eq!(back, report);
    }

    #[test]
    fn router_configurations_are_not_this_servers_to_read() {
        let got = answers(
            &Server::new(),
            &Ask::ImportConfig {
                lab: "providers".into(),
                text: String::new(),
            },
        );
        assert!(matches!(
            got.as_slice(),
            [Answer::Failed { trace: false, .. }]
        ));
    }
}
