//! Data-driven controls: a lab lists its controls as [`ControlSpec`]s and hands
//! over one getter and one setter keyed by the control's key. The panel is
//! rendered once as HTML; one delegated handler turns every input event into
//! `set(key, value)`, and one effect writes state back into the inputs (live
//! values, programmatic changes). Why: every control written as its own view
//! tree costs wasm, and a shared renderer keeps labs consistent — a labelled
//! range with live value, unit and range hint; a checkbox; a radio group with
//! one-line descriptions; a number field; a text field; a button. A lab whose
//! recomputation is slow can defer some ranges until they are released.
//!
//! Each control's key is its element id, its `data-control` (see `embed.rs`) and
//! usually its URL key.

use std::fmt::Write;
use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::html::escape;

/// What kind of input a control is.
#[derive(Clone)]
pub enum ControlKind {
    /// A range input with a live value.
    Range {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Step.
        step: f64,
        /// Unit after the value (may be empty).
        unit: &'static str,
        /// Formats a value for display.
        format: fn(f64) -> String,
    },
    /// A checkbox; the value is "1" or "0".
    Check,
    /// One of several options: (value, title, one-line description).
    Radio(Vec<(&'static str, &'static str, &'static str)>),
    /// A whole-number field; changes apply when the field is left or Enter pressed.
    Number,
    /// A short text field (e.g. a comma-separated list); changes apply when the
    /// field is left or Enter pressed. The hint says what it accepts.
    Text,
    /// A button; clicking it calls `set(key, "")`.
    Button,
}

/// One control.
#[derive(Clone)]
pub struct ControlSpec {
    /// Id, `data-control` and setter key.
    pub key: &'static str,
    /// Label text.
    pub label: &'static str,
    /// One line on what it means (may be empty).
    pub hint: &'static str,
    /// The input.
    pub kind: ControlKind,
}

/// Reads a control's current value as text.
pub type Getter = Arc<dyn Fn(&str) -> String + Send + Sync>;
/// Applies a new value (text) to a control's key.
pub type Setter = Arc<dyn Fn(&str, &str) + Send + Sync>;
/// Whether a range control's changes wait until it is released (for controls
/// whose recomputation is too slow to follow a drag without janking).
pub type Deferred = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// A range's live value as shown: formatted, with its unit.
fn range_text(x: f64, unit: &str, format: fn(f64) -> String) -> String {
    if unit.is_empty() {
        format(x)
    } else {
        format!("{} {unit}", format(x))
    }
}

fn panel_html(specs: &[ControlSpec], get: &Getter) -> String {
    let mut s = String::new();
    for c in specs {
        let key = c.key;
        let hint = escape(c.hint);
        match c.kind {
            ControlKind::Range {
                min,
                max,
                step,
                unit,
                format,
            } => {
                let v = crate::num::parse_f64(&get(key)).unwrap_or(min);
                let unit_text = if unit.is_empty() {
                    String::new()
                } else {
                    format!(" {unit}")
                };
                let _ = write!(
                    s,
                    r#"<div class="slider" data-control="{key}"><div class="slider-head"><label for="{key}">{}</label><output for="{key}" class="slider-value" id="{key}-out">{}{unit_text}</output></div><input type="range" id="{key}" min="{min}" max="{max}" step="{step}" value="{v}" aria-describedby="{key}-hint"><div class="slider-hint" id="{key}-hint"><span>{}–{}{unit_text}</span>{}</div></div>"#,
                    escape(c.label),
                    format(v),
                    format(min),
                    format(max),
                    if hint.is_empty() {
                        String::new()
                    } else {
                        format!("<span> · {hint}</span>")
                    }
                );
            }
            ControlKind::Check => {
                let checked = if get(key) == "1" { " checked" } else { "" };
                let _ = write!(
                    s,
                    r#"<label class="check" data-control="{key}"><input type="checkbox" id="{key}"{checked}> {}</label>"#,
                    escape(c.label)
                );
            }
            ControlKind::Radio(ref options) => {
                let current = get(key);
                let _ = write!(
                    s,
                    r#"<fieldset class="rule-picker" data-control="{key}"><legend>{}</legend>"#,
                    escape(c.label)
                );
                for (value, title, desc) in options {
                    let checked = if current == *value { " checked" } else { "" };
                    let _ = write!(
                        s,
                        r#"<div class="rule-option"><input type="radio" name="{key}" id="{key}-{value}" value="{value}"{checked}><label for="{key}-{value}"><span class="rule-name">{}</span>{}</label></div>"#,
                        escape(title),
                        if desc.is_empty() {
                            String::new()
                        } else {
                            format!(r#"<span class="rule-signal">{}</span>"#, escape(desc))
                        }
                    );
                }
                s.push_str("</fieldset>");
            }
            ControlKind::Number => {
                let _ = write!(
                    s,
                    r#"<div class="seed-row" data-control="{key}"><label for="{key}">{}</label><input id="{key}" type="number" min="0" step="1" inputmode="numeric" value="{}"></div>"#,
                    escape(c.label),
                    escape(&get(key))
                );
            }
            ControlKind::Text => {
                let _ = write!(
                    s,
                    r#"<div class="seed-row" data-control="{key}"><label for="{key}">{}</label><input id="{key}" type="text" spellcheck="false" autocomplete="off" value="{}" aria-describedby="{key}-hint"><div class="slider-hint" id="{key}-hint">{hint}</div></div>"#,
                    escape(c.label),
                    escape(&get(key))
                );
            }
            ControlKind::Button => {
                let _ = write!(
                    s,
                    r#"<button type="button" id="{key}" data-key="{key}">{}</button>"#,
                    escape(c.label)
                );
            }
        }
    }
    s
}

fn element<T: JsCast>(id: &str) -> Option<T> {
    web_sys::window()?
        .document()?
        .get_element_by_id(id)?
        .dyn_into::<T>()
        .ok()
}

/// Show a range's value beside it.
fn show_range(key: &str, x: f64, unit: &str, format: fn(f64) -> String) {
    if let Some(out) = element::<web_sys::Element>(&format!("{key}-out")) {
        out.set_text_content(Some(&range_text(x, unit, format)));
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
        match c.kind {
            ControlKind::Range {
                unit, format, min, ..
            } => {
                if let Some(input) = element::<web_sys::HtmlInputElement>(c.key) {
                    if input.value() != v {
                        input.set_value(&v);
                    }
                }
                show_range(
                    c.key,
                    crate::num::parse_f64(&v).unwrap_or(min),
                    unit,
                    format,
                );
            }
            ControlKind::Check => {
                if let Some(input) = element::<web_sys::HtmlInputElement>(c.key) {
                    input.set_checked(v == "1");
                }
            }
            ControlKind::Radio(ref options) => {
                for (value, _, _) in options {
                    if let Some(input) =
                        element::<web_sys::HtmlInputElement>(&format!("{}-{value}", c.key))
                    {
                        input.set_checked(v == *value);
                    }
                }
            }
            ControlKind::Number | ControlKind::Text => {
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
    let html = panel_html(&specs, &get);
    let specs = Arc::new(specs);
    let (sync_specs, sync_get) = (Arc::clone(&specs), Arc::clone(&get));
    Effect::new(move |_| sync(&sync_specs, &sync_get));
    let set_click = Arc::clone(&set);
    let handle = Arc::new(move |ev: web_sys::Event, committed: bool| {
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
                let deferred = defer.as_ref().is_some_and(|d| d(&key));
                if committed != deferred {
                    // A deferred slider mid-drag: move its label only.
                    if deferred {
                        if let Some(ControlKind::Range { unit, format, .. }) =
                            specs.iter().find(|c| c.key == key).map(|c| &c.kind)
                        {
                            if let Some(x) = crate::num::parse_f64(&input.value()) {
                                show_range(&key, x, unit, *format);
                            }
                        }
                    }
                    return;
                }
                (key, input.value())
            }
            _ => return,
        };
        set(&key, &value);
    });
    let on_change = Arc::clone(&handle);
    view! {
        <div class="controls-panel"
            inner_html=html
            on:input=move |ev| handle(ev, false)
            on:change=move |ev| on_change(ev, true)
            on:click=move |ev| {
                if let Some(key) = crate::html::clicked_key(&ev) {
                    set_click(&key, "");
                }
            }
        ></div>
    }
}
