//! The home page: the first tour's first step, live, with the way in; the
//! tours; then the layers of the stack, each with its labs, built from the
//! sim-core registry (so registering a lab adds its card; a layer with no
//! lab yet is left out).

use leptos::prelude::*;
use sim_core::labs::{Layer, LABS};

use crate::app::tours::{page::TourStart, TOURS};

/// The page's title and lede.
fn intro() -> AnyView {
    view! {
        <section class="intro">
            <h1>"LLM Load-Balancing Lab"</h1>
            <p class="lede">
                "Simulations you can push on. Each lab replays seeded traffic through a small model of an LLM serving stack, so you can watch why round robin fails when one request costs a hundred times another, and what cache-aware routing, fresher signals and smarter batching buy instead."
            </p>
        </section>
    }
    .into_any()
}

/// The tours: one card per tour, opening on its first step.
fn tours() -> AnyView {
    let cards = TOURS
        .iter()
        .map(|t| {
            let href = format!("?tour={}&stop=1", t.id);
            let summary = format!("{} {} steps.", t.summary, t.stops.len());
            view! {
                <li>
                    <a class="lab-card" href=href>
                        <span class="lab-card-title">{t.title}</span>
                        <span class="lab-card-summary">{summary}</span>
                    </a>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="tours" aria-label="Tours">
            <h2>"Tours"</h2>
            <ol class="tour-cards">{cards}</ol>
        </section>
    }
    .into_any()
}

/// The labs index: one section per layer of the stack, one card per lab.
fn labs() -> AnyView {
    // A layer with no lab yet is left out (no empty boxes).
    let layers = Layer::ALL
        .into_iter()
        .filter(|&layer| !labs_empty(layer))
        .map(|layer| {
            let cards = LABS
                .iter()
                .filter(|l| l.info.layer == layer)
                .map(|lab| {
                    let href = format!("?lab={}", lab.info.id);
                    view! {
                        <a class="lab-card" href=href>
                            <span class="lab-card-title">{lab.info.title}</span>
                            <span class="lab-card-summary">{lab.info.summary}</span>
                        </a>
                    }
                })
                .collect_view();
            view! {
                <li class="layer">
                    <h2>{layer.title()}</h2>
                    <p class="small">{layer.decides()}</p>
                    <div class="lab-cards">{cards}</div>
                </li>
            }
        })
        .collect_view();
    view! {
        <h2 class="labs-heading">"Labs"</h2>
        <p class="small">
            "Grouped by the layer of the stack where the decision they study is made; the foundations hold at every layer."
        </p>
        <ol class="layers">{layers}</ol>
    }
    .into_any()
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
        {intro()}
        <TourStart />
        {tours()}
        {labs()}
    }
}
