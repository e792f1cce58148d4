//! A tour on the page: the step's lab (through the one page template, with
//! only the stage, the one revealed control and the panels the step names),
//! its words, Back and Next, and a link that opens the step in the full lab.
//! The URL holds the tour and the step (`?tour=routing&stop=2`); the lab
//! inside does not write its own state there.

use leptos::prelude::*;

use super::{Stop, Tour};
use wasm_bindgen::JsCast;

use crate::page::shell::Shell;
use crate::platform::embed::{self, EmbedOptions};
use crate::ui::html::{clicked_key, el, Html, Markup};

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

/// One step's lab, rendered under its own options.
#[component]
pub fn StopView(
    /// The step.
    stop: &'static Stop,
    /// The page's own embedding options (embed, theme).
    outer: EmbedOptions,
) -> impl IntoView {
    let Some(page) = crate::labs::page(stop.lab()) else {
        return ().into_any();
    };
    let info = page.entry().info;
    let opts = options(stop, &outer, info.player.is_some());
    embed::apply_document(&opts, Some(&info));
    provide_context(opts);
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

/// The tour's head: its title, the step count, the step's title and words
/// (one or two sentences, read before the stage below them).
fn head_html(tour: &Tour, at: usize) -> Html {
    let mut out = Html::from(
        el("p")
            .class("tour-head small")
            .child(el("span").class("tour-title").text(tour.title))
            .child(el("span").id("tour-count").text(format!(
                " · Step {} of {}",
                at + 1,
                tour.stops.len()
            ))),
    );
    out.push(
        el("h1")
            .id("tour-step-title")
            .attr("tabindex", "-1")
            .text(tour.stops[at].title),
    );
    out.push(
        el("p")
            .class("tour-words")
            .id("tour-words")
            .attr("aria-live", "polite")
            .text(tour.stops[at].words),
    );
    out
}

/// Under the lab: Back / the steps / Next, and the link to the full lab.
fn foot_html(tour: &Tour, at: usize, embed: bool) -> Html {
    let n = tour.stops.len();
    let stop = &tour.stops[at];
    let button = |key: String, text: String, class: &str| {
        el("button")
            .attr("type", "button")
            .attr("data-key", key)
            .class(class)
            .text(text)
    };
    let dots = tour.stops.iter().enumerate().map(|(i, s)| {
        let class = if i == at { "tour-dot here" } else { "tour-dot" };
        let b = button(format!("stop-{i}"), (i + 1).to_string(), class)
            .attr("aria-label", format!("Step {}: {}", i + 1, s.title))
            .attr("title", s.title)
            .attr_opt("aria-current", (i == at).then_some("step"));
        el("li").child(b)
    });
    let mut out = Html::from(
        el("nav")
            .class("tour-nav")
            .attr("aria-label", "Tour steps")
            .child(
                button("back".into(), "← Back".into(), "")
                    .id("tour-back")
                    .flag("disabled", at == 0),
            )
            .child(el("ol").class("tour-dots").children(dots))
            .child(
                button("next".into(), "Next →".into(), "primary")
                    .id("tour-next")
                    .flag("disabled", at + 1 >= n),
            ),
    );
    out.push(
        el("p")
            .class("small")
            .child(
                el("a")
                    .id("tour-full")
                    .href(format!("?{}", stop.link))
                    .attr("target", if embed { "_blank" } else { "_self" })
                    .text("Open this step in the full lab"),
            )
            .text(if at + 1 == n {
                " · the playground: every control is yours"
            } else {
                ""
            }),
    );
    out
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
    // The URL names the tour and the step (the embedding keys are kept).
    Effect::new(move |_| {
        crate::platform::url::replace_query(&[
            ("tour", tour.id.to_string()),
            ("stop", (at.get() + 1).to_string()),
        ]);
    });
    let on_click = move |ev: web_sys::MouseEvent| {
        let now = at.get_untracked();
        let next = match clicked_key(&ev).as_deref() {
            Some("back") => now.saturating_sub(1),
            Some("next") => now + 1,
            Some(k) => match k.strip_prefix("stop-").and_then(|i| i.parse().ok()) {
                Some(i) => i,
                None => return,
            },
            None => return,
        };
        at.set(next.min(n - 1));
        // The new step's title takes the focus (its buttons were redrawn),
        // and the tour's top comes into view.
        if let Some(h) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("tour-step-title"))
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = h.focus();
        }
    };
    let lab = move || {
        let s = &tour.stops[at.get()];
        view! { <StopView stop=s outer=outer.clone() /> }
    };
    view! {
        <section class="tour" id="tour" aria-label=tour.title on:click=on_click>
            <Markup html=move || head_html(tour, at.get()) />
            {lab}
            <Markup html=move || foot_html(tour, at.get(), embed) />
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
    let words = el("div")
        .class("tour-start-words")
        .child(el("p").class("eyebrow").text("Start here"))
        .child(el("h2").text(tour.title))
        .child(el("p").text(first.words))
        .child(
            el("p").child(
                el("a")
                    .class("button-link")
                    .id("start-tour")
                    .href(format!("?tour={}&stop=1", tour.id))
                    .text(format!("Take the tour: {} steps →", tour.stops.len())),
            ),
        );
    view! {
        <section class="tour-start" aria-label="Start here">
            <StopView stop=first outer=outer />
            <Markup html=Html::from(words) />
        </section>
    }
}
