//! The engine batching player page (article §7.1–7.3): one trace, iteration by
//! iteration, under static, continuous and chunked-prefill batching.

mod stage;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::batching::{
    self, BatchingLab as Lab, Mode, ModeRun, Outcome, SlotState, Totals, MAX_ARRIVAL, MAX_OUTPUT,
    MAX_PREFILL, MAX_REQUESTS,
};
use wasm_bindgen::JsCast;

use super::lab::{LabPage, Steps};
use crate::charts::{budget_tradeoff, tokens_per_iteration};
use crate::components::{editor_click, ChartError, Controls, ErrorLine, Notice, Player, Stage};
use crate::html::{el, Column, Compare, Html, Markup};

fn slot_class(s: &SlotState) -> (&'static str, &str) {
    match s {
        SlotState::Idle => ("idle", ""),
        SlotState::Prefill { label } => ("prefill", label),
        SlotState::Decode { label } => ("decode", label),
        SlotState::Stalled { label } => ("stalled", label),
    }
}

/// The slots as a grid over iterations; the player's iteration is outlined.
fn gantt_html(m: &ModeRun, current: usize) -> Html {
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
fn iteration_html(m: &ModeRun, i: usize) -> Html {
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

/// One mode's figures up to the player's iteration.
struct Upto {
    mode: Mode,
    totals: Totals,
}

/// The three modes compared over iterations 1..=step+1 (each mode's whole
/// run once it has drained).
fn compare_html(o: &Outcome, selected: Mode, pickable: bool, step: usize) -> Html {
    const COLS: [Column<Upto>; 5] = [
        Column {
            title: "Iterations so far",
            meaning: "played up to the player's iteration; at the end, iterations to drain",
            value: |m| f64::from(m.totals.iterations),
            show: |x| crate::format::fixed(x, 0),
            higher_is_better: false,
        },
        Column {
            title: "Finished",
            meaning: "requests finished so far",
            value: |m| f64::from(m.totals.finished),
            show: |x| crate::format::fixed(x, 0),
            higher_is_better: false,
        },
        Column {
            title: "Zero-output iterations",
            meaning: "iterations that emitted no token",
            value: |m| f64::from(m.totals.zero_output_iterations),
            show: |x| crate::format::fixed(x, 0),
            higher_is_better: false,
        },
        Column {
            title: "Slot occupancy",
            meaning: "share of slot-iterations holding a sequence",
            value: |m| m.totals.slot_occupancy,
            show: |x| format!("{}%", crate::format::fixed(x * 100.0, 0)),
            higher_is_better: true,
        },
        Column {
            title: "Iterations per token",
            meaning: "mean, after prefill; 1.0 is a token every iteration",
            value: |m| m.totals.mean_gap,
            show: |x| crate::format::fixed(x, 2),
            higher_is_better: false,
        },
    ];
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
            "Iterations 1–{} so far; a mode that has drained shows its whole run.",
            step + 1
        )
    };
    [
        Html::from(
            el("p")
                .class("small progress-note")
                .id("batching-upto")
                .text(note),
        ),
        Compare {
            id: "batching-compare",
            caption: "The three modes on the same trace",
            first: "Mode",
            items: &rows,
            title: |m| m.mode.title(),
            key: pickable.then_some(|m: &Upto| m.mode.name()),
            selected: &|m| m.mode == selected,
            columns: &COLS,
        }
        .html(),
    ]
    .into_iter()
    .collect()
}

/// The editable trace as HTML inputs (one delegated change handler reads them).
fn trace_editor_html(o: &Outcome) -> Html {
    let rows = o.trace.iter().enumerate().map(|(i, r)| {
        let fields = [
            ("a", r.arrival, 0, MAX_ARRIVAL, "arrival"),
            ("p", r.prefill, 1, MAX_PREFILL, "prefill chunks"),
            ("o", r.output, 1, MAX_OUTPUT, "output tokens"),
        ];
        el("tr")
            .child(el("th").attr("scope", "row").text(&r.label))
            .children(fields.into_iter().map(|(f, v, lo, hi, what)| {
                el("td").child(
                    el("input")
                        .attr("type", "number")
                        .attr("min", lo.to_string())
                        .attr("max", hi.to_string())
                        .attr("value", v.to_string())
                        .attr("data-req", i.to_string())
                        .attr("data-field", f)
                        .attr("aria-label", format!("{what} of request {}", r.label)),
                )
            }))
            .child(
                el("td").child(
                    el("button")
                        .class("icon")
                        .attr("data-key", format!("rm-{i}"))
                        .attr("aria-label", format!("Remove request {}", r.label))
                        .text("×"),
                ),
            )
    });
    [
        Html::from(
            el("table")
                .class("trace-edit")
                .child(Html::trusted(r#"<thead><tr><th scope="col">Request</th><th scope="col">Arrives</th><th scope="col">Prefill</th><th scope="col">Output</th><th></th></tr></thead>"#))
                .child(el("tbody").children(rows)),
        ),
        Html::trusted(r#"<div class="trace-buttons"><button id="add-request" data-key="add-request">Add request</button><button data-key="default-trace">Article's trace</button><button id="random-trace" data-key="random-trace">Random trace</button></div>"#),
    ]
    .into_iter()
    .collect()
}

/// One request of the trace editor: (arrival, prefill chunks, output tokens).
type Tuple = (u32, u32, u32);

/// The trace as (arrival, prefill, output) rows, in the parameter's text form.
fn trace_text(t: &[Tuple]) -> String {
    let parts: Vec<String> = t.iter().map(|(a, p, o)| format!("{a}.{p}.{o}")).collect();
    parts.join(",")
}

/// The batching player.
#[component]
pub fn BatchingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let lab = LabPage::<Lab>::new(&pairs, Steps::FromOne);
    let (config, focus, step, outcome) = (lab.config, lab.focus, lab.step, lab.outcome);
    let set_focus = lab.set_focus();
    let pickable = lab.focus_open();
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(2.0);
    let mode = move || Mode::from_name(focus.get()).unwrap_or(Mode::Continuous);
    // A closure, not a derived signal: each distinct signal type costs wasm.
    let with_run = move |f: &dyn Fn(&ModeRun) -> Html| {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode()))
                .map(f)
                .unwrap_or_default()
        })
    };
    let len = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode()))
                .map_or(0, |r| r.iterations_detail.len())
        })
    });
    super::clamp_step(step, len);
    let moments = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode()))
                .map(|r| {
                    r.iterations_detail
                        .iter()
                        .enumerate()
                        .filter(|(_, d)| d.moment.is_some())
                        .map(|(i, _)| i)
                        .collect()
                })
                .unwrap_or_default()
        })
    });
    let narration = Signal::derive(move || {
        let i = step.get();
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode()))
                .map(|r| stage::narrate(r, i))
                .unwrap_or_default()
        })
    });
    let scene: crate::components::SceneFn = Arc::new(move |width, palette| {
        let i = step.get();
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode()).map(|r| (o, r)))
                .and_then(|(o, r)| stage::scene(o, r, i, width, palette))
        })
    });
    let tokens_ref = NodeRef::<Canvas>::new();
    let tokens_error = super::draw_linked(
        tokens_ref,
        Arc::new(move |theme| {
            let i = step.get();
            let slots = config.with(|c| c.slots as usize);
            outcome.with(|o| {
                o.as_ref()
                    .and_then(|o| o.mode(mode()))
                    .map(|r| tokens_per_iteration::spec(r, slots, i, theme))
            })
        }),
        Some(super::seek_to(step, playing)),
    );
    let tokens_text = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode()))
                .map(|r| {
                    format!(
                        "Bar chart of output tokens per iteration under {}: {} iterations, {} of them with no output; the current iteration is {}.",
                        r.mode.title(),
                        r.iterations,
                        r.zero_output_iterations,
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
            let current = config.with(|c| (c.chunk_budget.min(8), c.prefill_first));
            outcome.with(|o| {
                o.as_ref()
                    .map(|o| budget_tradeoff::spec(&o.budget_sweep, current))
            })
        }),
    );
    let sweep_text = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    let parts: Vec<String> = o
                        .budget_sweep
                        .iter()
                        .map(|p| {
                            format!(
                                "budget {} {}: {} iterations, {} per token",
                                p.budget,
                                if p.prefill_first {
                                    "prefill first"
                                } else {
                                    "decode first"
                                },
                                p.iterations,
                                crate::format::fixed(p.mean_gap, 2)
                            )
                        })
                        .collect();
                    format!("Chunked prefill by budget. {}.", parts.join("; "))
                })
                .unwrap_or_default()
        })
    });
    // Trace edits go through the parameter table like every other control.
    let rows = move || -> Vec<Tuple> {
        outcome
            .get_untracked()
            .map(|o| {
                o.trace
                    .iter()
                    .map(|r| (r.arrival, r.prefill, r.output))
                    .collect()
            })
            .unwrap_or_default()
    };
    let set = lab.setter();
    let write = move |t: &[Tuple]| {
        if !t.is_empty() && t.len() <= MAX_REQUESTS {
            let _ = set("trace", &trace_text(t));
        }
    };
    let write_change = write.clone();
    let on_trace_change = move |ev: web_sys::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let (Some(i), Some(f)) = (
            input.get_attribute("data-req"),
            input.get_attribute("data-field"),
        ) else {
            return;
        };
        let (Ok(i), Ok(v)) = (i.parse::<usize>(), input.value().trim().parse::<u32>()) else {
            return;
        };
        let mut t = rows();
        if let Some(r) = t.get_mut(i) {
            match f.as_str() {
                "a" => r.0 = v.min(MAX_ARRIVAL),
                "p" => r.1 = v.clamp(1, MAX_PREFILL),
                _ => r.2 = v.clamp(1, MAX_OUTPUT),
            }
            write_change(&t);
        }
    };
    let set_click = lab.setter();
    let on_trace_click = move |ev: web_sys::MouseEvent| {
        let Some(key) = crate::html::clicked_key(&ev) else {
            return;
        };
        let mut t = rows();
        let new_row = |t: &[Tuple]| (t.last().map_or(0, |r| r.0), 1, 4);
        if editor_click(&key, &mut t, new_row, &set_click) {
            write(&t);
        }
    };

    view! {
        <article class="lab" id="batching-lab">
            <header class="lab-header"><Markup html=Html::trusted(HEADER_HTML) /></header>
            <Notice messages=lab.notices.clone() />
            <ErrorLine error=move || outcome.error() />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls" data-panel="controls">
                    <h2>"Engine"</h2>
                    <Controls specs=lab.control_specs() get=lab.getter() set=lab.setter() />
                    <fieldset class="trace-editor" data-control="trace">
                        <legend>"Requests (arrival iteration, prefill chunks, output tokens)"</legend>
                        <div on:change=on_trace_change on:click=on_trace_click>
                            <Markup html=move || outcome.with(|o| o.as_ref().map(|o| trace_editor_html(o)).unwrap_or_default()) />
                        </div>
                    </fieldset>
                </section>
                <section class="results" aria-label="Player">
                    <div data-panel="player" class="player-stage">
                        <Player step=step len=len unit="iteration" playing=playing speed=speed
                            moments=moments narration=narration />
                        <Stage scene=scene speed=speed id="batching-stage" label=narration />
                        <Markup class="iteration-view" html=move || with_run(&|r| iteration_html(r, step.get())) />
                        <Markup html=move || with_run(&|r| gantt_html(r, step.get())) />
                    </div>
                    <div data-panel="table" on:click=move |ev| {
                        if let Some(m) = crate::html::clicked_key(&ev).and_then(|k| Mode::from_name(&k)) { set_focus(m.name()) }
                    }>
                        <Markup html=move || outcome.with(|o| o.as_ref().map(|o| compare_html(o, mode(), pickable, step.get())).unwrap_or_default()) />
                    </div>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"Output tokens per iteration; a gap is an iteration with no output (click a bar to go to it)"</figcaption>
                        <canvas node_ref=tokens_ref id="tokens-chart" class="short" role="img" aria-label=tokens_text></canvas>
                        <ChartError error=tokens_error />
                    </figure>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"Chunked prefill: each point is one budget (prefill chunks per iteration); the ring is your setting"</figcaption>
                        <canvas node_ref=canvas_ref id="budget-chart" class="short" role="img" aria-label=sweep_text></canvas>
                        <ChartError error=chart_error />
                        <p class="sr-only">{sweep_text}</p>
                    </figure>
                </section>
            </div>
        </article>
    }
}

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Engine batching</h1><p class="lede">One stream of requests through one engine, three ways. Static batching waits for a whole batch to finish; continuous batching refills slots every iteration but stalls every decoding sequence whenever a prompt is being prefilled; chunked prefill lets prefill ride along with decode. Step through and watch the grid.</p><p class="small muted">Iterations are abstract engine steps; prefill work is counted in whole chunks. Follows §7.2 of the reference article.</p>"#;
