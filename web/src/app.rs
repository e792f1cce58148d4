//! The shell: header with navigation, then the page the `lab` query key names,
//! with the shared share/embed/export bar and the embedding options applied.

use leptos::prelude::*;

use crate::components::{Notice, ShareBar};
use crate::embed::{self, EmbedOptions};
use crate::labs::{
    self, herding::HerdingLab, home::Home, prefix::PrefixLab, routing::RoutingLab, LABS,
};
use crate::url;

/// The whole app. Pages are chosen by `?lab=…` so every deep link works from a
/// plain static file server, under any sub-path, with no rewrites.
#[component]
pub fn App() -> impl IntoView {
    let pairs = url::query_pairs();
    let mut notices = Vec::new();
    let opts = EmbedOptions::from_pairs(&pairs, &mut notices);
    embed::apply_document(&opts);
    provide_context(opts.clone());
    let lab = pairs
        .iter()
        .find(|(k, _)| k == "lab")
        .map(|(_, v)| v.clone());
    let current = lab.as_deref().and_then(labs::find);
    if let (Some(id), None) = (&lab, current) {
        if !id.is_empty() {
            notices.push(format!(
                "There is no lab called “{id}”; showing the home page."
            ));
        }
    }
    let page = match current.map(|l| l.id) {
        Some("routing") => view! { <RoutingLab pairs=pairs.clone() /> }.into_any(),
        Some("herding") => view! { <HerdingLab pairs=pairs.clone() /> }.into_any(),
        Some("prefix") => view! { <PrefixLab pairs=pairs.clone() /> }.into_any(),
        Some("batching") => {
            view! { <crate::labs::batching::BatchingLab pairs=pairs.clone() /> }.into_any()
        }
        Some(id) => match labs::queueing::find(id) {
            Some(ex) => {
                view! { <labs::queueing::QueueingLab pairs=pairs.clone() ex=ex /> }.into_any()
            }
            None => view! { <Home /> }.into_any(),
        },
        None => view! { <Home /> }.into_any(),
    };
    if let (true, Some(l)) = (opts.embed, current) {
        embed::start_resize_messages(l.id);
    }
    let after_mount = opts.clone();
    Effect::new(move |_| embed::apply_controls(&after_mount));
    let current_id = current.map(|l| l.id);
    // The header is static text: one HTML string rather than a view tree.
    let header = (!opts.embed).then(|| {
        let current = |id: Option<&str>| {
            if current_id == id {
                r#" aria-current="page""#
            } else {
                ""
            }
        };
        let mut nav = format!(r#"<a href="?"{}>Home</a>"#, current(None));
        for l in LABS {
            nav += &format!(
                r#"<a href="?lab={}"{}>{}</a>"#,
                l.id,
                current(Some(l.id)),
                crate::html::escape(l.title)
            );
        }
        let html = format!(
            r#"<a class="brand" href="?">LLM Load-Balancing Lab</a><nav aria-label="Labs">{nav}</nav>"#
        );
        view! { <header class="site-header" inner_html=html></header> }
    });
    let share = current.map(|l| view! { <ShareBar lab=l.id title=l.title /> });
    view! {
        {header}
        <main id="main">
            <Notice messages=notices />
            <div id="lab-root">{page}</div>
            {share}
        </main>
    }
}
