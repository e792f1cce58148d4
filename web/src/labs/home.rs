//! The home page: the five layers of the stack, each with its labs.

use leptos::prelude::*;

use super::{Layer, LABS};

/// Home: one section per layer, one card per lab.
#[component]
pub fn Home() -> impl IntoView {
    view! {
        <section class="intro">
            <h1>"LLM Load-Balancing Lab"</h1>
            <p class="lede">
                "Simulations you can push on. Each lab replays seeded traffic through a small model of "
                "an LLM serving stack, so you can watch why round robin fails when one request costs a "
                "hundred times another, and what cache-aware routing, fresher signals and smarter "
                "batching buy instead."
            </p>
            <p class="small">
                "Labs are grouped by the layer of the stack where the decision they study is made."
            </p>
        </section>
        <ol class="layers">
            {Layer::ALL
                .into_iter()
                .map(|layer| {
                    let labs: Vec<_> = LABS.iter().filter(|l| l.layer == layer).collect();
                    view! {
                        <li class="layer">
                            <h2>{layer.title()}</h2>
                            <p class="small">{layer.decides()}</p>
                            {if labs.is_empty() {
                                view! { <p class="small muted">"No lab at this layer yet."</p> }.into_any()
                            } else {
                                view! {
                                    <div class="lab-cards">
                                        {labs
                                            .into_iter()
                                            .map(|lab| {
                                                view! {
                                                    <a class="lab-card" href=format!("?lab={}", lab.id)>
                                                        <span class="lab-card-title">{lab.title}</span>
                                                        <span class="lab-card-summary">{lab.summary}</span>
                                                    </a>
                                                }
                                            })
                                            .collect_view()}
                                    </div>
                                }
                                    .into_any()
                            }}
                        </li>
                    }
                })
                .collect_view()}
        </ol>
    }
}
