//! The batching player's own panels (see `labs::batching`, the page that
//! places them): the slot grid over iterations, the current iteration in
//! words, and each request's latency under the mode in focus.

use sim_core::choice::Choice;
use sim_core::labs::batching::{self, ModeRun, SlotState};

use leptos::prelude::*;

/// A slot's state as a class name, and the label of the request in it
/// (empty when idle).
pub(crate) fn slot_class(s: &SlotState) -> (&'static str, &str) {
    match s {
        SlotState::Idle => ("idle", ""),
        SlotState::Prefill { label } => ("prefill", label),
        SlotState::Decode { label } => ("decode", label),
        SlotState::Stalled { label } => ("stalled", label),
    }
}

/// The slots as a grid over iterations; the player's iteration is outlined.
pub(crate) fn gantt_view(m: &ModeRun, current: usize) -> AnyView {
    let slots = m.iterations_detail.first().map_or(0, |d| d.slots.len());
    let now = |d: &batching::IterationDetail| d.iteration as usize == current + 1;
    let head = m
        .iterations_detail
        .iter()
        .map(|d| view! { <th scope="col" class=now(d).then_some("now")>{d.iteration.to_string()}</th> })
        .collect_view();
    let rows = (0..slots)
        .map(|k| {
            let cells = m
                .iterations_detail
                .iter()
                .map(|d| {
                    let (class, label) = slot_class(&d.slots[k]);
                    let mark = match class {
                        "prefill" => "P",
                        "decode" => "D",
                        "stalled" => "S",
                        _ => "",
                    };
                    let title = format!("{label} {class}");
                    let class = format!("g-{class}{}", if now(d) { " now" } else { "" });
                    view! { <td class=class title=title>{label.to_string()}<sub>{mark}</sub></td> }
                })
                .collect_view();
            view! { <tr><th scope="row">{format!("Slot {}", k + 1)}</th>{cells}</tr> }
        })
        .collect_view();
    let tokens = m
        .iterations_detail
        .iter()
        .map(|d| view! { <td class=d.zero_output.then_some("g-zero")>{d.output_tokens.to_string()}</td> })
        .collect_view();
    view! {
        // The title sits above the scrolling box (a caption scrolls with a
        // table wider than a phone and is cut off at the screen's edge).
        <p class="table-title" id="gantt-title">"Slots over iterations (P prefill, D decode, S stalled)"</p>
        <div class="table-wrap" tabindex="0" role="region" aria-labelledby="gantt-title">
            <table class="gantt" id="gantt" aria-labelledby="gantt-title">
                <thead><tr><th scope="col">"Slot"</th>{head}</tr></thead>
                <tbody>
                    {rows}
                    <tr class="g-out"><th scope="row">"Tokens"</th>{tokens}</tr>
                </tbody>
            </table>
        </div>
    }
    .into_any()
}

/// The current iteration in words: its heading, each slot, and who waits
/// and who is done.
pub(crate) fn iteration_view(m: &ModeRun, i: usize) -> AnyView {
    let Some(d) = m.iterations_detail.get(i) else {
        return ().into_any();
    };
    let heading = format!(
        "Iteration {} · {} output token{}",
        d.iteration,
        d.output_tokens,
        if d.output_tokens == 1 { "" } else { "s" }
    );
    let badge = d
        .zero_output
        .then(|| view! { " "<span class="badge miss">"zero-output iteration"</span> });
    let slots = d
        .slots
        .iter()
        .enumerate()
        .map(|(k, st)| {
            let (class, label) = slot_class(st);
            let text = if class == "idle" {
                "idle".to_string()
            } else {
                format!("{label} · {class}")
            };
            view! { <li class=format!("g-{class}")>{format!("Slot {}: {text}", k + 1)}</li> }
        })
        .collect_view();
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    let lists = format!(
        "Waiting: {} · Completed: {}",
        list(&d.waiting),
        list(&d.completed)
    );
    view! {
        <h2 id="iteration-heading">{heading}{badge}</h2>
        <ul class="slot-list">{slots}</ul>
        <p class="small" id="iteration-lists">{lists}</p>
    }
    .into_any()
}

/// Each request's own latency under the mode in focus: time to first token
/// and time per output token, in iterations (what a user of that request
/// feels, beside the pool-wide figures); rows not yet finished at the
/// player's iteration say so.
pub(crate) fn latency_view(m: &ModeRun, trace: &[batching::BatchRequest], step: usize) -> AnyView {
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
    .view(None)
}
