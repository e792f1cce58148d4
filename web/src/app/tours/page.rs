//! A tour on the page: the step's lab (through the one page template, with
//! only the stage, the one revealed control and the panels the step names),
//! its words, Back and Next, and a link that opens the step in the full lab.
//! On a wide screen the words and the step controls stand beside the figure.
//! The URL holds the tour and the step (`?tour=routing&stop=2`); the lab
//! inside does not write its own state there.

use std::sync::Arc;

use leptos::html::H1;
use leptos::prelude::*;

use super::{Stop, Tour};

use crate::page::live::{pieces, plain, Live, LiveWords, Piece};
use crate::page::shell::Shell;
use crate::platform::embed::{self, EmbedOptions};
use crate::ui::{Lit, Spotlight};

/// The step `stop` (1-based) of `pairs`, or the first with a notice.
pub fn read_stop(tour: &Tour, pairs: &[(String, String)], notices: &mut Vec<String>) -> usize {
    let Some((_, v)) = pairs.iter().find(|(k, _)| k == "stop") else {
        return 0;
    };
    match crate::platform::url::whole::<usize>(v) {
        Some(n) if (1..=tour.stops.len()).contains(&n) => n - 1,
        _ => {
            notices.push(format!(
                "“stop={}” is not a step of this tour (1 to {}); starting at the first.",
                crate::platform::clip(v),
                tour.stops.len()
            ));
            0
        }
    }
}

/// The options a step's lab runs under: its panels, its one control (every
/// control in the playground), playing if it says so; the page's embed and
/// theme kept.
fn options(stop: &Stop, outer: &EmbedOptions, player: bool) -> EmbedOptions {
    EmbedOptions {
        embed: outer.embed,
        controls: (!stop.playground).then(|| stop.reveal.iter().map(|k| k.to_string()).collect()),
        autoplay: stop.play,
        theme: outer.theme.clone(),
        view: stop.panels(player),
        in_tour: true,
    }
}

/// One step's lab, rendered under its own options. With `live`, the step's
/// numbers are read off the lab's run into it as the run and step change.
#[component]
pub fn StopView(
    /// The step.
    stop: &'static Stop,
    /// The page's own embedding options (embed, theme).
    outer: EmbedOptions,
    /// Where the step's live numbers go.
    #[prop(optional)]
    live: Option<RwSignal<Vec<Live>>>,
) -> impl IntoView {
    let Some(page) = crate::labs::page(stop.lab()) else {
        return ().into_any();
    };
    let info = page.entry().info;
    let opts = options(stop, &outer, info.player.is_some());
    embed::apply_document(&opts, Some(&info));
    provide_context(opts);
    if let (Some(out), Some(claim)) = (live, stop.claim) {
        provide_context(LiveWords {
            read: Arc::new(move |s| {
                super::measure::read(claim, s)
                    .map(|r| r.live)
                    .unwrap_or_default()
            }),
            out,
        });
    }
    let pairs: Vec<(String, String)> = stop
        .pairs()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let class = if stop.playground {
        "tour-stop playground"
    } else {
        "tour-stop"
    };
    view! { <div class=class><Shell page=page pairs=pairs /></div> }.into_any()
}

/// A step's words with their live numbers: each `{…}` slot shows the run's
/// figure (the written one until the run is in), and pointing at one (mouse
/// or keyboard focus) lights on the stage the replicas it counts.
fn words(stop: &'static Stop, live: RwSignal<Vec<Live>>, lit: RwSignal<Vec<Lit>>) -> impl IntoView {
    pieces(stop.words)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t.into_any(),
            Piece::Slot(i, written) => {
                let text = move || {
                    live.with(|l| {
                        l.get(i)
                            .map_or_else(|| written.to_string(), |x| x.text.clone())
                    })
                };
                let spot =
                    move || live.with(|l| l.get(i).map(|x| x.spot.clone()).unwrap_or_default());
                let class = move || {
                    if spot().is_empty() {
                        "live-num"
                    } else {
                        "live-num spots"
                    }
                };
                view! {
                    // Not announced on its own: while the player plays the
                    // numbers change every step, and the step's words are
                    // announced when the step changes.
                    <span class=class aria-live="off" tabindex="0"
                        title="Read from the run shown below: it follows the control and the player"
                        on:mouseenter=move |_| lit.set(spot())
                        on:focus=move |_| lit.set(spot())
                        on:mouseleave=move |_| lit.set(Vec::new())
                        on:blur=move |_| lit.set(Vec::new())>
                        {text}
                    </span>
                }
                .into_any()
            }
        })
        .collect_view()
}

/// The tour's head: its title, the step count, the step's title and words
/// (one or two sentences, read before the stage below them). The elements
/// stay as the steps change, only their text follows `at`, so the title
/// can keep the focus and the words are announced (a live region).
fn head(
    tour: &'static Tour,
    at: RwSignal<usize>,
    title: NodeRef<H1>,
    live: RwSignal<Vec<Live>>,
    lit: RwSignal<Vec<Lit>>,
) -> AnyView {
    let n = tour.stops.len();
    view! {
        <p class="tour-head small">
            <span class="tour-title">{tour.title}</span>
            <span id="tour-count">{move || format!(" · Step {} of {n}", at.get() + 1)}</span>
        </p>
        <h1 id="tour-step-title" tabindex="-1" node_ref=title>
            {move || tour.stops[at.get()].title}
        </h1>
        <p class="tour-words" id="tour-words" aria-live="polite">
            {move || words(&tour.stops[at.get()], live, lit)}
        </p>
    }
    .into_any()
}

/// Back / the steps / Next, and the link to the full lab: beside the figure
/// on a wide screen, under it on a phone.
/// Each button goes to its step through `go`.
fn foot(
    tour: &'static Tour,
    at: RwSignal<usize>,
    go: impl Fn(usize) + Copy + Send + Sync + 'static,
    embed: bool,
) -> AnyView {
    let n = tour.stops.len();
    let dots = tour
        .stops
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let here = move || at.get() == i;
            view! {
                <li>
                    <button
                        type="button"
                        class=move || if here() { "tour-dot here" } else { "tour-dot" }
                        aria-label=format!("Step {}: {}", i + 1, s.title)
                        title=s.title
                        aria-current=move || here().then_some("step")
                        on:click=move |_| go(i)
                    >
                        {(i + 1).to_string()}
                    </button>
                </li>
            }
        })
        .collect_view();
    let target = if embed { "_blank" } else { "_self" };
    view! {
        <nav class="tour-nav" aria-label="Tour steps">
            <button type="button" id="tour-back" disabled=move || at.get() == 0
                on:click=move |_| go(at.get_untracked().saturating_sub(1))>
                "← Back"
            </button>
            <ol class="tour-dots">{dots}</ol>
            <button type="button" class="primary" id="tour-next" disabled=move || { at.get() + 1 >= n }
                on:click=move |_| go(at.get_untracked() + 1)>
                "Next →"
            </button>
        </nav>
        <p class="small tour-out">
            <a id="tour-full" href=move || format!("?{}", tour.stops[at.get()].link) target=target>
                "Open this step in the full lab"
            </a>
            {move || if at.get() + 1 == n { " · the playground: every control is yours" } else { "" }}
        </p>
    }
    .into_any()
}

/// A whole tour: the steps one at a time.
#[component]
pub fn TourPage(
    /// The tour.
    tour: &'static Tour,
    /// The step to open (0-based).
    start: usize,
) -> impl IntoView {
    let outer = use_context::<EmbedOptions>().unwrap_or_default();
    let embed = outer.embed;
    let at = RwSignal::new(start);
    let n = tour.stops.len();
    let title = NodeRef::<H1>::new();
    // The step's live numbers, and the replicas the reader points at.
    let live = RwSignal::new(Vec::<Live>::new());
    let lit = RwSignal::new(Vec::<Lit>::new());
    provide_context(Spotlight(lit));
    // The URL names the tour and the step (the embedding keys are kept).
    Effect::new(move |_| {
        crate::platform::url::replace_query(&[
            ("tour", tour.id.to_string()),
            ("stop", (at.get() + 1).to_string()),
        ]);
    });
    let go = move |i: usize| {
        // The new step's words show their written numbers (its own run's)
        // until its run is in.
        live.set(Vec::new());
        lit.set(Vec::new());
        at.set(i.min(n - 1));
        // The new step's title takes the focus (the button pressed may now
        // be disabled), and the tour's top comes into view.
        if let Some(h) = title.get_untracked() {
            let _ = h.focus();
        }
    };
    let lab = move || {
        let s = &tour.stops[at.get()];
        view! { <StopView stop=s outer=outer.clone() live=live /> }
    };
    view! {
        // Two columns on a wide screen: the words and the step controls,
        // held on screen, beside the step's figure. On a phone the side
        // melts into one column around the figure (words above it, the
        // step bar stuck to the bottom of the window).
        <section class="tour" id="tour" aria-label=tour.title>
            <div class="tour-side">
                {head(tour, at, title, live, lit)}
                {foot(tour, at, go, embed)}
            </div>
            <div class="tour-figure">{lab}</div>
        </section>
    }
}

/// The home page's opening: the first tour's first step, live, with the
/// way in.
#[component]
pub fn TourStart() -> impl IntoView {
    let tour = &super::TOURS[0];
    let first = &tour.stops[0];
    let outer = use_context::<EmbedOptions>().unwrap_or_default();
    let href = format!("?tour={}&stop=1", tour.id);
    let take = format!("Take the tour: {} steps →", tour.stops.len());
    view! {
        <section class="tour-start" aria-label="Start here">
            <StopView stop=first outer=outer />
            <div class="tour-start-words">
                <p class="eyebrow">"Start here"</p>
                <h2>{tour.title}</h2>
                <p>{plain(first.words)}</p>
                <p><a class="button-link" id="start-tour" href=href>{take}</a></p>
            </div>
        </section>
    }
}
