//! A headline number with its unit and a one-line meaning.

use leptos::prelude::*;

/// A result card. The meaning shows on hover and keyboard focus, and is the
/// card's accessible description.
#[component]
pub fn ResultCard(
    /// Element id (tests and the meaning's `aria-describedby` use it).
    id: &'static str,
    /// What the number is.
    title: &'static str,
    /// The value, already formatted.
    #[prop(into)]
    value: Signal<String>,
    /// Unit after the value; may be empty.
    unit: &'static str,
    /// One line on what the number means.
    meaning: &'static str,
) -> impl IntoView {
    let meaning_id_ref = format!("{id}-meaning");
    let meaning_id = format!("{id}-meaning");
    view! {
        <div class="card" id=id tabindex="0" aria-describedby=meaning_id_ref>
            <div class="card-title">{title}</div>
            <div class="card-value">
                <span class="card-number">{move || value.get()}</span>
                {(!unit.is_empty()).then(|| view! { <span class="card-unit">" " {unit}</span> })}
            </div>
            <div class="card-meaning" id=meaning_id role="tooltip">{meaning}</div>
        </div>
    }
}
