//! A line for warnings the reader should see (e.g. a URL value that fell back).

use leptos::prelude::*;

/// Shows each message; renders nothing when there are none.
#[component]
pub fn Notice(
    /// Messages to show.
    #[prop(into)]
    messages: Signal<Vec<String>>,
) -> impl IntoView {
    move || {
        let msgs = messages.get();
        (!msgs.is_empty()).then(|| {
            view! {
                <div class="notice" role="status">
                    <strong>"Note: "</strong>
                    {msgs.into_iter().map(|m| view! { <span class="notice-item">{m}" "</span> }).collect_view()}
                </div>
            }
        })
    }
}

/// A simulation error, shown in the page (nothing when there is none).
#[component]
pub fn ErrorLine(
    /// The error, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
) -> impl IntoView {
    move || {
        error.get().map(
            |e| view! { <div class="notice error" role="alert">"Simulation error: " {e}</div> },
        )
    }
}
