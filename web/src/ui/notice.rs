//! A line for warnings the reader should see (e.g. a URL value that fell back),
//! and the lines for a simulation or drawing error.

use leptos::prelude::*;

use crate::ui::html::{el, Html, Markup};

/// The notice markup for `messages` (empty when there are none).
fn notice_html(messages: &[String]) -> Html {
    if messages.is_empty() {
        return Html::new();
    }
    el("div")
        .class("notice")
        .attr("role", "status")
        .child(el("strong").text("Note: "))
        .children(
            messages
                .iter()
                .map(|m| el("span").class("notice-item").text(format!("{m} "))),
        )
        .into()
}

/// Shows each message; renders nothing when there are none.
#[component]
pub fn Notice(
    /// Messages to show (fixed for the page's life: they describe its URL).
    messages: Vec<String>,
) -> impl IntoView {
    view! { <Markup html=notice_html(&messages) /> }
}

/// A simulation error, shown in the page (nothing when there is none).
#[component]
pub fn ErrorLine(
    /// The error, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <Markup html=move || error.with(|e| e.as_ref().map(|e| {
            Html::from(el("div").class("notice error").attr("role", "alert").text(format!("Simulation error: {e}")))
        }).unwrap_or_default()) />
    }
}

#[cfg(test)]
mod tests {
    use super::notice_html;

    #[test]
    fn notices_are_escaped_and_absent_when_empty() {
        assert!(notice_html(&[]).as_str().is_empty());
        let html = notice_html(&["a<b".to_string()]);
        assert!(html.as_str().contains("a&lt;b") && html.as_str().contains(r#"role="status""#));
    }
}
