//! A labelled range input with its live value, unit and range hint.

use leptos::prelude::*;

/// A real `<input type="range">` with a `<label>`, the live value with its unit,
/// and the range written out. Keyboard operable like any native range input.
#[component]
pub fn Slider(
    /// Element id; also ties the label to the input.
    id: &'static str,
    /// What the control sets.
    label: &'static str,
    /// Unit shown after the value ("ticks", "tokens", "%"…); may be empty.
    unit: &'static str,
    /// Smallest value.
    min: f64,
    /// Largest value.
    max: f64,
    /// Step between values.
    step: f64,
    /// The current value.
    #[prop(into)]
    value: Signal<f64>,
    /// Formats a value for display (without the unit).
    format: fn(f64) -> String,
    /// Called with every new value while the thumb moves.
    on_input: Callback<f64>,
    /// One line on what the control means.
    #[prop(optional)]
    hint: &'static str,
) -> impl IntoView {
    let hint_id_ref = format!("{id}-hint");
    let hint_id = format!("{id}-hint");
    view! {
        <div class="slider" data-control=id>
            <div class="slider-head">
                <label for=id>{label}</label>
                <output for=id class="slider-value">
                    {move || format(value.get())}
                    {(!unit.is_empty()).then(|| format!(" {unit}"))}
                </output>
            </div>
            <input
                type="range"
                id=id
                min=min
                max=max
                step=step
                aria-describedby=hint_id_ref
                prop:value=move || value.get().to_string()
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        on_input.run(v);
                    }
                }
            />
            <div class="slider-hint" id=hint_id>
                <span>{format(min)} "–" {format(max)} {(!unit.is_empty()).then(|| format!(" {unit}"))}</span>
                {(!hint.is_empty()).then(|| view! { <span>" · " {hint}</span> })}
            </div>
        </div>
    }
}
