//! The engine batching player page (article §7.1–7.3): one trace, iteration by
//! iteration, under static, continuous and chunked-prefill batching.

mod state;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::batching::{
    self, config_from_tuples, Mode, ModeRun, Outcome, SlotState, TraceChoice,
};
use wasm_bindgen::JsCast;

use crate::charts::budget_tradeoff;
use crate::components::{
    ChartError, ControlKind, ControlSpec, Controls, ErrorLine, Getter, Notice, Player, Setter,
};
use crate::html::{escape, Column, Compare};
use crate::url::ParamReader;

fn slot_class(s: &SlotState) -> (&'static str, &str) {
    match s {
        SlotState::Idle => ("idle", ""),
        SlotState::Prefill { label } => ("prefill", label),
        SlotState::Decode { label } => ("decode", label),
        SlotState::Stalled { label } => ("stalled", label),
    }
}

/// The slots as a grid over iterations; the player's iteration is outlined.
fn gantt_html(m: &ModeRun, current: usize) -> String {
    let slots = m.iterations_detail.first().map_or(0, |d| d.slots.len());
    let mut s = String::from(
        r#"<div class="table-wrap"><table class="gantt" id="gantt"><caption>Slots over iterations (P prefill, D decode, S stalled)</caption><thead><tr><th scope="col">Slot</th>"#,
    );
    for d in &m.iterations_detail {
        let cur = if d.iteration as usize == current + 1 {
            r#" class="now""#
        } else {
            ""
        };
        s += &format!(r#"<th scope="col"{cur}>{}</th>"#, d.iteration);
    }
    s += "</tr></thead><tbody>";
    for k in 0..slots {
        s += &format!(r#"<tr><th scope="row">Slot {}</th>"#, k + 1);
        for d in &m.iterations_detail {
            let (class, label) = slot_class(&d.slots[k]);
            let mark = match class {
                "prefill" => "P",
                "decode" => "D",
                "stalled" => "S",
                _ => "",
            };
            let cur = if d.iteration as usize == current + 1 {
                " now"
            } else {
                ""
            };
            s += &format!(
                r#"<td class="g-{class}{cur}" title="{} {class}">{}<sub>{mark}</sub></td>"#,
                escape(label),
                escape(label)
            );
        }
        s += "</tr>";
    }
    s += r#"<tr class="g-out"><th scope="row">Tokens</th>"#;
    for d in &m.iterations_detail {
        let zero = if d.zero_output { " g-zero" } else { "" };
        s += &format!(r#"<td class="{zero}">{}</td>"#, d.output_tokens);
    }
    s + "</tr></tbody></table></div>"
}

/// The current iteration in words.
fn iteration_html(m: &ModeRun, i: usize) -> String {
    let Some(d) = m.iterations_detail.get(i) else {
        return String::new();
    };
    let mut s = format!(
        r#"<h2 id="iteration-heading">Iteration {} · {} output token{}{}</h2><ul class="slot-list">"#,
        d.iteration,
        d.output_tokens,
        if d.output_tokens == 1 { "" } else { "s" },
        if d.zero_output {
            r#" <span class="badge miss">zero-output iteration</span>"#
        } else {
            ""
        }
    );
    for (k, st) in d.slots.iter().enumerate() {
        let (class, label) = slot_class(st);
        let text = if class == "idle" {
            "idle".to_string()
        } else {
            format!("{} · {class}", escape(label))
        };
        s += &format!(r#"<li class="g-{class}">Slot {}: {text}</li>"#, k + 1);
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            escape(&v.join(", "))
        }
    };
    s += &format!(
        r#"</ul><p class="small" id="iteration-lists">Waiting: {} · Completed: {}</p>"#,
        list(&d.waiting),
        list(&d.completed)
    );
    s
}

/// The three modes compared.
fn compare_html(o: &Outcome, selected: Mode) -> String {
    const COLS: [Column<ModeRun>; 4] = [
        Column {
            title: "Iterations to drain",
            meaning: "until the last request finishes",
            value: |m| f64::from(m.iterations),
            show: |x| crate::format::fixed(x, 0),
            higher_is_better: false,
        },
        Column {
            title: "Zero-output iterations",
            meaning: "iterations that emitted no token",
            value: |m| f64::from(m.zero_output_iterations),
            show: |x| crate::format::fixed(x, 0),
            higher_is_better: false,
        },
        Column {
            title: "Slot occupancy",
            meaning: "share of slot-iterations holding a sequence",
            value: |m| m.slot_occupancy,
            show: |x| format!("{}%", crate::format::fixed(x * 100.0, 0)),
            higher_is_better: true,
        },
        Column {
            title: "Iterations per token",
            meaning: "mean, after prefill; 1.0 is a token every iteration",
            value: |m| m.mean_gap,
            show: |x| crate::format::fixed(x, 2),
            higher_is_better: false,
        },
    ];
    Compare {
        id: "batching-compare",
        caption: "The three modes on the same trace",
        first: "Mode",
        items: &o.modes,
        title: |m| m.mode.title(),
        key: Some(|m| m.mode.name()),
        selected: &|m| m.mode == selected,
        columns: &COLS,
    }
    .render()
}

/// The editable trace as HTML inputs (one delegated change handler reads them).
fn trace_editor_html(o: &Outcome) -> String {
    let mut s = String::from(
        r#"<table class="trace-edit"><thead><tr><th scope="col">Request</th><th scope="col">Arrives</th><th scope="col">Prefill</th><th scope="col">Output</th><th></th></tr></thead><tbody>"#,
    );
    for (i, r) in o.trace.iter().enumerate() {
        s += &format!(r#"<tr><th scope="row">{}</th>"#, escape(&r.label));
        for (f, v, lo, hi) in [
            ("a", r.arrival, 0, 100),
            ("p", r.prefill, 1, 20),
            ("o", r.output, 1, 50),
        ] {
            s += &format!(
                r#"<td><input type="number" min="{lo}" max="{hi}" value="{v}" data-req="{i}" data-field="{f}" aria-label="{} of request {}"></td>"#,
                match f {
                    "a" => "arrival",
                    "p" => "prefill chunks",
                    _ => "output tokens",
                },
                escape(&r.label)
            );
        }
        s += &format!(
            r#"<td><button class="icon" data-key="rm-{i}" aria-label="Remove request {}">×</button></td></tr>"#,
            escape(&r.label)
        );
    }
    s + r#"</tbody></table><div class="trace-buttons"><button id="add-request" data-key="add-request">Add request</button><button data-key="default-trace">Article's trace</button><button id="random-trace" data-key="random-trace">Random trace</button></div>"#
}

/// A change to the trace's (arrival, prefill, output) rows.
type TraceEdit = Box<dyn Fn(&mut Vec<(u32, u32, u32)>)>;

/// The batching player.
#[component]
pub fn BatchingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let mut reader = ParamReader::new(pairs);
    let (initial, initial_mode, initial_step) = state::from_query(&mut reader);
    let notices = reader.notices.clone();
    let (config, set_config) = signal(initial);
    let mode = RwSignal::new(initial_mode);
    let step = RwSignal::new(initial_step);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(2.0);
    let (outcome, error) = super::use_lab_run(move || {
        config.with(|c| batching::run(c, &Mode::ALL).map_err(|e| e.to_string()))
    });
    // A closure, not a derived signal: each distinct signal type costs wasm.
    let with_run = move |f: &dyn Fn(&batching::ModeRun) -> String| {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode.get()))
                .map(f)
                .unwrap_or_default()
        })
    };
    let len = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.mode(mode.get()))
                .map_or(1, |r| r.iterations_detail.len())
        })
    });
    super::clamp_step(step, len);
    super::sync_url(Arc::new(move || {
        config.with(|c| state::to_query(c, mode.get(), step.get()))
    }));
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
    let edit = move |f: TraceEdit| {
        let mut t: Vec<(u32, u32, u32)> = outcome
            .get_untracked()
            .map(|o| {
                o.trace
                    .iter()
                    .map(|r| (r.arrival, r.prefill, r.output))
                    .collect()
            })
            .unwrap_or_default();
        f(&mut t);
        if !t.is_empty() && t.len() <= 26 {
            set_config.update(|c| c.trace = TraceChoice::Custom(config_from_tuples(&t)));
        }
    };
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
        let v = match f.as_str() {
            "a" => v.min(100),
            "p" => v.clamp(1, 20),
            _ => v.clamp(1, 50),
        };
        edit(Box::new(move |t| {
            if let Some(r) = t.get_mut(i) {
                match f.as_str() {
                    "a" => r.0 = v,
                    "p" => r.1 = v,
                    _ => r.2 = v,
                }
            }
        }));
    };
    let on_trace_click = move |ev: web_sys::MouseEvent| {
        if let Some(key) = crate::html::clicked_key(&ev) {
            match key.as_str() {
                "add-request" => {
                    return edit(Box::new(|t| {
                        let a = t.last().map_or(0, |r| r.0);
                        t.push((a, 1, 4));
                    }))
                }
                "default-trace" => return set_config.update(|c| c.trace = TraceChoice::Default),
                "random-trace" => {
                    return set_config.update(|c| {
                        c.trace = TraceChoice::Random;
                        c.seed = (js_sys::Math::random() * 1e6) as u64;
                    })
                }
                _ => {}
            }
            if let Some(i) = key
                .strip_prefix("rm-")
                .and_then(|i| i.parse::<usize>().ok())
            {
                edit(Box::new(move |t| {
                    t.remove(i);
                }));
            }
        }
    };
    let get: Getter = Arc::new(move |key: &str| match key {
        "mode" => mode.get().name().to_string(),
        "slots" => config.with(|c| c.slots.to_string()),
        "budget" => config.with(|c| c.chunk_budget.to_string()),
        "order" => config.with(|c| u8::from(c.prefill_first).to_string()),
        "seed" => config.with(|c| c.seed.to_string()),
        _ => String::new(),
    });
    let set: Setter = Arc::new(move |key: &str, value: &str| {
        let x = crate::num::parse_f64(value).filter(|x| x.is_finite() && *x >= 1.0);
        match (key, x) {
            ("mode", _) => {
                if let Some(m) = Mode::from_name(value) {
                    mode.set(m);
                }
            }
            ("slots", Some(x)) => set_config.update(|c| c.slots = x as u32),
            ("budget", Some(x)) => set_config.update(|c| c.chunk_budget = x as u32),
            ("order", _) => set_config.update(|c| c.prefill_first = value == "1"),
            ("seed", _) => {
                if let Ok(seed) = value.trim().parse::<u64>() {
                    set_config.update(|c| {
                        c.seed = seed;
                        c.trace = TraceChoice::Random;
                    });
                }
            }
            _ => {}
        }
    });

    view! {
        <article class="lab" id="batching-lab">
            <header class="lab-header" inner_html=HEADER_HTML></header>
            <Notice messages=notices />
            <ErrorLine error=error />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls">
                    <h2>"Engine"</h2>
                    <Controls specs=control_specs() get=get set=set />
                    <fieldset class="trace-editor" data-control="trace">
                        <legend>"Trace (iterations, chunks, tokens)"</legend>
                        <div on:change=on_trace_change on:click=on_trace_click
                            inner_html=move || outcome.with(|o| o.as_ref().map(|o| trace_editor_html(o)).unwrap_or_default())></div>

                    </fieldset>
                </section>
                <section class="results" aria-label="Player">
                    <Player step=step len=len unit="iteration" playing=playing speed=speed />
                    <div class="iteration-view" inner_html=move || with_run(&|r| iteration_html(r, step.get()))></div>
                    <div inner_html=move || with_run(&|r| gantt_html(r, step.get()))></div>
                    <div on:click=move |ev| {
                            if let Some(m) = crate::html::clicked_key(&ev).and_then(|k| Mode::from_name(&k)) { mode.set(m) }
                        }
                        inner_html=move || outcome.with(|o| o.as_ref().map(|o| compare_html(o, mode.get())).unwrap_or_default())></div>
                    <figure class="chart">
                        <figcaption>"Chunked prefill: what the budget and its order buy (labels are budgets)"</figcaption>
                        <canvas node_ref=canvas_ref id="budget-chart" class="short" role="img" aria-label=sweep_text></canvas>
                        <ChartError error=chart_error />
                        <p class="sr-only">{sweep_text}</p>
                    </figure>
                </section>
            </div>
        </article>
    }
}

/// The batching player's controls.
fn control_specs() -> Vec<ControlSpec> {
    let whole = |x: f64| crate::format::fixed(x, 0);
    vec![
        ControlSpec {
            key: "mode",
            label: "Batching mode",
            hint: "",
            kind: ControlKind::Radio(
                Mode::ALL
                    .iter()
                    .map(|m| (m.name(), m.title(), ""))
                    .collect(),
            ),
        },
        ControlSpec {
            key: "slots",
            label: "Slots",
            hint: "sequences that can run at once",
            kind: ControlKind::Range {
                min: 1.0,
                max: 6.0,
                step: 1.0,
                unit: "",
                format: whole,
            },
        },
        ControlSpec {
            key: "budget",
            label: "Chunk budget",
            hint: "chunked mode: prefill chunks + decode tokens per iteration",
            kind: ControlKind::Range {
                min: 1.0,
                max: 8.0,
                step: 1.0,
                unit: "units",
                format: whole,
            },
        },
        ControlSpec {
            key: "order",
            label: "Prefill first (chunked mode): spend the budget on prefill before decode",
            hint: "",
            kind: ControlKind::Check,
        },
        ControlSpec {
            key: "seed",
            label: "Seed of the random trace",
            hint: "",
            kind: ControlKind::Number,
        },
    ]
}

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Engine batching</h1><p class="lede">One stream of requests through one engine, three ways. Static batching waits for a whole batch to finish; continuous batching refills slots every iteration but stalls every decoding sequence whenever a prompt is being prefilled; chunked prefill lets prefill ride along with decode. Step through and watch the grid.</p><p class="small muted">Iterations are abstract engine steps; prefill work is counted in whole chunks. Follows §7.2 of the reference article.</p>"#;
