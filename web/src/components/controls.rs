//! Data-driven controls: a lab's parameter table (from sim-core) becomes a
//! panel of labelled inputs, with one getter and one setter keyed by the
//! parameter's key. The panel is rendered once as HTML; one delegated handler
//! turns every input event into `set(key, value)`, and one effect writes state
//! back into the inputs (live values, programmatic changes). Why: every control
//! written as its own view tree costs wasm, and a shared renderer keeps labs
//! consistent — a labelled range with live value, unit and range hint; a
//! checkbox; a radio group with one-line descriptions; a number field; a text
//! field; a button. Main parameters come first; the rest sit under "More
//! settings". A lab whose recomputation is slow can defer some ranges until
//! they are released.
//!
//! Each control's key is its element id, its `data-control` (see `embed.rs`)
//! and its URL key.

use std::sync::Arc;

use leptos::prelude::*;
use sim_core::params::{Opt, Shape, Show, Spec, Tier};
use wasm_bindgen::JsCast;

use crate::format::{fixed, thousands};
use crate::html::{el, Html, Markup};

/// What kind of input a control is.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlKind {
    /// A range input with a live value.
    Range {
        /// Smallest value.
        min: f64,
        /// Largest value (one step further stands for "unbounded" when `inf`).
        max: f64,
        /// Step.
        step: f64,
        /// How the value is written.
        show: Show,
        /// Unit after the value (may be empty).
        unit: &'static str,
        /// Whether the position after `max` means unbounded (`inf`).
        inf: bool,
    },
    /// A checkbox; the value is "1" or "0".
    Check,
    /// One of several options.
    Radio(Vec<Opt>),
    /// A number field; changes apply when the field is left or Enter pressed.
    Number {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// A short text field (a list, a small trace); changes apply when the field
    /// is left or Enter pressed. The hint says what it accepts.
    Text,
    /// A button; clicking it calls `set(key, "")`.
    Button,
}

/// One control.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlSpec {
    /// Id, `data-control` and setter key.
    pub key: &'static str,
    /// Label text.
    pub label: &'static str,
    /// One line on what it means (may be empty).
    pub hint: &'static str,
    /// The input.
    pub kind: ControlKind,
    /// Shown under "More settings".
    pub advanced: bool,
}

impl ControlSpec {
    /// The control for one parameter of a lab's table.
    pub fn from_spec(s: &Spec) -> ControlSpec {
        let (unit, show) = match s.show {
            Show::Percent(_) => ("%", s.show),
            other => (s.unit, other),
        };
        let kind = match &s.shape {
            shape @ Shape::Real { min, max, step } if shape.is_slider() => ControlKind::Range {
                min: *min,
                max: *max,
                step: *step,
                show,
                unit,
                inf: false,
            },
            shape @ Shape::Whole { min, max, step } if shape.is_slider() => ControlKind::Range {
                min: *min as f64,
                max: *max as f64,
                step: *step as f64,
                show,
                unit,
                inf: false,
            },
            Shape::WholeOrInf { min, max } => ControlKind::Range {
                min: *min as f64,
                max: *max as f64,
                step: 1.0,
                show,
                unit,
                inf: true,
            },
            Shape::Real { min, max, .. } => ControlKind::Number {
                min: *min,
                max: *max,
            },
            Shape::Whole { min, max, .. } => ControlKind::Number {
                min: *min as f64,
                max: *max as f64,
            },
            Shape::Seed => ControlKind::Number {
                min: 0.0,
                max: u64::MAX as f64,
            },
            Shape::Switch => ControlKind::Check,
            Shape::Choice(opts) => ControlKind::Radio(opts.clone()),
            Shape::Text { .. } => ControlKind::Text,
        };
        let hint = match &s.shape {
            Shape::Text { hint, .. } => *hint,
            _ => s.doc,
        };
        ControlSpec {
            key: s.key,
            label: s.label,
            hint,
            kind,
            advanced: s.tier == Tier::Advanced,
        }
    }

    /// Controls for a whole parameter table, a "New seed" button after the seed.
    pub fn for_table(specs: &[Spec]) -> Vec<ControlSpec> {
        let mut out = Vec::new();
        for s in specs {
            out.push(ControlSpec::from_spec(s));
            if s.shape == Shape::Seed {
                out.push(ControlSpec {
                    key: "new-seed",
                    label: "New seed",
                    hint: "",
                    kind: ControlKind::Button,
                    advanced: s.tier == Tier::Advanced,
                });
            }
        }
        out
    }
}

/// Reads a control's current value as text.
pub type Getter = Arc<dyn Fn(&str) -> String + Send + Sync>;
/// Applies a new value (text) to a control's key, or says why it cannot.
pub type Setter = Arc<dyn Fn(&str, &str) -> Result<(), String> + Send + Sync>;
/// Whether a range control's changes wait until it is released (for controls
/// whose recomputation is too slow to follow a drag without janking).
pub type Deferred = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// A value as people read it.
pub fn show_value(x: f64, show: Show) -> String {
    match show {
        Show::Fixed(d) => fixed(x, u32::from(d)),
        Show::Thousands => thousands(x.max(0.0).round() as u64),
        Show::Percent(d) => fixed(x * 100.0, u32::from(d)),
    }
}

/// A range's value as shown: formatted, with its unit ("∞" past the end).
fn range_text(x: f64, kind: &ControlKind) -> String {
    let ControlKind::Range {
        max,
        show,
        unit,
        inf,
        ..
    } = kind
    else {
        return String::new();
    };
    if *inf && x > *max {
        return "∞".into();
    }
    let v = show_value(x, *show);
    if unit.is_empty() {
        v
    } else if *unit == "%" {
        format!("{v}%")
    } else {
        format!("{v} {unit}")
    }
}

/// The slider position for a value as text (`inf` is one step past the end).
fn range_position(value: &str, kind: &ControlKind) -> f64 {
    match kind {
        ControlKind::Range {
            min,
            max,
            step,
            inf,
            ..
        } => {
            if *inf && value == "inf" {
                max + step
            } else {
                value.trim().parse::<f64>().unwrap_or(*min)
            }
        }
        _ => 0.0,
    }
}

/// The value (as text) a slider position stands for: snapped to the step and
/// written with no more decimals than the step has, so a dragged thumb never
/// carries float noise into the URL.
fn range_value(position: &str, kind: &ControlKind) -> String {
    let ControlKind::Range {
        min,
        max,
        step,
        inf,
        ..
    } = kind
    else {
        return position.to_string();
    };
    let Ok(x) = position.trim().parse::<f64>() else {
        return position.to_string();
    };
    if *inf && x > *max {
        return "inf".into();
    }
    let snapped = (min + ((x.clamp(*min, *max) - min) / step).round() * step).clamp(*min, *max);
    let mut decimals = 0;
    while decimals < 6 && (step * 10f64.powi(decimals)).fract().abs() > 1e-9 {
        decimals += 1;
    }
    let text = format!("{snapped:.*}", decimals as usize);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

fn control_html(c: &ControlSpec, get: &Getter) -> Html {
    control_html_in(c, get, false)
}

/// A long list of options as one drop-down (an embed's compact layout).
fn select_html(key: &str, label: &str, options: &[Opt], value: &str) -> Html {
    el("div")
        .class("focus-select")
        .attr("data-control", key)
        .child(el("label").attr("for", key).text(label))
        .child(
            el("select")
                .id(key)
                .attr("name", key)
                .children(options.iter().map(|o| {
                    el("option")
                        .attr("value", o.name)
                        .flag("selected", value == o.name)
                        .text(o.title)
                })),
        )
        .into()
}

/// One control; with `compact`, a picker of more than four options is a
/// drop-down instead of a column of radio buttons.
fn control_html_in(c: &ControlSpec, get: &Getter, compact: bool) -> Html {
    if let (true, ControlKind::Radio(options)) = (compact, &c.kind) {
        if options.len() > 4 {
            return select_html(c.key, c.label, options, &get(c.key));
        }
    }
    let key = c.key;
    let hint_id = format!("{key}-hint");
    let value = get(key);
    match &c.kind {
        kind @ ControlKind::Range {
            min,
            max,
            step,
            unit,
            inf,
            ..
        } => {
            let top = if *inf { max + step } else { *max };
            let x = range_position(&value, kind);
            let unit_text = match *unit {
                "" => String::new(),
                "%" => "%".into(),
                u => format!(" {u}"),
            };
            let low = range_text(*min, kind);
            let high = if *inf {
                "∞".into()
            } else {
                range_text(*max, kind)
            };
            el("div")
                .class("slider")
                .attr("data-control", key)
                .child(
                    el("div")
                        .class("slider-head")
                        .child(el("label").attr("for", key).text(c.label))
                        .child(
                            el("output")
                                .attr("for", key)
                                .class("slider-value")
                                .id(format!("{key}-out"))
                                .text(range_text(x, kind)),
                        ),
                )
                .child(
                    el("input")
                        .attr("type", "range")
                        .id(key)
                        .attr("min", min.to_string())
                        .attr("max", top.to_string())
                        .attr("step", step.to_string())
                        .attr("value", x.to_string())
                        .attr("aria-describedby", &hint_id),
                )
                .child(
                    el("div")
                        .class("slider-hint")
                        .id(&hint_id)
                        .child(el("span").text(format!(
                            "{}–{}",
                            low.trim_end_matches(&unit_text),
                            high
                        )))
                        .children(
                            (!c.hint.is_empty()).then(|| el("span").text(format!(" · {}", c.hint))),
                        ),
                )
                .into()
        }
        ControlKind::Check => el("div")
            .class("check")
            .attr("data-control", key)
            .child(
                el("label")
                    .child(
                        el("input")
                            .attr("type", "checkbox")
                            .id(key)
                            .flag("checked", value == "1")
                            .attr_opt("aria-describedby", (!c.hint.is_empty()).then_some(&hint_id)),
                    )
                    .text(format!(" {}", c.label)),
            )
            .children(
                (!c.hint.is_empty())
                    .then(|| el("div").class("slider-hint").id(&hint_id).text(c.hint)),
            )
            .into(),
        ControlKind::Radio(options) => el("fieldset")
            .class("rule-picker")
            .attr("data-control", key)
            .child(el("legend").text(c.label))
            .children(options.iter().map(|o| {
                let id = format!("{key}-{}", o.name);
                el("div")
                    .class("rule-option")
                    .child(
                        el("input")
                            .attr("type", "radio")
                            .attr("name", key)
                            .id(&id)
                            .attr("value", o.name)
                            .flag("checked", value == o.name),
                    )
                    .child(
                        el("label")
                            .attr("for", &id)
                            .child(el("span").class("rule-name").text(o.title))
                            .children(
                                (!o.doc.is_empty())
                                    .then(|| el("span").class("rule-signal").text(o.doc)),
                            ),
                    )
            }))
            .into(),
        ControlKind::Number { min, max } => el("div")
            .class("seed-row")
            .attr("data-control", key)
            .child(el("label").attr("for", key).text(c.label))
            .child(
                el("input")
                    .id(key)
                    .attr("type", "number")
                    .attr("min", min.to_string())
                    .attr("max", max.to_string())
                    .attr("step", "any")
                    .attr("inputmode", "decimal")
                    .attr("value", &value)
                    .attr_opt("aria-describedby", (!c.hint.is_empty()).then_some(&hint_id)),
            )
            .children(
                (!c.hint.is_empty())
                    .then(|| el("div").class("slider-hint").id(&hint_id).text(c.hint)),
            )
            .into(),
        ControlKind::Text => el("div")
            .class("seed-row text-row")
            .attr("data-control", key)
            .child(el("label").attr("for", key).text(c.label))
            .child(
                el("input")
                    .id(key)
                    .attr("type", "text")
                    .attr("spellcheck", "false")
                    .attr("autocomplete", "off")
                    .attr("value", &value)
                    .attr("aria-describedby", &hint_id),
            )
            .child(el("div").class("slider-hint").id(&hint_id).text(c.hint))
            .into(),
        ControlKind::Button => el("button")
            .attr("type", "button")
            .id(key)
            .attr("data-key", key)
            .attr("data-control", key)
            .text(c.label)
            .into(),
    }
}

/// The whole panel: main controls, then the rest under "More settings".
fn panel_html(specs: &[ControlSpec], get: &Getter, compact: bool) -> Html {
    let main: Html = specs
        .iter()
        .filter(|c| !c.advanced)
        .map(|c| control_html_in(c, get, compact))
        .collect();
    let more: Vec<&ControlSpec> = specs.iter().filter(|c| c.advanced).collect();
    let mut out = main;
    if !more.is_empty() {
        out.push(
            el("details")
                .class("more-settings")
                .child(el("summary").text("More settings"))
                .children(more.into_iter().map(|c| control_html(c, get))),
        );
    }
    out
}

fn element<T: JsCast>(id: &str) -> Option<T> {
    web_sys::window()?
        .document()?
        .get_element_by_id(id)?
        .dyn_into::<T>()
        .ok()
}

/// Show a range's value beside it.
fn show_range(key: &str, x: f64, kind: &ControlKind) {
    if let Some(out) = element::<web_sys::Element>(&format!("{key}-out")) {
        out.set_text_content(Some(&range_text(x, kind)));
    }
}

/// Write state back into the inputs, leaving a field the reader is typing in alone.
fn sync(specs: &[ControlSpec], get: &Getter) {
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .map(|e| e.id())
        .unwrap_or_default();
    for c in specs {
        let v = get(c.key);
        match &c.kind {
            kind @ ControlKind::Range { .. } => {
                let x = range_position(&v, kind);
                if let Some(input) = element::<web_sys::HtmlInputElement>(c.key) {
                    if input.value_as_number() != x {
                        input.set_value(&x.to_string());
                    }
                }
                show_range(c.key, x, kind);
            }
            ControlKind::Check => {
                if let Some(input) = element::<web_sys::HtmlInputElement>(c.key) {
                    input.set_checked(v == "1");
                }
            }
            ControlKind::Radio(options) => {
                if let Some(select) = element::<web_sys::HtmlSelectElement>(c.key) {
                    if select.value() != v {
                        select.set_value(&v);
                    }
                }
                for o in options {
                    if let Some(input) =
                        element::<web_sys::HtmlInputElement>(&format!("{}-{}", c.key, o.name))
                    {
                        input.set_checked(v == o.name);
                    }
                }
            }
            ControlKind::Number { .. } | ControlKind::Text => {
                if let Some(input) = element::<web_sys::HtmlInputElement>(c.key) {
                    if active != c.key && input.value() != v {
                        input.set_value(&v);
                    }
                }
            }
            ControlKind::Button => {}
        }
    }
}

/// The controls panel.
#[component]
pub fn Controls(
    /// Controls, in display order.
    specs: Vec<ControlSpec>,
    /// Current value of a key (reading signals, so the panel follows state).
    get: Getter,
    /// Apply a new value to a key.
    set: Setter,
    /// Range keys that apply on release rather than while dragging (their
    /// live value still follows the thumb).
    #[prop(optional)]
    defer: Option<Deferred>,
) -> impl IntoView {
    let compact = use_context::<crate::embed::EmbedOptions>().is_some_and(|o| o.embed);
    let html = panel_html(&specs, &get, compact);
    let specs = Arc::new(specs);
    let (sync_specs, sync_get) = (Arc::clone(&specs), Arc::clone(&get));
    Effect::new(move |_| sync(&sync_specs, &sync_get));
    // Why the last typed value was refused (text and number fields).
    let refused = RwSignal::new(None::<String>);
    let set_click = Arc::clone(&set);
    let handle = Arc::new(move |ev: web_sys::Event, committed: bool| {
        if let Some(select) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        {
            if committed {
                match set(&select.id(), &select.value()) {
                    Ok(()) => refused.set(None),
                    Err(why) => refused.set(Some(why)),
                }
            }
            return;
        }
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let kind = input.type_();
        let (key, value) = match kind.as_str() {
            "radio" => (input.name(), input.value()),
            "checkbox" => (
                input.id(),
                if input.checked() {
                    "1".into()
                } else {
                    "0".into()
                },
            ),
            "number" | "text" if committed => (input.id(), input.value()),
            "range" => {
                let key = input.id();
                let Some(spec) = specs.iter().find(|c| c.key == key) else {
                    return;
                };
                let deferred = defer.as_ref().is_some_and(|d| d(&key));
                if committed != deferred {
                    // A deferred slider mid-drag: move its label only.
                    if deferred {
                        show_range(&key, input.value_as_number(), &spec.kind);
                    }
                    return;
                }
                (key.clone(), range_value(&input.value(), &spec.kind))
            }
            _ => return,
        };
        match set(&key, &value) {
            Ok(()) => refused.set(None),
            Err(why) => refused.set(Some(why)),
        }
    });
    let on_change = Arc::clone(&handle);
    view! {
        <div class="controls-panel"
            on:input=move |ev| handle(ev, false)
            on:change=move |ev| on_change(ev, true)
            on:click=move |ev| {
                if let Some(key) = crate::html::clicked_key(&ev) {
                    let _ = set_click(&key, "");
                }
            }
        >
            <Markup class="controls-list" html=html />
            <Markup html=move || refused.with(|r| r.as_ref().map(|why| {
                Html::from(el("p").class("notice error").attr("role", "alert").text(why))
            }).unwrap_or_default()) />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::labs::LABS;

    #[test]
    fn every_parameter_of_every_lab_gets_a_control() {
        for lab in LABS {
            let specs = (lab.params)();
            let controls = ControlSpec::for_table(&specs);
            for s in &specs {
                let c = controls.iter().find(|c| c.key == s.key).expect("a control");
                let get: Getter = Arc::new(|_| String::new());
                let html = control_html(c, &get);
                assert!(html
                    .as_str()
                    .contains(&format!(r#"data-control="{}""#, s.key)));
            }
        }
    }

    #[test]
    fn unbounded_sits_one_step_past_the_end() {
        let kind = ControlKind::Range {
            min: 0.0,
            max: 10.0,
            step: 1.0,
            show: Show::Fixed(0),
            unit: "requests",
            inf: true,
        };
        assert_eq!(range_position("inf", &kind), 11.0);
        assert_eq!(range_value("11", &kind), "inf");
        assert_eq!(range_value("4", &kind), "4");
        let rate = ControlKind::Range {
            min: 0.01,
            max: 2.0,
            step: 0.01,
            show: Show::Fixed(2),
            unit: "req/tick",
            inf: false,
        };
        assert_eq!(range_value("0.35000000000000003", &rate), "0.35");
        assert_eq!(range_value("0.3", &rate), "0.3");
        assert_eq!(range_value("9", &rate), "2");
        assert_eq!(range_text(11.0, &kind), "∞");
        assert_eq!(range_text(4.0, &kind), "4 requests");
        let pct = ControlKind::Range {
            min: 0.0,
            max: 1.0,
            step: 0.05,
            show: Show::Percent(0),
            unit: "%",
            inf: false,
        };
        assert_eq!(range_text(0.2, &pct), "20%");
    }
}
