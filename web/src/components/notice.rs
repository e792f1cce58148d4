//! A line for warnings the reader should see (e.g. a URL value that fell back),
//! and the line for a simulation error. Both render as HTML text: they are on
//! every lab, and small view trees of their own would cost wasm on each.

use leptos::prelude::*;

use crate::html::escape;

/// The notice markup for `messages` (empty when there are none).
fn notice_html(messages: &[String]) -> String {
    if messages.is_empty() {
        return String::new();
    }
    let mut s = String::from(r#"<div class="notice" role="status"><strong>Note: </strong>"#);
    for m in messages {
        s += r#"<span class="notice-item">"#;
        s += &escape(m);
        s += " </span>";
    }
    s + "</div>"
}

/// Shows each message; renders nothing when there are none.
#[component]
pub fn Notice(
    /// Messages to show (fixed for the page's life: they describe its URL).
    messages: Vec<String>,
) -> impl IntoView {
    view! { <div inner_html=notice_html(&messages)></div> }
}

/// A simulation error, shown in the page (nothing when there is none).
#[component]
pub fn ErrorLine(
    /// The error, if any.
    #[prop(into)]
    error: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <div inner_html=move || {
            error.with(|e| {
                e.as_ref()
                    .map(|e| {
                        format!(
                            r#"<div class="notice error" role="alert">Simulation error: {}</div>"#,
                            escape(e)
                        )
                    })
                    .unwrap_or_default()
            })
        }></div>
    }
}

/// Why a chart could not be drawn (nothing when it was).
#[component]
pub fn ChartError(
    /// The drawing error, if any (from `labs::draw_effect`).
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    view! {
        <div inner_html=move || {
            error.with(|e| {
                e.as_ref()
                    .map(|e| {
                        format!(
                            r#"<p class="notice error">Chart could not be drawn: {}</p>"#,
                            escape(e)
                        )
                    })
                    .unwrap_or_default()
            })
        }></div>
    }
}

#[cfg(test)]
mod tests {
    use super::notice_html;

    #[test]
    fn notices_are_escaped_and_absent_when_empty() {
        assert_eq!(notice_html(&[]), "");
        let html = notice_html(&["a<b".to_string()]);
        assert!(html.contains("a&lt;b") && html.contains(r#"role="status""#));
    }
}
