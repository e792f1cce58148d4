//! What every lab page holds, the same for every lab: the configuration the
//! controls edit, the item in focus and its side-by-side partner, the player's
//! step, a trace and its import options, and the runs in the worker. All of it
//! is read from the URL once, through the lab's parameter table (a notice for
//! each value that falls back), and written back to the URL as it changes, so
//! every view is a link.
//!
//! [`State::set`] is the one door every control, button and editor goes
//! through: it refuses any key `controls=` does not list.

use leptos::prelude::*;
use sim_core::labs::LabEntry;
use sim_core::params::{self, erased, AnyConfig, Configurable, ParamError};
use sim_core::workload::trace::ImportOptions;

use super::job::{self, Run};
use super::{AnyPage, Shared, Snap, Step};
use crate::platform::embed::EmbedOptions;
use crate::platform::traces::{self, TraceFile, TraceState};
use crate::platform::worker::Job;

/// One page's state. Every field is a signal handle, so the state copies
/// freely into closures.
#[derive(Clone, Copy)]
pub struct State {
    /// The page's description.
    pub page: &'static dyn AnyPage,
    /// The configuration the controls edit (the lab's `Config`).
    pub config: RwSignal<Shared>,
    /// Index of the item in focus among the lab's items (`None`: the lab
    /// compares nothing).
    pub focus: RwSignal<Option<usize>>,
    /// Index of a second item shown side by side (`vs=`).
    pub vs: RwSignal<Option<usize>>,
    /// The player's step as asked for (0-based; [`State::step`] keeps it
    /// inside the run), or [`OPENING`] until the reader moves it.
    pub wanted_step: RwSignal<usize>,
    /// The step the player opens on when the link names none: the first
    /// key moment for a lab that opens on its point, else the first step.
    opening: Memo<usize>,
    /// Whether the player is playing.
    pub playing: RwSignal<bool>,
    /// Player steps per second.
    pub speed: RwSignal<f64>,
    /// Where the requests come from (labs that replay traces).
    pub trace: RwSignal<TraceState>,
    /// How a trace is imported.
    pub import: RwSignal<ImportOptions>,
    /// The page's run (with the player's recording, for pages whose player
    /// plays one).
    pub main: Run,
    /// The embedding options (`controls=` locks every value it does not list).
    pub embed: StoredValue<EmbedOptions>,
}

/// The player's step before the reader has moved it, when the link named
/// none: the lab's opening step ([`sim_core::labs::Opening`]), which is only
/// known once the run is in.
pub const OPENING: usize = usize::MAX;

/// The player's starting speed (steps per second): the lab's own, or in a
/// tour a quarter of it (at least 1), so each request is seen travelling
/// from the balancer to its replica (a tween lasts most of a step, and at
/// eight steps a second a request arrives in under 90 ms).
fn start_speed(lab: f64, in_tour: bool) -> f64 {
    if in_tour {
        (lab / 4.0).max(1.0)
    } else {
        lab
    }
}

/// The sentence for a URL value that could not be used.
pub fn notice(e: &ParamError, default: &str) -> String {
    format!(
        "“{}={}” cannot be used: {} {}; using the default {}.",
        e.key,
        crate::platform::clip(&e.given),
        e.key,
        e.problem,
        default
    )
}

/// The configuration `pairs` describe, with a notice per unusable value.
pub fn read_config<C: Configurable>(pairs: &[(String, String)], notices: &mut Vec<String>) -> C {
    let mut config = C::default();
    read_into(&mut config, pairs, notices);
    config
}

/// Set `config` (at its defaults) from `pairs`, with a notice per unusable
/// value. Not generic: compiled once for every lab.
pub fn read_into(
    config: &mut dyn AnyConfig,
    pairs: &[(String, String)],
    notices: &mut Vec<String>,
) {
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    for e in &erased::from_pairs(config, &pairs) {
        notices.push(notice(e, &erased::default_text(config, e.key)));
    }
}

/// The value of `key` in `pairs`.
fn value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The index of the item `pairs` name under `key`, or `fallback` with a
/// notice saying what happened.
fn read_item(
    entry: &LabEntry,
    pairs: &[(String, String)],
    key: &str,
    fallback: Option<usize>,
    notices: &mut Vec<String>,
) -> Option<usize> {
    let focus = entry.focus?;
    let options = (focus.options)();
    let v = value(pairs, key).filter(|v| !v.is_empty());
    match v {
        None => fallback,
        Some(v) => match options.iter().position(|o| o.name == v) {
            Some(i) => Some(i),
            None => {
                let names: Vec<&str> = options.iter().map(|o| o.name).collect();
                let then = match fallback {
                    Some(i) => format!("using the default {}", options[i].name),
                    None => String::from("showing one"),
                };
                notices.push(format!(
                    "“{key}={}” is not one of {}; {then}.",
                    crate::platform::clip(v),
                    names.join(", ")
                ));
                fallback
            }
        },
    }
}

/// The step `pairs` give (0-based): [`OPENING`] when they give none, the
/// first step with a notice when it is not a number.
fn read_step(first: usize, pairs: &[(String, String)], notices: &mut Vec<String>) -> usize {
    match value(pairs, "step") {
        None => OPENING,
        Some(v) => match crate::platform::url::whole::<usize>(v) {
            Some(s) if s >= first => s - first,
            _ => {
                notices.push(format!(
                    "“step={}” is not a whole number from {first}; starting at the first step.",
                    crate::platform::clip(v)
                ));
                0
            }
        },
    }
}

/// The trace `pairs` name (`trace=<bundled id>`), fetched into a new state.
fn read_trace(
    entry: &LabEntry,
    pairs: &[(String, String)],
    notices: &mut Vec<String>,
) -> RwSignal<TraceState> {
    let state = RwSignal::new(TraceState::Generated);
    if !entry.replays_traces {
        return state;
    }
    if let Some(v) = value(pairs, "trace") {
        match traces::bundled(v) {
            Some(b) => traces::fetch(b, state),
            None => {
                let ids: Vec<&str> = traces::BUNDLED.iter().map(|b| b.id).collect();
                notices.push(format!(
                    "“trace={}” is not one of the bundled traces ({}); using generated requests.",
                    crate::platform::clip(v),
                    ids.join(", ")
                ));
            }
        }
    }
    state
}

/// The item in focus and its side-by-side partner (indices among the lab's
/// items) that `pairs` name, with a notice for each that falls back. With no
/// `vs=` the lab's own pairing (unless it is the focus); `vs=none` shows one
/// item. When the pairing is the focus itself, the lab's default focus takes
/// its place (round robin in focus plays beside least outstanding). A free
/// function so the tours' tests open a step exactly as the page does.
pub fn read_items(
    page: &dyn AnyPage,
    pairs: &[(String, String)],
    notices: &mut Vec<String>,
) -> (Option<usize>, Option<usize>) {
    let entry = page.entry();
    let focus = entry.focus.and_then(|f| {
        let default = (f.options)().iter().position(|o| o.name == (f.default)());
        read_item(entry, pairs, f.key, default, notices)
    });
    let side_by_side = page.player().is_some_and(|p| p.side_by_side);
    let paired = entry.info.player.and_then(|p| p.vs).and_then(|name| {
        let f = entry.focus?;
        let at = |n: &str| (f.options)().iter().position(|o| o.name == n);
        let i = at(name)?;
        let other = if Some(i) == focus {
            at((f.default)())?
        } else {
            i
        };
        (Some(other) != focus).then_some(other)
    });
    let vs = match value(pairs, "vs") {
        _ if !side_by_side => None,
        None => paired,
        Some("" | "none") => None,
        Some(_) => read_item(entry, pairs, "vs", None, notices),
    };
    (focus, vs)
}

/// The player's step `pairs` ask for (0-based), [`OPENING`] when they name
/// none; 0 for a lab without a player.
pub fn read_wanted_step(
    entry: &LabEntry,
    pairs: &[(String, String)],
    notices: &mut Vec<String>,
) -> usize {
    entry
        .info
        .player
        .map_or(0, |p| read_step(p.first, pairs, notices))
}

/// The items whose timeline the run records: the focus and its side-by-side
/// partner, for a player that plays a recording (none otherwise).
pub fn recorded(page: &dyn AnyPage, focus: Option<usize>, vs: Option<usize>) -> Vec<&'static str> {
    let entry = page.entry();
    let name = |i: Option<usize>| -> Option<&'static str> {
        let f = entry.focus?;
        (f.options)().get(i?).map(|o| o.name)
    };
    let mut record: Vec<&'static str> = Vec::new();
    if page.player().is_some_and(|p| p.records) {
        record.extend(name(focus));
        record.extend(name(vs).filter(|v| !record.contains(v)));
    }
    record
}

/// The step a player opens on when its link names none, for the run in
/// `snap`: the first key moment for a lab that opens on its point, else
/// the first step.
pub fn opening_step(page: &dyn AnyPage, snap: &Snap<'_>) -> usize {
    // The lab's own opening kind (its first key moment, the first step
    // where its items differ, or its start).
    page.opening(snap)
}

impl State {
    /// Read the page's state from `pairs` (with a notice for every value that
    /// falls back), start its runs, and keep the URL in step.
    pub fn new(
        page: &'static dyn AnyPage,
        pairs: &[(String, String)],
        notices: &mut Vec<String>,
    ) -> State {
        let entry = page.entry();
        let player = entry.info.player;
        let config = RwSignal::new(page.read_config(pairs, notices));
        let (focus, vs) = read_items(page, pairs, notices);
        let (focus, vs) = (RwSignal::new(focus), RwSignal::new(vs));
        let wanted_step = RwSignal::new(read_wanted_step(entry, pairs, notices));
        let trace = read_trace(entry, pairs, notices);
        let import = RwSignal::new(if entry.replays_traces {
            read_config::<ImportOptions>(pairs, notices)
        } else {
            ImportOptions::default()
        });
        let embed = use_context::<EmbedOptions>().unwrap_or_default();
        let lab = entry.info.id;
        // `None` while a trace is still loading: nothing to run yet.
        let trace_job = move || -> Option<Option<(TraceFile, crate::platform::worker::Pairs)>> {
            match trace.get() {
                TraceState::Loading(_) => None,
                t => Some(t.file().map(|file| (file, import.with(params::all_pairs)))),
            }
        };
        let main = job::use_run(
            move || {
                let record = recorded(page, focus.get(), vs.get());
                Some(Job {
                    lab,
                    pairs: config.with(|c| page.all_pairs(c)),
                    only: Vec::new(),
                    trace: trace_job()?,
                    record,
                })
            },
            config,
            page,
            true,
        );
        let opening = Memo::new(move |_| {
            main.ran()
                .map(|ran| {
                    let snap = Snap {
                        config: &ran.config,
                        outcome: &ran.outcome,
                        focus: focus.get(),
                        vs: vs.get(),
                        pickable: true,
                        step: Step(&|| 0),
                    };
                    opening_step(page, &snap)
                })
                .unwrap_or(0)
        });
        let state = State {
            page,
            config,
            focus,
            vs,
            wanted_step,
            opening,
            playing: RwSignal::new(embed.should_autoplay() && player.is_some()),
            speed: RwSignal::new(start_speed(player.map_or(1.0, |p| p.speed), embed.in_tour)),
            trace,
            import,
            main,
            embed: StoredValue::new(embed),
        };
        state.keep_url();
        state
    }

    /// Keep the URL in step with the state (an effect that writes the
    /// address bar, not a signal).
    fn keep_url(self) {
        if self.embed.with_value(|e| e.in_tour) {
            return;
        }
        let entry = self.page.entry();
        Effect::new(move |_| {
            let mut q = vec![("lab", entry.info.id.to_string())];
            self.config.with(|c| q.extend(self.page.url_pairs(c)));
            // A bundled trace is part of the link, with its import options.
            if let TraceState::Loaded {
                bundled: Some(id), ..
            } = self.trace.get()
            {
                q.push(("trace", id.to_string()));
                self.import.with(|o| q.extend(params::to_pairs(o)));
            }
            // The focus is always written: a shared link names what it shows.
            if let (Some(f), Some(name)) = (entry.focus, self.focus_name()) {
                q.push((f.key, name.to_string()));
            }
            if let Some(p) = entry.info.player {
                q.push(("step", (self.step() + p.first).to_string()));
            }
            match self.vs_name() {
                Some(name) => q.push(("vs", name.to_string())),
                // One item where the lab pairs two by default.
                None if entry.info.player.is_some_and(|p| p.vs.is_some()) => {
                    q.push(("vs", "none".to_string()));
                }
                None => {}
            }
            crate::platform::url::replace_query(&q);
        });
    }

    /// The name of the item in focus (tracked).
    pub fn focus_name(&self) -> Option<&'static str> {
        let f = self.page.entry().focus?;
        (f.options)().get(self.focus.get()?).map(|o| o.name)
    }

    /// The name of the side-by-side item (tracked).
    pub fn vs_name(&self) -> Option<&'static str> {
        let f = self.page.entry().focus?;
        (f.options)().get(self.vs.get()?).map(|o| o.name)
    }

    /// How many steps the player has (0 before a run; tracked).
    pub fn len(&self) -> usize {
        self.with_snap(|s| self.page.player_len(s)).unwrap_or(0)
    }

    /// The player's step, kept inside the run (the step a link asked for
    /// stands until the first run says how long it is; tracked).
    pub fn step(&self) -> usize {
        self.with_snap(|s| (s.step.0)())
            .unwrap_or_else(|| self.wanted())
    }

    /// The step asked for, the opening step standing in for [`OPENING`]
    /// (tracked).
    fn wanted(&self) -> usize {
        match self.wanted_step.get() {
            OPENING => self.opening.get(),
            w => w,
        }
    }

    /// Run `f` on a snapshot of the last run (tracked), if there is one: its
    /// outcome with the configuration it ran from, so what shows the outcome
    /// changes when the next outcome arrives, not when a control moves.
    pub fn with_snap<R>(&self, f: impl FnOnce(&Snap<'_>) -> R) -> Option<R> {
        let ran = self.main.ran()?;
        self.snap(&ran.config, &ran.outcome, f)
    }

    /// Run `f` on a snapshot of the configuration the controls hold now and
    /// the last outcome (tracked), if there is one: for what edits the
    /// configuration or describes it as it is being set.
    pub fn with_settings_snap<R>(&self, f: impl FnOnce(&Snap<'_>) -> R) -> Option<R> {
        let config = self.config.get();
        let outcome = self.main.get()?;
        self.snap(&config, &outcome, f)
    }

    fn snap<R>(
        &self,
        config: &Shared,
        outcome: &Shared,
        f: impl FnOnce(&Snap<'_>) -> R,
    ) -> Option<R> {
        let len = std::cell::Cell::new(0usize);
        let step = || match len.get() {
            0 => self.wanted(),
            n => self.wanted().min(n - 1),
        };
        let snap = Snap {
            config,
            outcome,
            focus: self.focus.get(),
            vs: self.vs.get(),
            pickable: self.allows(self.page.entry().focus.map_or("", |f| f.key)),
            step: Step(&step),
        };
        len.set(self.page.player_len(&snap));
        Some(f(&snap))
    }

    /// Whether the reader may change `key` here (`controls=` locks the rest).
    pub fn allows(&self, key: &str) -> bool {
        self.embed.with_value(|e| e.allows(key))
    }

    /// Reads a control's value: a parameter's canonical text, or the focus.
    pub fn get(&self, key: &str) -> String {
        if let Some(v) = self.config.with(|c| self.page.get_text(c, key)) {
            return v;
        }
        match self.page.entry().focus {
            Some(f) if f.key == key => self.focus_name().unwrap_or_default().to_string(),
            _ => String::new(),
        }
    }

    /// Whether the lab runs in milliseconds (its GPU picker names a GPU; a
    /// lab without one is always in ticks).
    pub fn in_ms(&self) -> bool {
        let gpu = self.get(sim_core::params::TIME_MODE_KEY);
        !gpu.is_empty() && gpu != "none"
    }

    /// Apply a control's value through the parameter table; "new-seed" draws
    /// a fresh seed; the focus key picks an item. A value the table refuses,
    /// or a key `controls=` does not list, leaves the state unchanged and says
    /// why.
    pub fn set(&self, key: &str, value: &str) -> Result<(), String> {
        if !self.allows(key) {
            return Err(format!("{key} is fixed in this view"));
        }
        if key == "new-seed" {
            let seed = ((js_sys::Math::random() * 1e9) as u64).to_string();
            return self.set("seed", &seed);
        }
        let current = self.config.get_untracked();
        if let Some(next) = self.page.set_text(&current, key, value) {
            self.config.set(next?);
            return Ok(());
        }
        if let Some(f) = self.page.entry().focus.filter(|f| f.key == key) {
            if let Some(i) = (f.options)().iter().position(|o| o.name == value) {
                self.focus.set(Some(i));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::url::{build_query, parse_query};
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
        let routing = sim_core::labs::find("routing").expect("registered");
        let mut notices = Vec::new();
        let lo = RuleKind::LeastOutstanding.index();
        assert_eq!(
            read_item(
                routing,
                &parse_query("?rule=magic"),
                "rule",
                Some(lo),
                &mut notices
            ),
            Some(lo)
        );
        assert_eq!(notices.len(), 1);
        assert_eq!(read_step(1, &parse_query("?step=0"), &mut notices), 0);
        assert_eq!(read_step(1, &parse_query("?lab=x"), &mut notices), OPENING);
        assert_eq!(read_step(1, &parse_query("?step=7"), &mut notices), 6);
        assert_eq!(notices.len(), 2);
    }

    #[test]
    fn an_echoed_value_is_cut_to_a_readable_length() {
        let long = format!("?rate={}", "9".repeat(100_000));
        let mut notices = Vec::new();
        let _: RoutingConfig = read_config(&parse_query(&long), &mut notices);
        assert_eq!(notices.len(), 1);
        assert!(notices[0].chars().count() < 200, "{}", notices[0]);
    }

    use sim_core::choice::Choice;
    use sim_core::routing::RuleKind;
}
