//! Data-driven controls: a lab's parameter table (from sim-core) becomes a
//! panel of labelled inputs, with one getter and one setter keyed by the
//! parameter's key. Each control is a reactive view of one kind — a labelled
//! range with live value, unit and range hint; a checkbox; a radio group (or,
//! compact, a drop-down) with one-line descriptions; a number field; a text
//! field; a button — whose value follows `get` and whose input goes through
//! `set`. The views are written once per kind, not per lab, so the bundle
//! pays for six control views whatever the number of labs. Main parameters
//! come first; the rest sit under "More settings". A lab whose recomputation
//! is slow can defer some ranges until they are released. `controls=` in an
//! embed hides every control it does not list (`allows`).
//!
//! Each control's key is its element id, its `data-control` (see `embed.rs`)
//! and its URL key.

use std::sync::Arc;

use leptos::prelude::*;
use sim_core::params::{Opt, Shape, Show, Spec, Tier, When};
use wasm_bindgen::JsCast;

use crate::ui::format::{fixed, real_text, thousands};

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
    /// One of a long list of options (a parameter with more than six: a
    /// list of every routing rule would fill a screen), as a drop-down.
    Select(Vec<Opt>),
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
    /// The time mode it belongs to (shown only in that mode).
    pub when: When,
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
            Shape::Choice(opts) if opts.len() > 6 => ControlKind::Select(opts.clone()),
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
            when: s.when,
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
                    when: When::Always,
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

/// Whether the reader may change a key here (`controls=` locks the rest).
pub type Allows = Arc<dyn Fn(&str) -> bool + Send + Sync>;

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
                value.trim().parse::<f64>().ok().unwrap_or(*min)
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
    let Some(x) = position.trim().parse::<f64>().ok() else {
        return position.to_string();
    };
    if *inf && x > *max {
        return "inf".into();
    }
    let snapped = (min + ((x.max(*min).min(*max) - min) / step).round() * step)
        .max(*min)
        .min(*max);
    let mut decimals = 0;
    while decimals < 6 && (step * 10f64.powi(decimals)).fract().abs() > 1e-9 {
        decimals += 1;
    }
    let text = format!("{snapped:.0$}", decimals as usize);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// What the panel's controls share: how to read and write values, which
/// ranges wait for release, which keys are open, and the last refusal.
#[derive(Clone)]
struct Ctx {
    get: Getter,
    set: Setter,
    defer: Option<Deferred>,
    /// The control whose last value was refused, and why.
    refused: RwSignal<Option<(&'static str, String)>>,
}

impl Ctx {
    /// Apply `value` to `key`; on a refusal, say why beside that control.
    /// Returns whether the value was taken.
    fn apply(&self, key: &'static str, value: &str) -> bool {
        match (self.set)(key, value) {
            Ok(()) => {
                self.refused.set(None);
                true
            }
            Err(why) => {
                self.refused.set(Some((key, why)));
                false
            }
        }
    }

    /// Apply the value an element's change event carries; a refused value
    /// is taken back out of the element, so the control shows the state
    /// the results are of (the signal did not change, so nothing else
    /// would redraw it).
    fn apply_from(&self, ev: &leptos::ev::Event, key: &'static str, value: &str) {
        if self.apply(key, value) {
            return;
        }
        let kept = (self.get)(key);
        let Some(target) = ev.target() else {
            return;
        };
        if let Some(select) = target.dyn_ref::<web_sys::HtmlSelectElement>() {
            select.set_value(&kept);
        } else if let Some(input) = target.dyn_ref::<web_sys::HtmlInputElement>() {
            match input.type_().as_str() {
                "radio" => {
                    input.set_checked(false);
                    let doc = input.owner_document();
                    let sel = format!("input[name=\"{key}\"][value=\"{kept}\"]");
                    if let Some(Ok(Some(e))) = doc.map(|d| d.query_selector(&sel)) {
                        if let Some(old) = e.dyn_ref::<web_sys::HtmlInputElement>() {
                            old.set_checked(true);
                        }
                    }
                }
                "checkbox" => input.set_checked(kept == "1"),
                // A range's position is not its value's text: its own view
                // puts it back.
                "range" => {}
                _ => input.set_value(&kept),
            }
        }
    }

    /// The refusal of `key`'s last value, beside that control.
    fn refusal(&self, key: &'static str) -> impl IntoView {
        let refused = self.refused;
        move || {
            refused.with(|r| match r {
                Some((k, why)) if *k == key => Some(view! {
                    <p class="notice error control-refusal" role="alert" id=format!("{key}-refused")>{why.clone()}</p>
                }),
                _ => None,
            })
        }
    }
}

/// The id of a control's hint line.
fn hint_id(key: &str) -> String {
    format!("{key}-hint")
}

/// A range: label, live value, slider, range and hint.
fn range_view(c: &ControlSpec, ctx: &Ctx, hidden: bool) -> AnyView {
    let (key, kind) = (c.key, c.kind.clone());
    let ControlKind::Range {
        min,
        max,
        step,
        unit,
        inf,
        ..
    } = kind
    else {
        return ().into_any();
    };
    let top = if inf { max + step } else { max };
    let unit_text = match unit {
        "" => String::new(),
        "%" => "%".into(),
        u => format!(" {u}"),
    };
    let low = range_text(min, &kind);
    let high = if inf {
        "∞".into()
    } else {
        range_text(max, &kind)
    };
    let hint = format!(
        "{}–{}{}",
        low.trim_end_matches(&unit_text),
        high,
        if c.hint.is_empty() {
            String::new()
        } else {
            format!(" · {}", c.hint)
        }
    );
    // While a deferred slider is dragged, its label follows the thumb alone.
    let dragged = RwSignal::new(None::<f64>);
    let get = Arc::clone(&ctx.get);
    let position = {
        let kind = kind.clone();
        move || range_position(&get(key), &kind)
    };
    let shown = {
        let (position, kind) = (position.clone(), kind.clone());
        move || range_text(dragged.get().unwrap_or_else(&position), &kind)
    };
    let value_text = shown.clone();
    let deferred = ctx.defer.as_ref().is_some_and(|d| d(key));
    let (on_input, on_change) = (ctx.clone(), ctx.clone());
    let (kind_in, kind_ch) = (kind.clone(), kind);
    let (position_in, position_ch) = (position.clone(), position.clone());
    let refusal = ctx.refusal(key);
    view! {
        <div class="slider" data-control=key hidden=hidden>
            <div class="slider-head">
                <label for=key>{c.label}</label>
                <output for=key class="slider-value" id=format!("{key}-out")>{shown}</output>
            </div>
            <input type="range" id=key min=real_text(min) max=real_text(top) step=real_text(step)
                aria-describedby=hint_id(key)
                aria-valuetext=value_text
                prop:value=move || real_text(position())
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    if deferred {
                        dragged.set(v.parse::<f64>().ok());
                    } else if !on_input.apply(key, &range_value(&v, &kind_in)) {
                        put_back(&ev, &position_in());
                    }
                }
                on:change=move |ev| {
                    if deferred {
                        dragged.set(None);
                        if !on_change.apply(key, &range_value(&event_target_value(&ev), &kind_ch)) {
                            put_back(&ev, &position_ch());
                        }
                    }
                } />
            <div class="slider-hint" id=hint_id(key)><span>{hint}</span></div>
            {refusal}
        </div>
    }
    .into_any()
}

/// Put a range's thumb back at `position` (its value was refused).
fn put_back(ev: &leptos::ev::Event, position: &f64) {
    if let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    {
        input.set_value(&real_text(*position));
    }
}

/// A checkbox; its value is "1" or "0".
fn check_view(c: &ControlSpec, ctx: &Ctx, hidden: bool) -> AnyView {
    let key = c.key;
    let get = Arc::clone(&ctx.get);
    let ctx = ctx.clone();
    let hint = (!c.hint.is_empty())
        .then(|| view! { <div class="slider-hint" id=hint_id(key)>{c.hint}</div> });
    let refusal = ctx.refusal(key);
    view! {
        <div class="check" data-control=key hidden=hidden>
            <label>
                <input type="checkbox" id=key
                    aria-describedby=(!c.hint.is_empty()).then(|| hint_id(key))
                    prop:checked=move || get(key) == "1"
                    on:change=move |ev| ctx.apply_from(&ev, key, if event_target_checked(&ev) { "1" } else { "0" }) />
                {format!(" {}", c.label)}
            </label>
            {hint}
            {refusal}
        </div>
    }
    .into_any()
}

/// One of several options: a radio group, or (compact, more than four) a
/// drop-down, with the parameter's line under it when `hint`.
fn choice_view(
    c: &ControlSpec,
    options: &[Opt],
    ctx: &Ctx,
    compact: bool,
    hidden: bool,
    hint: bool,
) -> AnyView {
    let key = c.key;
    if compact && options.len() > 4 {
        let (get, ctx) = (Arc::clone(&ctx.get), ctx.clone());
        let refusal = ctx.refusal(key);
        let hint = (hint && !c.hint.is_empty())
            .then(|| view! { <div class="slider-hint" id=hint_id(key)>{c.hint}</div> });
        let items = options
            .iter()
            .map(|o| view! { <option value=o.name>{o.title}</option> })
            .collect_view();
        return view! {
            <div class="focus-select" data-control=key hidden=hidden>
                <label for=key>{c.label}</label>
                <select id=key name=key prop:value=move || get(key)
                    on:change=move |ev| ctx.apply_from(&ev, key, &event_target_value(&ev))>{items}</select>
                {hint}
                {refusal}
            </div>
        }
        .into_any();
    }
    let items = options
        .iter()
        .map(|o| {
            let (get, ctx) = (Arc::clone(&ctx.get), ctx.clone());
            let (name, id) = (o.name, format!("{key}-{}", o.name));
            let doc =
                (!o.doc.is_empty()).then(|| view! { <span class="rule-signal">{o.doc}</span> });
            view! {
                <div class="rule-option">
                    <input type="radio" name=key id=id.clone() value=name
                        prop:checked=move || get(key) == name
                        on:change=move |ev| ctx.apply_from(&ev, key, name) />
                    <label for=id><span class="rule-name">{o.title}</span>{doc}</label>
                </div>
            }
        })
        .collect_view();
    let refusal = ctx.refusal(key);
    view! {
        <fieldset class="rule-picker" data-control=key hidden=hidden>
            <legend>{c.label}</legend>
            {items}
            {refusal}
        </fieldset>
    }
    .into_any()
}

/// A number or text field: the value applies when the field is left or Enter
/// pressed, and is left alone while the reader types.
fn field_view(c: &ControlSpec, ctx: &Ctx, hidden: bool) -> AnyView {
    let key = c.key;
    let (get, apply) = (Arc::clone(&ctx.get), ctx.clone());
    let hint = (!c.hint.is_empty())
        .then(|| view! { <div class="slider-hint" id=hint_id(key)>{c.hint}</div> });
    let described = (!c.hint.is_empty()).then(|| hint_id(key));
    let value = move || get(key);
    let refusal = apply.refusal(key);
    let change = move |ev: leptos::ev::Event| apply.apply_from(&ev, key, &event_target_value(&ev));
    match c.kind {
        ControlKind::Number { min, max } => view! {
            <div class="seed-row" data-control=key hidden=hidden>
                <label for=key>{c.label}</label>
                <input id=key type="number" min=real_text(min) max=real_text(max) step="any"
                    inputmode="decimal" aria-describedby=described prop:value=value on:change=change />
                {hint}
                {refusal}
            </div>
        }
        .into_any(),
        _ => view! {
            <div class="seed-row text-row" data-control=key hidden=hidden>
                <label for=key>{c.label}</label>
                <input id=key type="text" spellcheck="false" autocomplete="off"
                    aria-describedby=described prop:value=value on:change=change />
                {hint}
                {refusal}
            </div>
        }
        .into_any(),
    }
}

/// One control of any kind.
fn control_view(c: &ControlSpec, ctx: &Ctx, compact: bool, hidden: bool) -> AnyView {
    match &c.kind {
        ControlKind::Range { .. } => range_view(c, ctx, hidden),
        ControlKind::Check => check_view(c, ctx, hidden),
        ControlKind::Radio(options) => choice_view(c, options, ctx, compact, hidden, false),
        ControlKind::Select(options) => choice_view(c, options, ctx, true, hidden, !compact),
        ControlKind::Number { .. } | ControlKind::Text => field_view(c, ctx, hidden),
        ControlKind::Button => {
            let (key, ctx) = (c.key, ctx.clone());
            view! {
                <button type="button" id=key data-control=key hidden=hidden on:click=move |_| { ctx.apply(key, ""); }>{c.label}</button>
            }
            .into_any()
        }
    }
}

/// The controls panel: main controls, then the rest under "More settings";
/// with `controls=`, only the keys `allows` names are shown.
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
    /// Which keys the reader may change here (every key when absent).
    #[prop(optional_no_strip)]
    allows: Option<Allows>,
) -> impl IntoView {
    let compact = use_context::<crate::platform::embed::EmbedOptions>().is_some_and(|o| o.embed);
    let allowed = |key: &str| {
        let key = if key == "new-seed" { "seed" } else { key };
        allows.as_ref().is_none_or(|a| a(key))
    };
    let ctx = Ctx {
        get,
        set,
        defer,
        refused: RwSignal::new(None),
    };
    // Milliseconds mode when the GPU picker names a GPU (labs without one
    // have no mode-only controls).
    let get = ctx.get.clone();
    let in_ms = move || {
        let g = get(sim_core::params::TIME_MODE_KEY);
        !g.is_empty() && g != "none"
    };
    let shown = |c: &ControlSpec| {
        let view = control_view(c, &ctx, compact && !c.advanced, !allowed(c.key));
        if c.when == When::Always {
            return view;
        }
        // A control of one time mode only: hidden in the other, where it
        // would change nothing.
        let (when, in_ms) = (c.when, in_ms.clone());
        view! { <div class="mode-only" hidden=move || !when.applies(in_ms())>{view}</div> }
            .into_any()
    };
    let main = specs
        .iter()
        .filter(|c| !c.advanced)
        .map(shown)
        .collect_view();
    let more: Vec<&ControlSpec> = specs.iter().filter(|c| c.advanced).collect();
    // A "More settings" with nothing left to change would be a dead control;
    // one holding a control `controls=` lists opens.
    let any_open = more.iter().any(|c| allowed(c.key));
    let locked = allows.is_some();
    let more = (!more.is_empty()).then(|| {
        let items = more.into_iter().map(shown).collect_view();
        view! {
            <details class="more-settings" hidden=!any_open open=locked && any_open>
                <summary>"More settings"</summary>
                {items}
            </details>
        }
    });
    view! {
        <div class="controls-panel">
            <div class="controls-list">{main}{more}</div>
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
                assert_eq!(c.label, s.label);
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
