//! The engine batching player page (article §7.1–7.3): one trace, iteration by
//! iteration, under static, continuous and chunked-prefill batching.

/// The token-budget trade-off chart spec.
pub mod budget_chart;
/// The page's own panels (tables, readouts).
pub mod panel;
/// What the stage draws and says at one step.
pub mod scene;
/// The tokens-per-iteration chart spec.
pub mod tokens_chart;

use sim_core::choice::Choice;
use sim_core::labs::batching::{
    BatchingLab as Lab, Mode, ModeRun, Outcome, Totals, MAX_ARRIVAL, MAX_OUTPUT, MAX_PREFILL,
    MAX_REQUESTS,
};

use leptos::prelude::*;

use crate::labs::batching::panel::{gantt_view, iteration_view, latency_view};
use crate::page::{Chart, Edit, Editor, Edits, Page, Player, Seek, View};
use crate::ui::editor_click;
use crate::ui::html::Html;
use crate::ui::table::{Column, Compare, Pick};

/// One mode's figures up to the player's iteration.
pub(crate) struct Upto {
    mode: Mode,
    totals: Totals,
}

/// The three modes compared over iterations 1..=step+1 (each mode's whole
/// run once it has drained); a mode's name picks it when `pick` is given.
fn compare_view(o: &Outcome, selected: Mode, pick: Option<Pick>, step: usize) -> AnyView {
    let rows: Vec<Upto> = o
        .modes
        .iter()
        .map(|m| Upto {
            mode: m.mode,
            totals: m.totals_upto(step),
        })
        .collect();
    let longest = o
        .modes
        .iter()
        .map(|m| m.iterations_detail.len())
        .max()
        .unwrap_or(0);
    let note = if step + 1 >= longest {
        "Whole run: every mode has drained.".to_string()
    } else {
        format!(
            "Iterations 1–{} so far; a mode that has drained shows its whole run; ★ marks only the columns that say \"so far\" until the run ends.",
            step + 1
        )
    };
    let table = Compare {
        id: "batching-compare",
        caption: "The three modes on the same trace",
        first: "Mode",
        items: &rows,
        title: |m| m.mode.title(),
        key: Some(|m: &Upto| m.mode.name()),
        selected: &|m| m.mode == selected,
        columns: &COLS,
        so_far: step + 1 < longest,
    }
    .view(pick);
    view! {
        <p class="small progress-note" id="batching-upto">{note}</p>
        {table}
    }
    .into_any()
}

/// The comparison's columns (see [`compare_view`]).
pub(crate) const COLS: [Column<Upto>; 5] = [
    Column {
        title: "Iterations so far",
        meaning: "played up to the player's iteration; at the end, iterations to drain",
        value: |m| f64::from(m.totals.iterations),
        show: |x| crate::ui::format::fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Finished so far",
        meaning: "requests finished by the player's iteration",
        value: |m| f64::from(m.totals.finished),
        show: |x| crate::ui::format::fixed(x, 0),
        higher_is_better: true,
    },
    Column {
        title: "Zero-output iterations",
        meaning: "iterations that emitted no token",
        value: |m| f64::from(m.totals.zero_output_iterations),
        show: |x| crate::ui::format::fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Slot occupancy",
        meaning: "share of slot-iterations holding a sequence",
        value: |m| m.totals.slot_occupancy,
        show: |x| format!("{}%", crate::ui::format::fixed(x * 100.0, 0)),
        higher_is_better: true,
    },
    Column {
        title: "Iterations per token",
        meaning: "mean, after prefill; 1.0 is a token every iteration",
        value: |m| m.totals.mean_gap,
        // No token yet: nothing to average.
        show: |x| {
            if x > 0.0 {
                crate::ui::format::fixed(x, 2)
            } else {
                "—".to_string()
            }
        },
        higher_is_better: false,
    },
];

/// What the stage's shapes and colours mean.
const LEGEND: &str = r#"<p class="small legend-states"><span class="key"><span class="key-dot waiting"></span> waiting</span> <span class="key"><span class="key-dot prefill"></span> prefilling</span> <span class="key"><span class="key-dot decode"></span> decoding</span> <span class="key"><span class="key-dot stalled"></span> stalled</span> (ring: its slot emitted nothing) <span class="key"><span class="key-dot done"></span> finished</span> · <span class="key"><span class="key-square decode"></span> one</span> output token</p>"#;

/// The editable trace: a number input per field of each request and a
/// remove button per request, then the add / article / random buttons; each
/// calls `edits` from its own handler.
fn trace_editor(o: &Outcome, edits: Edits) -> AnyView {
    let rows = o
        .trace
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let fields = [
                ("a", r.arrival, 0, MAX_ARRIVAL, "arrival"),
                ("p", r.prefill, 1, MAX_PREFILL, "prefill chunks"),
                ("o", r.output, 1, MAX_OUTPUT, "output tokens"),
            ];
            let inputs = fields
                .into_iter()
                .map(|(field, value, lo, hi, what)| {
                    let change = move |ev: leptos::ev::Event| {
                        edits.run(Edit::Change {
                            row: i,
                            field: field.to_string(),
                            value: event_target_value(&ev),
                        })
                    };
                    view! {
                        <td><input type="number" min=lo.to_string() max=hi.to_string()
                            value=value.to_string() data-req=i.to_string() data-field=field
                            aria-label=format!("{what} of request {}", r.label) on:change=change /></td>
                    }
                })
                .collect_view();
            let remove = format!("rm-{i}");
            view! {
                <tr>
                    <th scope="row">{r.label.clone()}</th>
                    {inputs}
                    <td><button class="icon" data-key=remove.clone()
                        aria-label=format!("Remove request {}", r.label)
                        on:click=move |_| edits.run(Edit::Click(remove.clone()))>"×"</button></td>
                </tr>
            }
        })
        .collect_view();
    let click = move |key: &'static str| {
        move |_: leptos::ev::MouseEvent| edits.run(Edit::Click(key.into()))
    };
    view! {
        <table class="trace-edit">
            <thead><tr><th scope="col">"Request"</th><th scope="col">"Arrives"</th><th scope="col">"Prefill"</th><th scope="col">"Output"</th><th></th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
        <div class="trace-buttons">
            <button id="add-request" data-key="add-request" on:click=click("add-request")>"Add request"</button>
            <button data-key="default-trace" on:click=click("default-trace")>"Article's trace"</button>
            <button id="random-trace" data-key="random-trace" on:click=click("random-trace")>"Random trace"</button>
        </div>
    }
    .into_any()
}

/// One request of the trace editor: (arrival, prefill chunks, output tokens).
type Tuple = (u32, u32, u32);

/// The trace as (arrival, prefill, output) rows, in the parameter's text form.
fn trace_text(t: &[Tuple]) -> String {
    let parts: Vec<String> = t.iter().map(|(a, p, o)| format!("{a}.{p}.{o}")).collect();
    parts.join(",")
}

/// Edit the trace: a field of a request, or a button.
fn edit(v: &View<'_, Lab>, e: &Edit) -> Vec<(&'static str, String)> {
    let mut rows: Vec<Tuple> = v
        .outcome
        .trace
        .iter()
        .map(|r| (r.arrival, r.prefill, r.output))
        .collect();
    let write = |t: &[Tuple]| trace_text(t);
    let changed = match e {
        Edit::Change { row, field, value } => {
            let (Some(r), Ok(x)) = (rows.get_mut(*row), value.trim().parse::<u32>()) else {
                return Vec::new();
            };
            match field.as_str() {
                "a" => r.0 = x.min(MAX_ARRIVAL),
                "p" => r.1 = x.clamp(1, MAX_PREFILL),
                _ => r.2 = x.clamp(1, MAX_OUTPUT),
            }
            vec![("trace", write(&rows))]
        }
        Edit::Click(key) => {
            let new_row = |t: &[Tuple]| (t.last().map_or(0, |r| r.0), 1, 4);
            editor_click(key, &mut rows, new_row, write)
        }
    };
    // A trace keeps between one and the most requests the lab takes.
    if rows.is_empty() || rows.len() > MAX_REQUESTS {
        return Vec::new();
    }
    changed
}

/// The mode in focus's run.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a ModeRun> {
    v.outcome.mode(v.focus?)
}

/// The iteration on the player in words, then the slot grid (beside it, not
/// inside its box).
fn detail(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    view! {
        <div class="iteration-view">{iteration_view(r, v.step())}</div>
        {gantt_view(r, v.step())}
    }
    .into_any()
}

/// The batching player's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Engine",
    editor: Some(Editor {
        legend: "Requests (arrival iteration, prefill chunks, output tokens)",
        view: |v, edits| trace_editor(v.outcome, edits),
        edit,
    }),
    player: Some(Player {
        heading: "",
        records: false,
        side_by_side: false,
        len: |v| run(v).map_or(0, |r| r.iterations_detail.len()),
        moments: |v| {
            run(v)
                .map(|r| {
                    r.iterations_detail
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| d.moment.is_some())
                        .map(|(i, _)| i)
                        .collect()
                })
                .unwrap_or_default()
        },
        narrate: |v| run(v).map(|r| crate::labs::batching::scene::narrate(r, v.step())).unwrap_or_default(),
        scene: |v, width, palette| crate::labs::batching::scene::scene(v.outcome, run(v)?, v.step(), width, palette),
        legend: LEGEND,
        detail,
        difference: |v| v.outcome.first_difference(),
    }),
    tables: &[
        |v, pick| match v.focus {
            Some(m) => compare_view(v.outcome, m, v.pickable.then_some(pick), v.step()),
            None => ().into_any(),
        },
        |v, _| match run(v) {
            Some(r) => latency_view(r, &v.outcome.trace, v.step()),
            None => ().into_any(),
        },
    ],
    charts: &[
        Chart::<Lab>::new(
            "tokens-chart",
            |_| "Output tokens per iteration; a gap is an iteration with no output (click a bar to go to it)".into(),
            |v, theme| Some(tokens_chart::spec(run(v)?, v.config.slots as usize, v.step(), theme)),
            |v| {
                run(v)
                    .map(|r| {
                        format!(
                            "Bar chart of output tokens per iteration under {}: {} iterations, {} of them with no output; the current iteration is {}.",
                            r.mode.title(),
                            r.iterations,
                            r.zero_output_iterations,
                            v.step() + 1
                        )
                    })
                    .unwrap_or_default()
            },
        )
        .seek(Seek::Step)
        .short(),
        Chart::<Lab>::new(
            "budget-chart",
            |_| "Chunked prefill: each point is one budget (prefill chunks per iteration); the ring is your setting".into(),
            |v, _| {
                let current = (v.config.chunk_budget.min(8), v.config.prefill_first);
                Some(budget_chart::spec(&v.outcome.budget_sweep, current))
            },
            |v| {
                let parts: Vec<String> = v
                    .outcome
                    .budget_sweep
                    .iter()
                    .map(|p| {
                        format!(
                            "budget {} {}: {} iterations, {} per token",
                            p.budget,
                            if p.prefill_first { "prefill first" } else { "decode first" },
                            p.iterations,
                            crate::ui::format::fixed(p.mean_gap, 2)
                        )
                    })
                    .collect();
                format!("Chunked prefill by budget. {}.", parts.join("; "))
            },
        )
        .short(),
    ],
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Engine batching</h1><p class="lede">One stream of requests through one engine, three ways. Static batching waits for a whole batch to finish; continuous batching refills slots every iteration but stalls every decoding sequence whenever a prompt is being prefilled; chunked prefill lets prefill ride along with decode. Step through and watch the grid.</p><p class="small muted">Iterations are abstract engine steps; prefill work is counted in whole chunks. Follows §7.2 of the reference article.</p>"#;
