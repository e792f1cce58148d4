//! The queueing and overload explorables (article §1.2–1.3, §9.1–9.2, §10.2):
//! the knee, Little's law, retry amplification, hedging and cascades.
//!
//! They share one page component. Each explorable is data: its controls (which
//! are also its URL keys), their defaults, and a `compute` function from those
//! values to a [`Page`] — the result HTML, the chart and the JSON outcome, all
//! from `sim-core`. Why one component: every Leptos view tree and reactive
//! primitive costs wasm, and five small pages written out separately would not
//! fit the bundle budget; a data-driven page also keeps them consistent.

pub mod cascade;
pub mod hedging;
pub mod knee;
pub mod little;
pub mod retries;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use serde::Serialize;
use sim_core::labs::queueing;

use crate::charts::ChartSpec;
use crate::components::{
    ChartError, ControlKind, ControlSpec, Controls, Deferred, ErrorLine, Getter, Notice, Setter,
};
use crate::url::ParamReader;

/// The current value of every control, as text, in URL order.
#[derive(Clone, Debug, PartialEq)]
pub struct Params(pub Vec<(&'static str, String)>);

impl Params {
    /// The text of `key` (empty when unknown).
    pub fn text(&self, key: &str) -> &str {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map_or("", |(_, v)| v.as_str())
    }

    /// `key` as a number (NaN when it is not one; `compute` range-checks).
    pub fn num(&self, key: &str) -> f64 {
        crate::num::parse_f64(self.text(key)).unwrap_or(f64::NAN)
    }

    /// `key` as a whole number (0 when it is not one).
    pub fn whole(&self, key: &str) -> u64 {
        self.text(key).trim().parse().unwrap_or(0)
    }

    /// `key` as a switch.
    pub fn on(&self, key: &str) -> bool {
        self.text(key) == "1"
    }

    fn set(&mut self, key: &str, value: String) {
        if let Some((_, v)) = self.0.iter_mut().find(|(k, _)| *k == key) {
            *v = value;
        }
    }
}

/// What `sim-core` computed, serialised exactly as the matching `lblab`
/// subcommand prints it with `--json`.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    /// `lblab knee --json`.
    Knee(queueing::knee::Outcome),
    /// `lblab little --json`.
    Little(queueing::little::Outcome),
    /// `lblab retries --json`.
    Retries(queueing::retries::Outcome),
    /// `lblab hedging --json`.
    Hedging(queueing::hedging::Outcome),
    /// `lblab cascade --json`.
    Cascade(queueing::cascade::Cascade),
}

/// One computed explorable page.
#[derive(Clone, Debug)]
pub struct Page {
    /// The headline result, shown above the chart (HTML built from escaped text).
    pub head: String,
    /// Tables and notes, shown below the chart.
    pub html: String,
    /// The chart.
    pub chart: ChartSpec,
    /// The chart in words (its text alternative).
    pub summary: String,
    /// The outcome, for the JSON export.
    pub outcome: Outcome,
}

impl Serialize for Page {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.outcome.serialize(s)
    }
}

/// One explorable, as data.
pub struct Explorable {
    /// Lab id (the `lab` query key).
    pub id: &'static str,
    /// Static header HTML: title, what to try, where it comes from.
    pub header: &'static str,
    /// The controls, in display order; their keys are the URL keys.
    pub controls: fn() -> Vec<ControlSpec>,
    /// Default value of every key, in URL order.
    pub defaults: &'static [(&'static str, &'static str)],
    /// Whether a text control's value is acceptable (URL values that are not
    /// fall back to the default with a notice).
    pub text_ok: fn(&str, &str) -> bool,
    /// Compute the page from the values (errors are shown in the page).
    pub compute: fn(&Params) -> Result<Page, String>,
    /// Range keys whose recomputation is too slow to follow a drag: they apply
    /// when the slider is released.
    pub defer: fn(&Params, &str) -> bool,
    /// Chart caption.
    pub caption: &'static str,
    /// "What am I looking at?" text for the chart.
    pub help: &'static str,
}

/// Look an explorable up by lab id.
pub fn find(id: &str) -> Option<&'static Explorable> {
    [
        &knee::EXPLORABLE,
        &little::EXPLORABLE,
        &retries::EXPLORABLE,
        &hedging::EXPLORABLE,
        &cascade::EXPLORABLE,
    ]
    .into_iter()
    .find(|e| e.id == id)
}

/// Decimal places a slider step needs (0.05 → 2, 1 → 0).
fn decimals(step: f64) -> usize {
    let mut d = 0;
    while d < 6 && (step * 10f64.powi(d as i32)).fract().abs() > 1e-9 {
        d += 1;
    }
    d
}

/// A slider value snapped to its step and written without trailing zeros.
fn snap(x: f64, min: f64, max: f64, step: f64) -> String {
    let x = (min + ((x.clamp(min, max) - min) / step).round() * step).clamp(min, max);
    let s = crate::format::fixed(x, decimals(step) as u32);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Read every key from the URL, falling back to its default with a notice.
fn read_params(ex: &Explorable, specs: &[ControlSpec], r: &mut ParamReader) -> Params {
    let values = ex
        .defaults
        .iter()
        .map(|&(key, default)| {
            let kind = specs.iter().find(|c| c.key == key).map(|c| &c.kind);
            let value = match kind {
                Some(&ControlKind::Range { min, max, step, .. }) => {
                    let d = crate::num::parse_f64(default).unwrap_or(min);
                    snap(r.number(key, d, min, max), min, max, step)
                }
                Some(ControlKind::Check) => r.choice(key, default, &["0", "1"]).to_string(),
                Some(ControlKind::Radio(options)) => {
                    let names: Vec<&str> = options.iter().map(|o| o.0).collect();
                    r.choice(key, default, &names).to_string()
                }
                Some(ControlKind::Text) => match r.raw(key) {
                    Some(v) if (ex.text_ok)(key, v) => v.trim().to_string(),
                    Some(v) => {
                        let msg =
                            format!("“{key}={v}” is not valid here; using the default {default}.");
                        r.notices.push(msg);
                        default.to_string()
                    }
                    None => default.to_string(),
                },
                // Seeds and other whole numbers.
                _ => r
                    .whole(key, default.parse().unwrap_or(0), 0, u64::MAX)
                    .to_string(),
            };
            (key, value)
        })
        .collect();
    Params(values)
}

/// Apply one control change. A value that does not fit its control is ignored
/// (the control shows the state again); a text value is kept as typed so the
/// page can say what is wrong with it.
fn apply(specs: &[ControlSpec], p: &mut Params, key: &str, value: &str) {
    let value = value.trim();
    let Some(spec) = specs.iter().find(|c| c.key == key) else {
        return;
    };
    let new = match &spec.kind {
        &ControlKind::Range { min, max, step, .. } => {
            crate::num::parse_f64(value).map(|x| snap(x, min, max, step))
        }
        ControlKind::Check => Some(if value == "1" { "1" } else { "0" }.to_string()),
        ControlKind::Radio(options) => options
            .iter()
            .any(|o| o.0 == value)
            .then(|| value.to_string()),
        ControlKind::Number => value.parse::<u64>().ok().map(|x| x.to_string()),
        ControlKind::Text => Some(value.to_string()),
        ControlKind::Button => {
            // The one button the explorables have: a fresh seed.
            p.set("seed", ((js_sys::Math::random() * 1e6) as u64).to_string());
            None
        }
    };
    if let Some(v) = new {
        p.set(key, v);
    }
}

/// One explorable's page.
#[component]
pub fn QueueingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
    /// Which explorable.
    ex: &'static Explorable,
) -> impl IntoView {
    let specs = (ex.controls)();
    let mut reader = ParamReader::new(pairs);
    let state = RwSignal::new(read_params(ex, &specs, &mut reader));
    let notices = reader.notices.clone();
    let (page, error) = super::use_lab_run(move || state.with(|p| (ex.compute)(p)));
    super::sync_url(Arc::new(move || {
        let mut q = vec![("lab", ex.id.to_string())];
        state.with(|p| q.extend(p.0.iter().cloned()));
        q
    }));
    let canvas = NodeRef::<Canvas>::new();
    let chart_error = super::draw_effect(
        canvas,
        Arc::new(move |_| page.with(|p| p.as_ref().map(|p| p.chart.clone()))),
    );
    let summary = Signal::derive(move || {
        page.with(|p| p.as_ref().map(|p| p.summary.clone()).unwrap_or_default())
    });
    let get: Getter = Arc::new(move |key: &str| state.with(|p| p.text(key).to_string()));
    let defer: Deferred = Arc::new(move |key: &str| state.with_untracked(|p| (ex.defer)(p, key)));
    let set_specs = Arc::new(specs.clone());
    let set: Setter =
        Arc::new(move |key: &str, value: &str| state.update(|p| apply(&set_specs, p, key, value)));
    view! {
        <article class="lab" id=format!("{}-lab", ex.id)>
            <header class="lab-header" inner_html=ex.header></header>
            <Notice messages=notices />
            <ErrorLine error=error />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls">
                    <h2>"Inputs"</h2>
                    <Controls specs=specs get=get set=set defer=defer />
                </section>
                <section class="results" aria-label="Results">
                    <div id="headline" inner_html=move || page.with(|p| p.as_ref().map(|p| p.head.clone()).unwrap_or_default())></div>
                    <figure class="chart">
                        <figcaption>{ex.caption}</figcaption>
                        <canvas node_ref=canvas id="queueing-chart" role="img" aria-label=summary></canvas>
                        <p class="sr-only" id="queueing-chart-summary">{summary}</p>
                        <ChartError error=chart_error />
                        <details>
                            <summary>"What am I looking at?"</summary>
                            <p class="small">{ex.help}</p>
                        </details>
                    </figure>
                    <div id="details" inner_html=move || page.with(|p| p.as_ref().map(|p| p.html.clone()).unwrap_or_default())></div>
                </section>
            </div>
        </article>
    }
}

/// A range control (the explorables' controls are mostly these).
#[allow(clippy::too_many_arguments)]
pub fn range(
    key: &'static str,
    label: &'static str,
    hint: &'static str,
    min: f64,
    max: f64,
    step: f64,
    unit: &'static str,
    format: fn(f64) -> String,
) -> ControlSpec {
    ControlSpec {
        key,
        label,
        hint,
        kind: ControlKind::Range {
            min,
            max,
            step,
            unit,
            format,
        },
    }
}

/// The seed field and its "New seed" button (`label` names what is seeded).
pub fn seed_controls(label: &'static str) -> [ControlSpec; 2] {
    [
        ControlSpec {
            key: "seed",
            label,
            hint: "",
            kind: ControlKind::Number,
        },
        ControlSpec {
            key: "new-seed",
            label: "New seed",
            hint: "",
            kind: ControlKind::Button,
        },
    ]
}

/// Table column heads from (text, meaning) pairs.
pub fn heads(h: &[(&str, &str)]) -> Vec<(String, String)> {
    h.iter()
        .map(|(t, m)| (t.to_string(), m.to_string()))
        .collect()
}

/// A result card: title, value with unit, and its meaning on hover and focus
/// (the card's accessible description).
pub fn card(id: &str, title: &str, value: &str, unit: &str, meaning: &str) -> String {
    use crate::html::escape;
    let unit = if unit.is_empty() {
        String::new()
    } else {
        crate::format::fill(r#"<span class="card-unit"> {}</span>"#, &[escape(unit)])
    };
    crate::format::fill(
        r#"<div class="card" id="{}" tabindex="0" aria-describedby="{}-meaning"><div class="card-title">{}</div><div class="card-value"><span class="card-number">{}</span>{}</div><div class="card-meaning" id="{}-meaning" role="tooltip">{}</div></div>"#,
        &[
            id.into(),
            id.into(),
            escape(title),
            escape(value),
            unit,
            id.into(),
            escape(meaning),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliders_snap_to_their_step_without_float_noise() {
        assert_eq!(snap(0.30000000000000004, 0.0, 1.0, 0.05), "0.3");
        assert_eq!(snap(2.96, 0.1, 20.0, 0.1), "3");
        assert_eq!(snap(99.0, 0.0, 16.0, 0.1), "16");
        assert_eq!(snap(95.04, 50.0, 99.9, 0.1), "95");
        assert_eq!(decimals(0.05), 2);
        assert_eq!(decimals(1.0), 0);
    }

    #[test]
    fn every_explorable_computes_its_defaults_and_reads_its_own_url() {
        for id in ["knee", "little", "retries", "hedging", "cascade"] {
            let ex = find(id).expect("registered");
            let specs = (ex.controls)();
            for (key, _) in ex.defaults {
                assert!(
                    specs.iter().any(|c| c.key == *key),
                    "{id}: {key} has no control"
                );
            }
            let mut r = ParamReader::new(Vec::new());
            let p = read_params(ex, &specs, &mut r);
            let page = (ex.compute)(&p).unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(!page.head.is_empty() && !page.summary.is_empty(), "{id}");
            assert!(r.notices.is_empty());
            // What the page writes to the URL, it reads back unchanged.
            let pairs =
                p.0.iter()
                    .map(|(k, v)| (k.to_string(), v.clone()))
                    .collect();
            let mut r = ParamReader::new(pairs);
            assert_eq!(read_params(ex, &specs, &mut r), p, "{id}");
            assert!(r.notices.is_empty(), "{id}: {:?}", r.notices);
        }
    }
}
