//! The prefix-affinity player page (article §6.1): two routers, one trace, side
//! by side, one request at a time.

/// The page's own panels (tables, readouts).
pub mod panel;
/// The prefill-so-far chart spec.
pub mod prefill_chart;
/// What the stage draws and says at one step.
pub mod scene;
/// The threshold-sweep chart spec.
pub mod sweep_chart;

use sim_core::choice::Choice;
use sim_core::labs::prefix::{Outcome, PrefixLab as Lab, PREFIXES};

use leptos::prelude::*;

use crate::labs::prefix::panel::{panel_view, steps_view};
use crate::page::{Chart, Edit, Editor, Edits, Page, Player, Seek, View};
use crate::ui::editor_click;
use crate::ui::format::thousands;
use crate::ui::html::Html;

/// The request on the player, clamped to the trace.
fn at(v: &View<'_, Lab>) -> usize {
    v.step().min(v.outcome.trace.len().saturating_sub(1))
}

/// The request on the player and both routers' panels.
fn detail(v: &View<'_, Lab>) -> AnyView {
    let (o, i) = (v.outcome, at(v));
    let Some(r) = o.trace.get(i) else {
        return ().into_any();
    };
    let heading = format!(
        "Request R{} · prefix P{} · prompt {} tokens ({} + {})",
        i + 1,
        r.prefix,
        thousands(r.prompt_tokens().into()),
        thousands(r.prefix_tokens.into()),
        r.suffix_tokens
    );
    let panels = o
        .routers
        .iter()
        .map(|run| panel_view(run, &o.trace, i, o.config.threshold))
        .collect_view();
    view! {
        <h2 id="request-heading">{heading}</h2>
        <div class="side-by-side">{panels}</div>
    }
    .into_any()
}

/// The prefill saved so far.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let (o, i) = (v.outcome, at(v));
    let (Some(a), Some(b)) = (o.routers.first(), o.routers.get(1)) else {
        return ().into_any();
    };
    let (a, b) = (
        a.steps[i].cumulative_prefill as f64,
        b.steps[i].cumulative_prefill as f64,
    );
    let text = format!(
        "Prefill reduction so far: {}% ({} / {} tokens)",
        crate::ui::format::fixed(if a > 0.0 { 100.0 * (1.0 - b / a) } else { 0.0 }, 1),
        thousands(b as u64),
        thousands(a as u64)
    );
    view! { <p class="reduction" id="reduction">{text}</p> }.into_any()
}

/// Edit the trace: a prefix picked for a request, or a button.
fn edit(v: &View<'_, Lab>, e: &Edit) -> Vec<(&'static str, String)> {
    let mut ids: Vec<u8> = v.outcome.trace.iter().map(|r| r.prefix).collect();
    let write = |ids: &[u8]| {
        let text: Vec<String> = ids.iter().map(u8::to_string).collect();
        text.join(",")
    };
    match e {
        Edit::Change { row, value, .. } => match (ids.get_mut(*row), value.parse::<u8>()) {
            (Some(x), Ok(p)) => {
                *x = p;
                vec![("trace", write(&ids))]
            }
            _ => Vec::new(),
        },
        Edit::Click(key) => editor_click(key, &mut ids, |_| 1, write),
    }
}

/// The prefix-affinity player's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Setup",
    editor: Some(Editor {
        legend: "Requests, in order",
        view: |v, edits| trace_editor(v.outcome, edits),
        edit,
    }),
    player: Some(Player {
        heading: "",
        records: false,
        side_by_side: false,
        len: |v| v.outcome.trace.len(),
        moments: |v| {
            (0..v.outcome.trace.len())
                .filter(|&i| crate::labs::prefix::scene::is_moment(v.outcome, i))
                .collect()
        },
        narrate: |v| crate::labs::prefix::scene::narrate(v.outcome, v.step()),
        scene: |v, width, palette| crate::labs::prefix::scene::scene(v.outcome, v.step(), width, palette),
        legend: "",
        detail,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    tables: &[|v, _| steps_view(v.outcome, v.step())],
    charts: &[
        Chart::<Lab>::new(
            "prefill-chart",
            |_| "Prefill so far: the gap between the lines is the work prefix affinity saved (click a point to go to that request)".into(),
            |v, _| Some(prefill_chart::spec(&v.outcome.routers, v.step())),
            |v| {
                let totals: Vec<String> = v
                    .outcome
                    .routers
                    .iter()
                    .map(|r| format!("{} {} tokens", r.router.title(), thousands(r.prefill_tokens)))
                    .collect();
                format!(
                    "Line chart of tokens prefilled so far after each request: {}; the current request is {}.",
                    totals.join(", "),
                    v.step() + 1
                )
            },
        )
        .seek(Seek::FromOne)
        .short(),
        Chart::<Lab>::new(
            "sweep-chart",
            |_| "The dial: prefix-aware hits and final load gap as the threshold grows".into(),
            |v, _| {
                let current = v.config.threshold.map_or(11, |t| t.min(10) as usize);
                Some(sweep_chart::spec(&v.outcome.sweep, current))
            },
            |v| {
                let parts: Vec<String> = v
                    .outcome
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
            },
        )
        .short(),
    ],
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// The editable trace: a prefix picker and a remove button per request,
/// the add / article / random buttons, and what each prefix weighs; each
/// control calls `edits` from its own handler.
fn trace_editor(o: &Outcome, edits: Edits) -> AnyView {
    let items = o
        .trace
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let options = (1..=PREFIXES.len() as u8)
                .map(|p| view! { <option value=p.to_string() selected={p == r.prefix}>{format!("P{p}")}</option> })
                .collect_view();
            let change = move |ev: leptos::ev::Event| {
                edits.run(Edit::Change {
                    row: i,
                    field: "prefix".into(),
                    value: event_target_value(&ev),
                })
            };
            let remove = format!("rm-{i}");
            view! {
                <li>
                    <label class="sr-only" for=format!("req-{i}")>{format!("Prefix of request {}", i + 1)}</label>
                    <select id=format!("req-{i}") data-req=i.to_string() on:change=change>{options}</select>
                    <button class="icon" data-key=remove.clone() aria-label=format!("Remove request {}", i + 1)
                        title="Remove" on:click=move |_| edits.run(Edit::Click(remove.clone()))>"×"</button>
                </li>
            }
        })
        .collect_view();
    let sizes: Vec<String> = PREFIXES
        .iter()
        .enumerate()
        .map(|(i, (p, q))| format!("P{}: {} + {}", i + 1, thousands((*p).into()), q))
        .collect();
    let click = move |key: &'static str| {
        move |_: leptos::ev::MouseEvent| edits.run(Edit::Click(key.into()))
    };
    view! {
        <ol class="trace-list" id="trace-list">{items}</ol>
        <div class="trace-buttons">
            <button id="add-request" data-key="add-request" on:click=click("add-request")>"Add request"</button>
            <button data-key="default-trace" on:click=click("default-trace")>"Article's trace"</button>
            <button id="random-trace" data-key="random-trace" on:click=click("random-trace")>"Random skewed trace"</button>
        </div>
        <p class="small muted">{format!("{} tokens (prefix + suffix)", sizes.join(" · "))}</p>
    }
    .into_any()
}

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Prefix affinity versus balance</h1><p class="lede">Two routers place the same requests on replicas that can each cache a single prompt prefix. Step through: the load-only router hits the cache only by luck; the prefix-aware one follows the cache, and with a finite threshold gives up affinity once the replica holding the prefix gets that far ahead of the least loaded. Move the threshold to trade hits against balance.</p><p class="small muted">Load counts every request assigned so far; ties go to the lowest-numbered replica. Follows §6.1 of the reference article.</p>"#;
