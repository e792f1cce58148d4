//! The home page: the layers of the stack, each with its labs, built from the
//! sim-core registry (so registering a lab adds its card).

use leptos::prelude::*;
use sim_core::labs::{Layer, LABS};

use crate::html::{el, Html, Markup};

/// The home page's markup.
fn home_html() -> Html {
    let intro = Html::trusted(
        r#"<section class="intro"><h1>LLM Load-Balancing Lab</h1><p class="lede">Simulations you can push on. Each lab replays seeded traffic through a small model of an LLM serving stack, so you can watch why round robin fails when one request costs a hundred times another, and what cache-aware routing, fresher signals and smarter batching buy instead.</p><p class="small">Labs are grouped by the layer of the stack where the decision they study is made; the foundations hold at every layer.</p></section>"#,
    );
    let layers = Layer::ALL.into_iter().map(|layer| {
        let labs: Vec<_> = LABS.iter().filter(|l| l.info.layer == layer).collect();
        let body: Html = if labs.is_empty() {
            el("p")
                .class("small muted")
                .text("No lab at this layer yet.")
                .into()
        } else {
            el("div")
                .class("lab-cards")
                .children(labs.into_iter().map(|lab| {
                    el("a")
                        .class("lab-card")
                        .href(format!("?lab={}", lab.info.id))
                        .child(el("span").class("lab-card-title").text(lab.info.title))
                        .child(el("span").class("lab-card-summary").text(lab.info.summary))
                }))
                .into()
        };
        el("li")
            .class("layer")
            .child(el("h2").text(layer.title()))
            .child(el("p").class("small").text(layer.decides()))
            .child(body)
    });
    let mut out = intro;
    out.push(el("ol").class("layers").children(layers));
    out
}

/// Home: one section per layer, one card per lab.
#[component]
pub fn Home() -> impl IntoView {
    view! { <Markup html=home_html() /> }
}
