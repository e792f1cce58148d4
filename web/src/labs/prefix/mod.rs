//! The prefix-affinity player page (article §6.1): two routers, one trace, side
//! by side, one request at a time.

mod stage;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::prefix::{
    Outcome, PrefixLab as Lab, PrefixReason, PrefixRequest, RouterRun, PREFIXES,
};
use wasm_bindgen::JsCast;

use super::lab::{LabPage, Steps};
use crate::charts::{prefill_so_far, threshold_sweep};
use crate::components::{editor_click, ChartError, Controls, ErrorLine, Notice, Player, Stage};
use crate::format::thousands;
use crate::html::{el, Cell, Html, Markup, Row, Table};

/// The reason for one decision, in plain words (replicas 1-based).
fn explain(
    reason: PrefixReason,
    req: &PrefixRequest,
    target: u32,
    threshold: Option<u32>,
    load_before: u32,
) -> String {
    let p = req.prefix;
    match reason {
        PrefixReason::Load => format!(
            "Fewest assignments so far: replica {} had {load_before}. The prefix is not looked at.",
            target + 1
        ),
        PrefixReason::FirstSight => format!("First sight of P{p}: no replica has it, so it goes to the least-loaded replica."),
        PrefixReason::Affinity => format!("Replica {} caches P{p} and is within the load gap: affinity wins.", target + 1),
        PrefixReason::AffinityDropped { holder, holder_load, least_load } => format!(
            "Affinity dropped: replica {} holds P{p} but is {} requests ahead of replica {}, over the threshold of {}.",
            holder + 1,
            holder_load - least_load,
            target + 1,
            threshold.map_or("∞".into(), |t| t.to_string())
        ),
        PrefixReason::Evicted => format!("P{p} was seen before but no replica still caches it: sent by load."),
    }
}

/// The prefix-affinity player.
#[component]
pub fn PrefixLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let lab = LabPage::<Lab>::new(&pairs, Steps::FromOne);
    let (config, step, outcome) = (lab.config, lab.step, lab.outcome);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(1.0);
    let len = Signal::derive(move || outcome.with(|o| o.as_ref().map_or(0, |o| o.trace.len())));
    super::clamp_step(step, len);

    let moments = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    (0..o.trace.len())
                        .filter(|&i| stage::is_moment(o, i))
                        .collect()
                })
                .unwrap_or_default()
        })
    });
    let narration = Signal::derive(move || {
        let i = step.get();
        outcome.with(|o| o.as_ref().map(|o| stage::narrate(o, i)).unwrap_or_default())
    });
    let scene: crate::components::SceneFn = Arc::new(move |width, palette| {
        let i = step.get();
        outcome.with(|o| o.as_ref().and_then(|o| stage::scene(o, i, width, palette)))
    });
    let prefill_ref = NodeRef::<Canvas>::new();
    let prefill_error = super::draw_linked(
        prefill_ref,
        Arc::new(move |_| {
            let i = step.get();
            outcome.with(|o| o.as_ref().map(|o| prefill_so_far::spec(&o.routers, i)))
        }),
        // The chart counts requests from 1; the player's steps from 0.
        Some(Arc::new(move |x: f64| {
            playing.set(false);
            step.set((x.round() as usize).saturating_sub(1));
        })),
    );
    let prefill_text = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    let totals: Vec<String> = o
                        .routers
                        .iter()
                        .map(|r| format!("{} {} tokens", r.router.title(), thousands(r.prefill_tokens)))
                        .collect();
                    format!(
                        "Line chart of tokens prefilled so far after each request: {}; the current request is {}.",
                        totals.join(", "),
                        step.get() + 1
                    )
                })
                .unwrap_or_default()
        })
    });

    let canvas_ref = NodeRef::<Canvas>::new();
    let chart_error = super::draw_effect(
        canvas_ref,
        Arc::new(move |_| {
            let current = config.with(|c| c.threshold.map_or(11, |t| t.min(10) as usize));
            outcome.with(|o| o.as_ref().map(|o| threshold_sweep::spec(&o.sweep, current)))
        }),
    );
    let sweep_text = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    let parts: Vec<String> = o
                        .sweep
                        .iter()
                        .map(|p| {
                            format!(
                                "{}: {} hits, gap {}",
                                p.threshold.map_or("∞".into(), |t| t.to_string()),
                                p.hits,
                                p.assignment_gap
                            )
                        })
                        .collect();
                    format!(
                        "Prefix-aware hits and final assignment gap by threshold. {}.",
                        parts.join("; ")
                    )
                })
                .unwrap_or_default()
        })
    });

    // Trace edits go through the parameter table like every other control.
    let rows = move || -> Vec<u8> {
        outcome
            .get_untracked()
            .map(|o| o.trace.iter().map(|r| r.prefix).collect())
            .unwrap_or_default()
    };
    let set = lab.setter();
    let write = move |ids: &[u8]| {
        let text: Vec<String> = ids.iter().map(u8::to_string).collect();
        let _ = set("trace", &text.join(","));
    };
    let write_change = write.clone();
    let on_trace_change = move |ev: web_sys::Event| {
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
        else {
            return;
        };
        if let (Some(i), Ok(p)) = (
            el.get_attribute("data-req")
                .and_then(|i| i.parse::<usize>().ok()),
            el.value().parse::<u8>(),
        ) {
            let mut ids = rows();
            if let Some(x) = ids.get_mut(i) {
                *x = p;
                write_change(&ids);
            }
        }
    };
    let set_click = lab.setter();
    let on_trace_click = move |ev: web_sys::MouseEvent| {
        let Some(key) = crate::html::clicked_key(&ev) else {
            return;
        };
        let mut ids = rows();
        if editor_click(&key, &mut ids, |_| 1, &set_click) {
            write(&ids);
        }
    };
    let current = move || {
        let i = step.get();
        outcome.with(|o| o.as_ref().and_then(|o| o.trace.get(i).copied()))
    };

    view! {
        <article class="lab" id="prefix-lab">
            <header class="lab-header"><Markup html=Html::trusted(HEADER_HTML) /></header>
            <Notice messages=lab.notices.clone() />
            <ErrorLine error=move || outcome.error() />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls" data-panel="controls">
                    <h2>"Setup"</h2>
                    <Controls specs=lab.control_specs() get=lab.getter() set=lab.setter() />
                    <fieldset class="trace-editor" data-control="trace">
                        <legend>"Requests, in order"</legend>
                        <div on:change=on_trace_change on:click=on_trace_click>
                            <Markup html=move || outcome.with(|o| o.as_ref().map(|o| trace_editor_html(o)).unwrap_or_default()) />
                        </div>
                    </fieldset>
                </section>
                <section class="results" aria-label="Player">
                    <div data-panel="player" class="player-stage">
                    <Player step=step len=len unit="request" playing=playing speed=speed
                        moments=moments narration=narration />
                    <Stage scene=scene speed=speed id="prefix-stage" label=narration />
                    <h2 id="request-heading">{move || current().map(|r| format!(
                        "Request R{} · prefix P{} · prompt {} tokens ({} + {})",
                        step.get() + 1, r.prefix, thousands(r.prompt_tokens().into()), thousands(r.prefix_tokens.into()), r.suffix_tokens
                    )).unwrap_or_default()}</h2>
                    <Markup class="side-by-side" html=move || outcome.with(|o| {
                        o.as_ref().map(|o| {
                            let i = step.get().min(o.trace.len().saturating_sub(1));
                            o.routers.iter().map(|r| panel_html(r, &o.trace, i, o.config.threshold)).collect::<Html>()
                        }).unwrap_or_default()
                    }) />
                    </div>
                    <p class="reduction" id="reduction" data-panel="cards">{move || outcome.with(|o| o.as_ref().map(|o| {
                        let i = step.get().min(o.trace.len().saturating_sub(1));
                        let a = o.routers[0].steps[i].cumulative_prefill as f64;
                        let b = o.routers[1].steps[i].cumulative_prefill as f64;
                        format!("Prefill reduction so far: {}% ({} / {} tokens)", crate::format::fixed(if a > 0.0 { 100.0 * (1.0 - b / a) } else { 0.0 }, 1),
                            thousands(b as u64), thousands(a as u64))
                    }))}</p>
                    <div data-panel="table">
                        <Markup html=move || outcome.with(|o| o.as_ref().map(|o| steps_html(o, step.get())).unwrap_or_default()) />
                    </div>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"Prefill so far: the gap between the lines is the work prefix affinity saved (click a point to go to that request)"</figcaption>
                        <canvas node_ref=prefill_ref id="prefill-chart" class="short" role="img" aria-label=prefill_text></canvas>
                        <ChartError error=prefill_error />
                    </figure>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"The dial: prefix-aware hits and final load gap as the threshold grows"</figcaption>
                        <canvas node_ref=canvas_ref id="sweep-chart" class="short" role="img" aria-label=sweep_text></canvas>
                        <ChartError error=chart_error />
                        <p class="sr-only">{sweep_text}</p>
                    </figure>
                </section>
            </div>
        </article>
    }
}

/// Every request with both routers' decisions, as an HTML table; the request on
/// the player is highlighted.
fn steps_html(o: &Outcome, current: usize) -> Html {
    let head = [
        "Request",
        "Prefix",
        "Load only",
        "Prefill",
        "Prefix-aware",
        "Why",
        "Prefill",
    ]
    .iter()
    .map(|h| (h.to_string(), String::new()))
    .collect();
    let (a, b) = (&o.routers[0], &o.routers[1]);
    let rows = o
        .trace
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let place = |s: &sim_core::labs::prefix::Step| {
                format!(
                    "replica {} · {}",
                    s.target + 1,
                    if s.hit { "hit" } else { "miss" }
                )
            };
            Row {
                cells: vec![
                    Cell::new(format!("R{}", i + 1)),
                    Cell::new(format!("P{}", r.prefix)),
                    Cell::new(place(&a.steps[i])),
                    Cell::new(thousands(a.steps[i].prefill_tokens.into())),
                    Cell::new(place(&b.steps[i])),
                    Cell::new(b.steps[i].reason.name()).class("sent"),
                    Cell::new(thousands(b.steps[i].prefill_tokens.into())),
                ],
                selected: i == current,
                key: None,
            }
        })
        .collect();
    let last = o.trace.len().saturating_sub(1);
    let (ta, tb) = (a.totals_upto(current), b.totals_upto(current));
    let mut rows: Vec<Row> = rows;
    rows.push(Row {
        cells: vec![
            Cell::new(if current >= last {
                "Whole run".to_string()
            } else {
                format!("R1–R{} so far", current + 1)
            })
            .class("totals-row"),
            Cell::new(""),
            Cell::new(format!("{} hits", ta.hits)),
            Cell::new(thousands(ta.prefill_tokens)),
            Cell::new(format!("{} hits", tb.hits)),
            Cell::new(format!("{} escapes", tb.escapes)),
            Cell::new(thousands(tb.prefill_tokens)),
        ],
        selected: false,
        key: None,
    });
    Table {
        id: "prefix-steps",
        caption: "Every request, both routers (prefill in tokens; the last row totals the requests played so far)".into(),
        head,
        rows,
        ..Table::default()
    }
    .html()
}

/// The editable trace: a prefix picker per request, remove buttons, and the
/// add / article / random buttons (one delegated change and one click handler
/// read them).
fn trace_editor_html(o: &Outcome) -> Html {
    let items = o.trace.iter().enumerate().map(|(i, r)| {
        let options = (1..=PREFIXES.len() as u8).map(|p| {
            el("option")
                .attr("value", p.to_string())
                .flag("selected", p == r.prefix)
                .text(format!("P{p}"))
        });
        el("li")
            .child(
                el("label")
                    .class("sr-only")
                    .attr("for", format!("req-{i}"))
                    .text(format!("Prefix of request {}", i + 1)),
            )
            .child(
                el("select")
                    .id(format!("req-{i}"))
                    .attr("data-req", i.to_string())
                    .children(options),
            )
            .child(
                el("button")
                    .class("icon")
                    .attr("data-key", format!("rm-{i}"))
                    .attr("aria-label", format!("Remove request {}", i + 1))
                    .attr("title", "Remove")
                    .text("×"),
            )
    });
    let sizes: Vec<String> = PREFIXES
        .iter()
        .enumerate()
        .map(|(i, (p, q))| format!("P{}: {} + {}", i + 1, thousands((*p).into()), q))
        .collect();
    [
        Html::from(el("ol").class("trace-list").id("trace-list").children(items)),
        Html::trusted(r#"<div class="trace-buttons"><button id="add-request" data-key="add-request">Add request</button><button data-key="default-trace">Article's trace</button><button id="random-trace" data-key="random-trace">Random skewed trace</button></div>"#),
        el("p")
            .class("small muted")
            .text(format!("{} tokens (prefix + suffix)", sizes.join(" · ")))
            .into(),
    ]
    .into_iter()
    .collect()
}

/// One router's panel at request `index`, as HTML.
fn panel_html(
    run: &RouterRun,
    trace: &[PrefixRequest],
    index: usize,
    threshold: Option<u32>,
) -> Html {
    let s = &run.steps[index];
    let req = trace[index];
    let before = if index == 0 {
        0
    } else {
        run.steps[index - 1].assignments[s.target as usize]
    };
    let (badge, badge_text) = if s.hit {
        ("badge hit", "cache hit")
    } else {
        ("badge miss", "cache miss")
    };
    let caches = s.caches.iter().enumerate().map(|(r, entries)| {
        let slots: Html = if entries.is_empty() {
            Html::trusted(r#"<span class="slot empty">empty</span>"#)
        } else {
            entries
                .iter()
                .map(|e| {
                    el("span").class("slot").text(format!(
                        "P{} · {} hit{}",
                        e.prefix,
                        e.hits,
                        if e.hits == 1 { "" } else { "s" }
                    ))
                })
                .collect()
        };
        el("div")
            .class(if r as u32 == s.target {
                "cache target"
            } else {
                "cache"
            })
            .attr("role", "listitem")
            .child(
                el("span")
                    .class("cache-name")
                    .text(format!("Replica {}", r + 1)),
            )
            .child(slots)
            .child(
                el("span")
                    .class("cache-load")
                    .text(format!("{} assigned", s.assignments[r])),
            )
    });
    let hits = run.steps[..=index].iter().filter(|x| x.hit).count();
    el("div")
        .class("router-panel")
        .id(format!("panel-{}", run.router.name()))
        .child(el("h3").text(run.router.title()))
        .child(
            el("p")
                .class("routed")
                .text("Routed to ")
                .child(el("strong").text(format!("replica {}", s.target + 1)))
                .text(" ")
                .child(el("span").class(badge).text(badge_text)),
        )
        .child(
            el("p")
                .class("reason")
                .text(explain(s.reason, &req, s.target, threshold, before)),
        )
        .child(
            el("div")
                .class("caches")
                .attr("role", "list")
                .attr("aria-label", "Cache contents per replica")
                .children(caches),
        )
        .child(
            el("dl")
                .class("totals")
                .child(el("dt").text("Prefill for this request"))
                .child(el("dd").text(format!("{} tokens", thousands(s.prefill_tokens.into()))))
                .child(el("dt").text("Cumulative prefill"))
                .child(
                    el("dd")
                        .class("cumulative")
                        .text(format!("{} tokens", thousands(s.cumulative_prefill))),
                )
                .child(el("dt").text("Hits so far"))
                .child(
                    el("dd")
                        .class("hits")
                        .text(format!("{hits} of {}", index + 1)),
                ),
        )
        .into()
}

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Prefix affinity versus balance</h1><p class="lede">Two routers place the same requests on replicas that can each cache a single prompt prefix. Step through: the load-only router hits the cache only by luck; the prefix-aware one follows the cache, and with a finite threshold gives up affinity once the replica holding the prefix gets that far ahead of the least loaded. Move the threshold to trade hits against balance.</p><p class="small muted">Load counts every request assigned so far; ties go to the lowest-numbered replica. Follows §6.1 of the reference article.</p>"#;
