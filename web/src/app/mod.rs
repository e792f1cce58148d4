//! The app: header with navigation, then the page the `lab` query key names
//! (every lab through the one page template, `page::shell`), with the shared
//! share/embed/export bar and the embedding options applied. Which labs exist
//! is sim-core's registry; `labs::PAGES` holds each one's description.

pub mod home;
#[cfg(test)]
mod static_shell;
pub mod tours;
pub mod validate;

use leptos::prelude::*;
use sim_core::labs::{self as registry, LABS};

use self::tours::page::TourPage;
use crate::app::home::Home;
use crate::app::validate::ValidationPage;
use crate::labs;
use crate::page::shell::Shell;
use crate::platform::embed::{self, EmbedOptions};
use crate::platform::url;
use crate::ui::{EmbedFooter, Notice, ShareBar};

/// The site header: the brand and one link per registered lab, the
/// current page's link marked (`aria-current`).
fn header(current: Option<&str>, home: bool, validating: bool) -> AnyView {
    let here = |on: bool| on.then_some("page");
    let labs = LABS
        .iter()
        .map(|l| {
            let href = format!("?lab={}", l.info.id);
            view! { <a href=href aria-current=here(current == Some(l.info.id))>{l.info.title}</a> }
        })
        .collect_view();
    view! {
        <header class="site-header">
            <div class="site-header-inner">
                <a class="brand" href="?">"LLM Load-Balancing Lab"</a>
                <nav aria-label="Labs">
                    <a href="?" aria-current=here(home)>"Home"</a>
                    {labs}
                    <a href="?lab=validate" aria-current=here(validating)>"Validation"</a>
                </nav>
            </div>
        </header>
    }
    .into_any()
}

/// The whole app. Pages are chosen by `?lab=…` so every deep link works from a
/// plain static file server, under any sub-path, with no rewrites.
#[component]
pub fn App() -> impl IntoView {
    let mut notices = Vec::new();
    let pairs = url::first_of_each(url::query_pairs(), &mut notices);
    let opts = EmbedOptions::from_pairs(&pairs, &mut notices);
    let lab = pairs
        .iter()
        .find(|(k, _)| k == "lab")
        .map(|(_, v)| v.clone());
    let tour_id = pairs
        .iter()
        .find(|(k, _)| k == "tour")
        .map(|(_, v)| v.clone());
    let tour = tour_id.as_deref().and_then(tours::find);
    if let (Some(id), None) = (&tour_id, tour) {
        let ids: Vec<&str> = tours::TOURS.iter().map(|t| t.id).collect();
        notices.push(format!(
            "There is no tour called “{}” (the tours are {}); showing the home page.",
            crate::platform::clip(id),
            ids.join(", ")
        ));
    }
    // A tour's steps name their own labs.
    let lab = if tour.is_some() { None } else { lab };
    let validating = lab.as_deref() == Some("validate");
    let current = lab.as_deref().and_then(registry::find);
    embed::apply_document(&opts, current.map(|l| &l.info));
    provide_context(opts.clone());
    if let (Some(id), None) = (&lab, current) {
        if !id.is_empty() && !validating {
            notices.push(format!(
                "There is no lab called “{}”; showing the home page.",
                crate::platform::clip(id)
            ));
        }
    }
    if let Some(l) = current {
        let mut known: Vec<&str> = (l.params)().iter().map(|s| s.key).collect();
        known.extend(l.focus.map(|f| f.key));
        let editor = labs::page(l.info.id).is_some_and(|p| p.editor().is_some());
        if l.replays_traces || editor {
            known.push("trace");
        }
        notices.extend(opts.unknown_controls(&known));
    }
    let page = match (tour, current.and_then(|l| labs::page(l.info.id))) {
        (Some(t), _) => {
            let start = tours::page::read_stop(t, &pairs, &mut notices);
            view! { <TourPage tour=t start=start /> }.into_any()
        }
        (None, Some(page)) => view! { <Shell page=page pairs=pairs.clone() /> }.into_any(),
        (None, None) if validating => {
            let seeds = crate::app::validate::seeds_of(&pairs, &mut notices);
            view! { <ValidationPage seeds=seeds /> }.into_any()
        }
        (None, None) => view! { <Home /> }.into_any(),
    };
    if let (true, Some(l)) = (opts.embed, current) {
        embed::start_resize_messages(l.info.id);
    }
    if let (true, Some(t)) = (opts.embed, tour) {
        embed::start_resize_messages(t.id);
    }
    let current_id = current.map(|l| l.info.id);
    let in_tour = tour.is_some();
    let header = (!opts.embed).then(|| {
        header(
            current_id,
            current_id.is_none() && !in_tour && !validating,
            validating,
        )
    });
    let share = current.map(|l| {
        if opts.embed {
            view! { <EmbedFooter units=l.info.units /> }.into_any()
        } else {
            view! { <ShareBar lab=l.info.id title=l.info.title /> }.into_any()
        }
    });
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        {header}
        <main id="main" tabindex="-1">
            <Notice messages=notices />
            <div id="lab-root">{page}</div>
            {share}
        </main>
    }
}
