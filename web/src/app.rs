//! The shell: header with navigation, then the page the `lab` query key names.

use leptos::prelude::*;

use crate::labs::{
    self, herding::HerdingLab, home::Home, prefix::PrefixLab, routing::RoutingLab, LABS,
};
use crate::url;

/// The whole app. Pages are chosen by `?lab=…` so every deep link works from a
/// plain static file server, under any sub-path, with no rewrites.
#[component]
pub fn App() -> impl IntoView {
    let pairs = url::query_pairs();
    let lab = pairs
        .iter()
        .find(|(k, _)| k == "lab")
        .map(|(_, v)| v.clone());
    let current = lab.as_deref().and_then(labs::find).map(|l| l.id);
    let unknown = match (&lab, current) {
        (Some(id), None) if !id.is_empty() => vec![format!(
            "There is no lab called “{id}”; showing the home page."
        )],
        _ => Vec::new(),
    };
    let page = match current {
        Some("routing") => view! { <RoutingLab pairs=pairs.clone() /> }.into_any(),
        Some("herding") => view! { <HerdingLab pairs=pairs.clone() /> }.into_any(),
        Some("prefix") => view! { <PrefixLab pairs=pairs.clone() /> }.into_any(),
        _ => view! {
            <crate::components::Notice messages=Signal::stored(unknown) />
            <Home />
        }
        .into_any(),
    };
    view! {
        <header class="site-header">
            <a class="brand" href="?">"LLM Load-Balancing Lab"</a>
            <nav aria-label="Labs">
                <a href="?" aria-current=move || current.is_none().then_some("page")>"Home"</a>
                {LABS
                    .iter()
                    .map(|l| {
                        let is_current = current == Some(l.id);
                        view! {
                            <a href=format!("?lab={}", l.id) aria-current=is_current.then_some("page")>
                                {l.title}
                            </a>
                        }
                    })
                    .collect_view()}
            </nav>
        </header>
        <main id="main">{page}</main>
    }
}
