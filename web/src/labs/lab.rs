//! What every lab page has in common, derived from the lab's sim-core
//! registration: its configuration read from the URL and written back through
//! the parameter table, the compared item in focus (`rule=`, `mode=`), the
//! player step, the run, and the controls panel's getter and setter.
//!
//! A page calls [`LabPage::new`] and then only renders results: no page parses
//! a URL value, names a parameter's range or re-implements validation.

use std::sync::Arc;

use leptos::prelude::*;
use sim_core::labs::{specs_of, Focus, Lab};
use sim_core::params::{self, Configurable, ParamError};
use sim_core::workload::trace::ImportOptions;

use super::traces::{self, TraceState};
use super::{LabOutcome, RunState};
use crate::components::{ControlKind, ControlSpec, Getter, Setter};
use crate::embed::EmbedOptions;
use crate::worker::Job;

/// How a player counts its steps in the URL and on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steps {
    /// Not a player: no `step` key.
    None,
    /// Steps numbered from 0 (ticks).
    FromZero,
    /// Steps numbered from 1 (requests, iterations).
    FromOne,
}

/// One lab's page state and its run.
pub struct LabPage<L: Lab> {
    /// The configuration the controls edit.
    pub config: RwSignal<L::Config>,
    /// The compared item shown in detail (empty when the lab has no focus).
    pub focus: RwSignal<&'static str>,
    /// The player's step, 0-based.
    pub step: RwSignal<usize>,
    /// A second focus item the player shows side by side with the first
    /// (`vs=`; empty for none).
    pub vs: RwSignal<&'static str>,
    /// The run of the current configuration.
    pub outcome: LabOutcome<L::Outcome>,
    /// Where the run stands (running with progress, cancelled, idle).
    pub status: RwSignal<RunState>,
    /// Where the requests come from (labs that replay traces).
    pub trace: RwSignal<TraceState>,
    /// How a trace is imported (time scale, window, limit, compression).
    pub import: RwSignal<ImportOptions>,
    /// One sentence per URL value that fell back to its default.
    pub notices: Vec<String>,
    /// The embedding options (`controls=` locks every value it does not list).
    pub embed: Arc<EmbedOptions>,
}

impl<L: Lab> Clone for LabPage<L> {
    fn clone(&self) -> Self {
        LabPage {
            config: self.config,
            focus: self.focus,
            step: self.step,
            vs: self.vs,
            outcome: self.outcome,
            status: self.status,
            trace: self.trace,
            import: self.import,
            notices: self.notices.clone(),
            embed: Arc::clone(&self.embed),
        }
    }
}

/// The sentence for a URL value that could not be used.
pub fn notice(e: &ParamError, default: &str) -> String {
    format!(
        "“{}={}” cannot be used: {} {}; using the default {}.",
        e.key, e.given, e.key, e.problem, default
    )
}

/// The focus in `pairs`, or the default with a notice.
fn read_focus(
    focus: &Focus,
    pairs: &[(String, String)],
    notices: &mut Vec<String>,
) -> &'static str {
    let options = (focus.options)();
    match pairs.iter().find(|(k, _)| k == focus.key) {
        None => focus.default,
        Some((_, v)) => match options.iter().find(|o| o.name == v) {
            Some(o) => o.name,
            None => {
                let names: Vec<&str> = options.iter().map(|o| o.name).collect();
                notices.push(format!(
                    "“{}={v}” is not one of {}; using the default {}.",
                    focus.key,
                    names.join(", "),
                    focus.default
                ));
                focus.default
            }
        },
    }
}

/// The side-by-side item in `pairs` (`vs=`), or none with a notice.
fn read_vs(focus: &Focus, pairs: &[(String, String)], notices: &mut Vec<String>) -> &'static str {
    let Some((_, v)) = pairs.iter().find(|(k, _)| k == "vs") else {
        return "";
    };
    if v.is_empty() {
        return "";
    }
    let options = (focus.options)();
    match options.iter().find(|o| o.name == v) {
        Some(o) => o.name,
        None => {
            let names: Vec<&str> = options.iter().map(|o| o.name).collect();
            notices.push(format!(
                "“vs={v}” is not one of {}; showing one rule.",
                names.join(", ")
            ));
            ""
        }
    }
}

/// The step in `pairs` (0-based), or 0 with a notice.
fn read_step(steps: Steps, pairs: &[(String, String)], notices: &mut Vec<String>) -> usize {
    let base = match steps {
        Steps::None => return 0,
        Steps::FromZero => 0,
        Steps::FromOne => 1,
    };
    match pairs.iter().find(|(k, _)| k == "step") {
        None => 0,
        Some((_, v)) => match v.trim().parse::<usize>() {
            Ok(s) if s >= base => s - base,
            _ => {
                notices.push(format!(
                    "“step={v}” is not a whole number from {base}; starting at the first step."
                ));
                0
            }
        },
    }
}

/// The configuration `pairs` describe, with a notice per unusable value.
pub fn read_config<C: Configurable>(pairs: &[(String, String)], notices: &mut Vec<String>) -> C {
    let (config, errors) =
        params::from_pairs::<C>(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    for e in &errors {
        notices.push(notice(e, &params::default_text::<C>(e.key)));
    }
    config
}

/// The trace `pairs` name (`trace=<bundled id>`), fetched into a new state.
fn read_trace<L: Lab>(
    pairs: &[(String, String)],
    notices: &mut Vec<String>,
) -> RwSignal<TraceState> {
    let state = RwSignal::new(TraceState::Generated);
    if !L::REPLAYS_TRACES {
        return state;
    }
    if let Some((_, v)) = pairs.iter().find(|(k, _)| k == "trace") {
        match traces::bundled(v) {
            Some(b) => traces::fetch(b, state),
            None => {
                let ids: Vec<&str> = traces::BUNDLED.iter().map(|b| b.id).collect();
                notices.push(format!(
                    "“trace={v}” is not one of the bundled traces ({}); using generated requests.",
                    ids.join(", ")
                ));
            }
        }
    }
    state
}

impl<L: Lab + 'static> LabPage<L>
where
    L::Config: Send + Sync,
    L::Outcome: serde::de::DeserializeOwned + Send + Sync + 'static,
{
    /// Read the page's state from `pairs`, run the lab in the worker whenever
    /// the configuration (or the trace) changes, and keep the URL in step.
    pub fn new(pairs: &[(String, String)], steps: Steps) -> LabPage<L> {
        let mut notices = Vec::new();
        let config = RwSignal::new(read_config::<L::Config>(pairs, &mut notices));
        let focus = RwSignal::new(
            L::FOCUS
                .map(|f| read_focus(&f, pairs, &mut notices))
                .unwrap_or(""),
        );
        let step = RwSignal::new(read_step(steps, pairs, &mut notices));
        let vs = RwSignal::new(match (L::FOCUS, steps) {
            (Some(f), Steps::FromZero | Steps::FromOne) => read_vs(&f, pairs, &mut notices),
            _ => "",
        });
        let trace = read_trace::<L>(pairs, &mut notices);
        let import = RwSignal::new(if L::REPLAYS_TRACES {
            read_config::<ImportOptions>(pairs, &mut notices)
        } else {
            ImportOptions::default()
        });
        let job = Arc::new(move || -> Option<Job> {
            let pairs = config.with(params::all_pairs);
            let trace = match trace.get() {
                TraceState::Loading(_) => return None,
                t => t.text().map(|text| (text, import.with(params::all_pairs))),
            };
            Some(Job {
                lab: L::INFO.id,
                pairs,
                only: None,
                trace,
                play: false,
            })
        });
        let (outcome, status) = super::use_lab_job::<L::Outcome>(job, Some(L::csv));
        super::sync_url(Arc::new(move || {
            let mut q = vec![("lab", L::INFO.id.to_string())];
            config.with(|c| q.extend(params::to_pairs(c)));
            // A bundled trace is part of the link, with its import options.
            if let TraceState::Loaded {
                bundled: Some(id), ..
            } = trace.get()
            {
                q.push(("trace", id.to_string()));
                import.with(|o| q.extend(params::to_pairs(o)));
            }
            // The focus is always written: a shared link names what it shows.
            if let Some(f) = L::FOCUS {
                q.push((f.key, focus.get().to_string()));
            }
            match steps {
                Steps::None => {}
                Steps::FromZero => q.push(("step", step.get().to_string())),
                Steps::FromOne => q.push(("step", (step.get() + 1).to_string())),
            }
            let vs = vs.get();
            if !vs.is_empty() {
                q.push(("vs", vs.to_string()));
            }
            q
        }));
        LabPage {
            config,
            focus,
            step,
            vs,
            outcome,
            status,
            trace,
            import,
            notices,
            embed: Arc::new(use_context::<EmbedOptions>().unwrap_or_default()),
        }
    }

    /// Whether the reader may change `key` here (`controls=` locks the rest).
    pub fn allows(&self, key: &str) -> bool {
        self.embed.allows(key)
    }

    /// Whether the focus (`rule=`, `mode=`) may be changed here.
    pub fn focus_open(&self) -> bool {
        L::FOCUS.is_some_and(|f| self.allows(f.key))
    }

    /// Show item `name` in detail, unless the focus is locked.
    pub fn set_focus(&self) -> impl Fn(&'static str) + Clone + 'static {
        let (focus, open) = (self.focus, self.focus_open());
        move |name| {
            if open {
                focus.set(name);
            }
        }
    }

    /// The lab's controls: every parameter (main ones first, the rest under
    /// "More settings"), a "New seed" button, and the focus picker last.
    pub fn control_specs(&self) -> Vec<ControlSpec> {
        let mut specs = ControlSpec::for_table(&specs_of::<L>());
        if let Some(f) = L::FOCUS {
            specs.push(ControlSpec {
                key: f.key,
                label: f.label,
                hint: "",
                kind: ControlKind::Radio((f.options)()),
                advanced: false,
            });
        }
        specs
    }

    /// Reads a control's value: a parameter's canonical text, or the focus.
    pub fn getter(&self) -> Getter {
        let (config, focus) = (self.config, self.focus);
        Arc::new(move |key: &str| match L::Config::param(key) {
            Some(p) => config.with(|c| p.get_text(c)),
            None if L::FOCUS.is_some_and(|f| f.key == key) => focus.get().to_string(),
            None => String::new(),
        })
    }

    /// Applies a control's value through the parameter table; "new-seed" draws
    /// a fresh seed. A value the table refuses leaves the state unchanged and
    /// the reason is returned for the panel to show.
    pub fn setter(&self) -> Setter {
        let (config, focus) = (self.config, self.focus);
        let embed = Arc::clone(&self.embed);
        Arc::new(move |key: &str, value: &str| {
            // The one door every control, button and editor goes through:
            // a value `controls=` does not list cannot change.
            if !embed.allows(key) {
                return Err(format!("{key} is fixed in this view"));
            }
            if let Some(p) = L::Config::param(key) {
                let mut next = config.get_untracked();
                p.set_text(&mut next, value)
                    .map_err(|e| format!("{} {}", e.key, e.problem))?;
                if next.cross_check().is_err() {
                    // Keep the pair consistent: the other bound follows.
                    return Err(next
                        .cross_check()
                        .err()
                        .map(|e| format!("{} {}", e.key, e.problem))
                        .unwrap_or_default());
                }
                config.set(next);
                return Ok(());
            }
            if key == "new-seed" {
                if let Some(p) = L::Config::param("seed") {
                    let seed = ((js_sys::Math::random() * 1e9) as u64).to_string();
                    config.update(|c| {
                        let _ = p.set_text(c, &seed);
                    });
                }
                return Ok(());
            }
            if let Some(f) = L::FOCUS.filter(|f| f.key == key) {
                if let Some(o) = (f.options)().iter().find(|o| o.name == value) {
                    focus.set(o.name);
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{build_query, parse_query};
    use sim_core::labs::routing::Config as RoutingConfig;
    use sim_core::labs::LABS;

    /// Every parameter of every lab, at every sample value, goes through the
    /// page's URL codec (query text out, query text in) and comes back as the
    /// same canonical value.
    #[test]
    fn every_parameter_round_trips_through_the_url() {
        let mut checked = 0;
        for lab in LABS {
            for spec in (lab.params)() {
                for value in spec.samples() {
                    let pairs = [(spec.key, value.as_str())];
                    let Ok(canonical) = (lab.canonical)(&pairs) else {
                        continue; // against another parameter's default; the CLI test covers it
                    };
                    // Out to the URL the way the page writes it…
                    let query: Vec<(&str, String)> =
                        canonical.iter().map(|(k, v)| (*k, v.clone())).collect();
                    let url = build_query(&query);
                    // …and back in the way the page reads it.
                    let read = parse_query(&url);
                    let pairs: Vec<(&str, &str)> =
                        read.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                    let back = (lab.canonical)(&pairs).expect("what the page writes it reads");
                    assert_eq!(back, canonical, "{} {}={value}", lab.info.id, spec.key);
                    let got = back.iter().find(|(k, _)| *k == spec.key).map(|(_, v)| v);
                    assert_eq!(got, Some(&value), "{} {}", lab.info.id, spec.key);
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "only {checked} values checked");
    }

    #[test]
    fn bad_values_fall_back_with_one_notice_each() {
        let pairs = parse_query("?replicas=0&rate=abc&prompt-cv=9&mean-prompt=2000&seed=-1");
        let mut notices = Vec::new();
        let c: RoutingConfig = read_config(&pairs, &mut notices);
        let d = RoutingConfig::default();
        assert_eq!(c.replicas, d.replicas);
        assert_eq!(c.rate, d.rate);
        assert_eq!(c.prompt_cv, d.prompt_cv);
        assert_eq!(c.seed, d.seed);
        assert_eq!(c.mean_prompt, 2000);
        assert_eq!(notices.len(), 4, "{notices:?}");
        assert!(
            notices[1].starts_with("“rate=abc” cannot be used: rate must be a number"),
            "{}",
            notices[1]
        );
        let focus = sim_core::labs::routing::RoutingLab::FOCUS.expect("routing has a focus");
        let mut notices = Vec::new();
        assert_eq!(
            read_focus(&focus, &parse_query("?rule=magic"), &mut notices),
            "least-outstanding"
        );
        assert_eq!(notices.len(), 1);
        assert_eq!(
            read_step(Steps::FromOne, &parse_query("?step=0"), &mut notices),
            0
        );
        assert_eq!(
            read_step(Steps::FromOne, &parse_query("?step=7"), &mut notices),
            6
        );
        assert_eq!(notices.len(), 2);
    }
}
