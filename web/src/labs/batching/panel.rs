//! The batching player's own panels (see `labs::batching`, the page that
//! places them): the slot grid over iterations, the current iteration in
//! words, and each request's latency under the mode in focus.

use sim_core::choice::Choice;
use sim_core::labs::batching::{self, ModeRun, SlotState};

use crate::ui::html::{el, Html};

pub(crate) fn slot_class(s: &SlotState) -> (&'static str, &str) {
    match s {
        SlotState::Idle => ("idle", ""),
        SlotState::Prefill { label } => ("prefill", label),
        SlotState::Decode { label } => ("decode", label),
        SlotState::Stalled { label } => ("stalled", label),
    }
}

/// The slots as a grid over iterations; the player's iteration is outlined.
pub(crate) fn gantt_html(m: &ModeRun, current: usize) -> Html {
    let slots = m.iterations_detail.first().map_or(0, |d| d.slots.len());
    let now = |d: &batching::IterationDetail| d.iteration as usize == current + 1;
    let head = el("tr")
        .child(el("th").attr("scope", "col").text("Slot"))
        .children(m.iterations_detail.iter().map(|d| {
            el("th")
                .attr("scope", "col")
                .class(if now(d) { "now" } else { "" })
                .text(d.iteration.to_string())
        }));
    let rows = (0..slots).map(|k| {
        el("tr")
            .child(
                el("th")
                    .attr("scope", "row")
                    .text(format!("Slot {}", k + 1)),
            )
            .children(m.iterations_detail.iter().map(|d| {
                let (class, label) = slot_class(&d.slots[k]);
                let mark = match class {
                    "prefill" => "P",
                    "decode" => "D",
                    "stalled" => "S",
                    _ => "",
                };
                el("td")
                    .class(format!("g-{class}{}", if now(d) { " now" } else { "" }))
                    .attr("title", format!("{label} {class}"))
                    .text(label)
                    .child(el("sub").text(mark))
            }))
    });
    let tokens = el("tr")
        .class("g-out")
        .child(el("th").attr("scope", "row").text("Tokens"))
        .children(m.iterations_detail.iter().map(|d| {
            el("td")
                .class(if d.zero_output { "g-zero" } else { "" })
                .text(d.output_tokens.to_string())
        }));
    el("div")
        .class("table-wrap")
        .child(
            el("table")
                .class("gantt")
                .id("gantt")
                .child(el("caption").text("Slots over iterations (P prefill, D decode, S stalled)"))
                .child(el("thead").child(head))
                .child(el("tbody").children(rows).child(tokens)),
        )
        .into()
}

/// The current iteration in words.
pub(crate) fn iteration_html(m: &ModeRun, i: usize) -> Html {
    let Some(d) = m.iterations_detail.get(i) else {
        return Html::new();
    };
    let heading =
        el("h2")
            .id("iteration-heading")
            .text(format!(
                "Iteration {} · {} output token{}",
                d.iteration,
                d.output_tokens,
                if d.output_tokens == 1 { "" } else { "s" }
            ))
            .children(d.zero_output.then(|| {
                Html::trusted(r#" <span class="badge miss">zero-output iteration</span>"#)
            }));
    let slots = d.slots.iter().enumerate().map(|(k, st)| {
        let (class, label) = slot_class(st);
        let text = if class == "idle" {
            "idle".to_string()
        } else {
            format!("{label} · {class}")
        };
        el("li")
            .class(format!("g-{class}"))
            .text(format!("Slot {}: {text}", k + 1))
    });
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    [
        Html::from(heading),
        el("ul").class("slot-list").children(slots).into(),
        el("p")
            .class("small")
            .id("iteration-lists")
            .text(format!(
                "Waiting: {} · Completed: {}",
                list(&d.waiting),
                list(&d.completed)
            ))
            .into(),
    ]
    .into_iter()
    .collect()
}

/// Each request's own latency under the mode in focus: time to first token
/// and time per output token, in iterations (what a user of that request
/// feels, beside the pool-wide figures); rows not yet finished at the
/// player's iteration say so.
pub(crate) fn latency_html(m: &ModeRun, trace: &[batching::BatchRequest], step: usize) -> Html {
    let now = step as u32 + 1;
    let rows = m
        .requests
        .iter()
        .map(|r| {
            let gap =
                |g: Option<f64>| g.map_or("—".to_string(), |g| crate::ui::format::fixed(g, 2));
            let done = r.finished <= now;
            // A request is in the engine from the iteration after its arrival.
            let arrived = trace
                .iter()
                .find(|t| t.label == r.label)
                .is_none_or(|t| t.arrival < now);
            crate::ui::table::Row {
                cells: vec![
                    crate::ui::table::Cell::new(r.label.clone()),
                    crate::ui::table::Cell::new(r.ttft.to_string()),
                    crate::ui::table::Cell::new(gap(r.mean_gap)),
                    crate::ui::table::Cell::new(r.finished.to_string()),
                    crate::ui::table::Cell::new(match (done, arrived) {
                        (true, _) => "finished",
                        (false, true) => "in the engine",
                        (false, false) => "not arrived yet",
                    }),
                ],
                selected: !done,
                key: None,
            }
        })
        .collect();
    crate::ui::table::Table {
        id: "batching-latency",
        caption: format!(
            "Per request under {} (whole run; highlighted rows are not finished at iteration {now})",
            m.mode.title()
        ),
        head: [
            ("Request", ""),
            ("TTFT", "iterations from arrival to the first token"),
            ("Per output token", "iterations per token after prefill (1.00: one every iteration)"),
            ("Last token", "the iteration of its last token"),
            ("At this iteration", ""),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
        rows,
        ..crate::ui::table::Table::default()
    }
    .html()
}
