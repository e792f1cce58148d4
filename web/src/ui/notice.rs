//! A line for warnings the reader should see (e.g. a URL value that fell back),
//! and the lines for a simulation or drawing error.

use leptos::prelude::*;

/// Shows each message; renders nothing when there are none.
#[component]
pub fn Notice(
    /// Messages to show (fixed for the page's life: they describe its URL).
    messages: Vec<String>,
) -> impl IntoView {
    (!messages.is_empty()).then(|| {
        let items = messages
            .into_iter()
            .map(|m| view! { <span class="notice-item">{format!("{m} ")}</span> })
            .collect_view();
        view! { <div class="notice" role="status"><strong>"Note: "</strong>{items}</div> }
    })
}

/// A simulation error, shown in the page (nothing when there is none).
#[component]
pub fn ErrorLine(
    /// The error, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
) -> impl IntoView {
    move || {
        error.get().map(|e| {
            view! { <div class="notice error" role="alert">{format!("Simulation error: {e}")}</div> }
        })
    }
}
