//! The home page: the five layers of the stack, each with its labs (static HTML
//! built from the registry, so adding a lab to `LABS` adds its card).

use leptos::prelude::*;

use super::{Layer, LABS};
use crate::html::escape;

/// The home page's HTML.
fn home_html() -> String {
    let mut s = String::from(
        r#"<section class="intro"><h1>LLM Load-Balancing Lab</h1><p class="lede">Simulations you can push on. Each lab replays seeded traffic through a small model of an LLM serving stack, so you can watch why round robin fails when one request costs a hundred times another, and what cache-aware routing, fresher signals and smarter batching buy instead.</p><p class="small">Labs are grouped by the layer of the stack where the decision they study is made; the foundations hold at every layer.</p></section><ol class="layers">"#,
    );
    for layer in Layer::ALL {
        s += &format!(
            r#"<li class="layer"><h2>{}</h2><p class="small">{}</p>"#,
            escape(layer.title()),
            escape(layer.decides())
        );
        let labs: Vec<_> = LABS.iter().filter(|l| l.layer == layer).collect();
        if labs.is_empty() {
            s += r#"<p class="small muted">No lab at this layer yet.</p>"#;
        } else {
            s += r#"<div class="lab-cards">"#;
            for lab in labs {
                s += &format!(
                    r#"<a class="lab-card" href="?lab={}"><span class="lab-card-title">{}</span><span class="lab-card-summary">{}</span></a>"#,
                    lab.id,
                    escape(lab.title),
                    escape(lab.summary)
                );
            }
            s += "</div>";
        }
        s += "</li>";
    }
    s + "</ol>"
}

/// Home: one section per layer, one card per lab.
#[component]
pub fn Home() -> impl IntoView {
    view! { <div inner_html=home_html()></div> }
}
