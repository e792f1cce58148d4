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

use crate::labs::prefix::panel::{panel_html, steps_html};
use crate::page::{Chart, Edit, Editor, Page, Player, Seek, View};
use crate::ui::editor_click;
use crate::ui::format::thousands;
use crate::ui::html::{el, Html};

/// The request on the player, clamped to the trace.
fn at(v: &View<'_, Lab>) -> usize {
    v.step().min(v.outcome.trace.len().saturating_sub(1))
}

/// The request on the player and both routers' panels.
fn detail(v: &View<'_, Lab>) -> Html {
    let (o, i) = (v.outcome, at(v));
    let Some(r) = o.trace.get(i) else {
        return Html::new();
    };
    let heading = el("h2").id("request-heading").text(format!(
        "Request R{} · prefix P{} · prompt {} tokens ({} + {})",
        i + 1,
        r.prefix,
        thousands(r.prompt_tokens().into()),
        thousands(r.prefix_tokens.into()),
        r.suffix_tokens
    ));
    let panels: Html = o
        .routers
        .iter()
        .map(|run| panel_html(run, &o.trace, i, o.config.threshold))
        .collect();
    [
        Html::from(heading),
        el("div").class("side-by-side").child(panels).into(),
    ]
    .into_iter()
    .collect()
}

/// The prefill saved so far.
fn cards(v: &View<'_, Lab>) -> Html {
    let (o, i) = (v.outcome, at(v));
    let (Some(a), Some(b)) = (o.routers.first(), o.routers.get(1)) else {
        return Html::new();
    };
    let (a, b) = (
        a.steps[i].cumulative_prefill as f64,
        b.steps[i].cumulative_prefill as f64,
    );
    el("p")
        .class("reduction")
        .id("reduction")
        .text(format!(
            "Prefill reduction so far: {}% ({} / {} tokens)",
            crate::ui::format::fixed(if a > 0.0 { 100.0 * (1.0 - b / a) } else { 0.0 }, 1),
            thousands(b as u64),
            thousands(a as u64)
        ))
        .into()
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
    intro: || Html::trusted(HEADER_HTML),
    inputs: "Setup",
    editor: Some(Editor {
        legend: "Requests, in order",
        html: |v| trace_editor_html(v.outcome),
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
    }),
    cards: Some(cards),
    tables: &[|v| steps_html(v.outcome, v.step())],
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

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Prefix affinity versus balance</h1><p class="lede">Two routers place the same requests on replicas that can each cache a single prompt prefix. Step through: the load-only router hits the cache only by luck; the prefix-aware one follows the cache, and with a finite threshold gives up affinity once the replica holding the prefix gets that far ahead of the least loaded. Move the threshold to trade hits against balance.</p><p class="small muted">Load counts every request assigned so far; ties go to the lowest-numbered replica. Follows §6.1 of the reference article.</p>"#;
