//! The home page: the first tour's first step, live, with the way in; the
//! tours; then the layers of the stack, each with its labs, built from the
//! sim-core registry (so registering a lab adds its card; a layer with no
//! lab yet is left out).

use leptos::prelude::*;
use sim_core::labs::{Layer, LABS};

use crate::app::tours::{page::TourStart, TOURS};
use crate::ui::html::{el, Html, Markup};

/// The page's title and lede.
fn intro_html() -> Html {
    Html::trusted(
        r#"<section class="intro"><h1>LLM Load-Balancing Lab</h1><p class="lede">Simulations you can push on. Each lab replays seeded traffic through a small model of an LLM serving stack, so you can watch why round robin fails when one request costs a hundred times another, and what cache-aware routing, fresher signals and smarter batching buy instead.</p></section>"#,
    )
}

/// The tours and the labs index.
fn home_html() -> Html {
    let tours = el("section")
        .class("tours")
        .attr("aria-label", "Tours")
        .child(el("h2").text("Tours"))
        .child(el("ol").class("tour-cards").children(TOURS.iter().map(|t| {
            el("li").child(
                el("a")
                    .class("lab-card")
                    .href(format!("?tour={}&stop=1", t.id))
                    .child(el("span").class("lab-card-title").text(t.title))
                    .child(el("span").class("lab-card-summary").text(format!(
                        "{} {} steps.",
                        t.summary,
                        t.stops.len()
                    ))),
            )
        })));
    let mut index = Html::from(el("h2").class("labs-heading").text("Labs"));
    index.push(el("p").class("small").text(
        "Grouped by the layer of the stack where the decision they study is made; the foundations hold at every layer.",
    ));
    // A layer with no lab yet is left out (no empty boxes).
    let layers = Layer::ALL
        .into_iter()
        .filter(|&layer| !labs_empty(layer))
        .map(|layer| {
            let labs = LABS.iter().filter(|l| l.info.layer == layer);
            el("li")
                .class("layer")
                .child(el("h2").text(layer.title()))
                .child(el("p").class("small").text(layer.decides()))
                .child(el("div").class("lab-cards").children(labs.map(|lab| {
                    el("a")
                        .class("lab-card")
                        .href(format!("?lab={}", lab.info.id))
                        .child(el("span").class("lab-card-title").text(lab.info.title))
                        .child(el("span").class("lab-card-summary").text(lab.info.summary))
                })))
        });
    let mut out = Html::from(tours);
    out.push(index);
    out.push(el("ol").class("layers").children(layers));
    out
}

/// Whether no lab sits at `layer` yet.
fn labs_empty(layer: Layer) -> bool {
    !LABS.iter().any(|l| l.info.layer == layer)
}

/// Home: the first tour's first step live, the tours, then one section per
/// layer, one card per lab.
#[component]
pub fn Home() -> impl IntoView {
    view! {
        <Markup html=intro_html() />
        <TourStart />
        <Markup html=home_html() />
    }
}
