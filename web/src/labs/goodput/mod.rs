//! The goodput lab page (article §1.2, §4.2): the Routing Lab's workload (or a
//! trace) offered at rising rates; SLO attainment and goodput per rule, and
//! each rule's capacity read off the sweep.

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::goodput::{GoodputLab as Lab, Outcome};
use sim_core::labs::Lab as _;
use sim_core::routing::RuleKind;

use super::lab::{LabPage, Steps};
use crate::charts::goodput;
use crate::components::{ChartError, Controls, ErrorLine, Notice, RunStatus, TracePanel};
use crate::format::{fixed, percent};
use crate::html::{el, Cell, Html, Markup, Row, Table};

/// The page header.
fn header() -> Html {
    el("div")
        .child(el("h1").text(Lab::INFO.title))
        .child(el("p").class("lede").text(
            "Offer the same kind of traffic at rising rates and watch each rule's share of requests \
             within the TTFT objective fall. A rule's capacity is the highest rate at which it still \
             keeps the target share: the number to size a fleet by, not peak throughput.",
        ))
        .child(el("p").class("small muted").text(
            "Open loop: requests arrive on schedule whether or not earlier ones finished. Goodput counts \
             only requests whose first token met the objective. A tick is one engine iteration. \
             Follows §1.2 and §4.2 of the reference article.",
        ))
        .into()
}

/// Capacity per rule; the rule in focus highlighted, each name a button.
fn capacity_table(o: &Outcome, focus: RuleKind, pickable: bool) -> Html {
    let last = o.points.last();
    Table {
        id: "capacity-table",
        class: "capacity",
        caption: format!(
            "Capacity: highest swept rate with at least {} of requests within the SLO",
            percent(o.config.slo_target)
        ),
        head: [
            ("Rule", ""),
            ("Capacity", "requests per tick"),
            (
                "SLO met at the highest rate",
                "share of requests within the TTFT SLO",
            ),
            (
                "Best goodput",
                "requests per tick within the SLO, best over the sweep",
            ),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
        rows: o
            .capacities
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let cap = match (c.rate, c.beyond_sweep) {
                    (None, _) => String::from("below the sweep"),
                    (Some(r), true) => format!("≥ {}", fixed(r, 2)),
                    (Some(r), false) => fixed(r, 2),
                };
                let best = o
                    .points
                    .iter()
                    .filter_map(|p| p.rules.get(k).map(|r| r.goodput))
                    .fold(0.0f64, f64::max);
                Row {
                    cells: vec![
                        Cell::new(c.rule.title()),
                        Cell::new(cap),
                        Cell::new(
                            last.and_then(|p| p.rules.get(k))
                                .map(|r| percent(r.slo_attainment))
                                .unwrap_or_default(),
                        ),
                        Cell::new(fixed(best, 3)),
                    ],
                    selected: c.rule == focus,
                    key: pickable.then_some(c.rule.name()),
                }
            })
            .collect(),
    }
    .html()
}

/// The goodput lab.
#[component]
pub fn GoodputLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let lab = LabPage::<Lab>::new(&pairs, Steps::None);
    let (focus, outcome) = (lab.focus, lab.outcome);
    let set_focus = lab.set_focus();
    let pickable = lab.focus_open();
    let rule = move || RuleKind::from_name(focus.get()).unwrap_or(RuleKind::LeastOutstanding);
    let slo_ref = NodeRef::<Canvas>::new();
    let goodput_ref = NodeRef::<Canvas>::new();
    let slo_error = super::draw_effect(
        slo_ref,
        Arc::new(move |_| outcome.with(|o| o.as_ref().map(|o| goodput::slo_spec(o, rule())))),
    );
    let goodput_error = super::draw_effect(
        goodput_ref,
        Arc::new(move |_| outcome.with(|o| o.as_ref().map(|o| goodput::goodput_spec(o, rule())))),
    );
    let summary = move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| goodput::summary(o, rule()))
                .unwrap_or_default()
        })
    };
    let import_summary = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.import.as_ref())
                .map(|i| i.summary())
        })
    });
    view! {
        <article class="lab" id="goodput-lab">
            <header class="lab-header"><Markup html=header() /></header>
            <Notice messages=lab.notices.clone() />
            <ErrorLine error=move || outcome.error() />
            <RunStatus status=lab.status unit="runs" />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls" data-panel="controls">
                    <h2>"Sweep and workload"</h2>
                    <Controls specs=lab.control_specs() get=lab.getter() set=lab.setter() />
                    <TracePanel trace=lab.trace import=lab.import set=lab.setter() summary=import_summary />
                </section>
                <section class="results" aria-label="Results">
                    <div data-panel="cards">
                        <h2>{move || format!("Capacity of {}", rule().title())}</h2>
                        <p id="goodput-summary">{summary}</p>
                    </div>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"Share of requests within the TTFT SLO, by offered rate"</figcaption>
                        <canvas node_ref=slo_ref id="slo-chart" role="img" aria-label=summary></canvas>
                        <ChartError error=slo_error />
                    </figure>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"Goodput: requests per tick that met the SLO"</figcaption>
                        <canvas node_ref=goodput_ref id="goodput-chart" role="img" aria-label=summary></canvas>
                        <ChartError error=goodput_error />
                        <details>
                            <summary>"What am I looking at?"</summary>
                            <p class="small">
                                "While a rule keeps up, goodput rises with the offered rate. Past its capacity, "
                                "queues grow faster than they drain, more requests miss the objective, and goodput "
                                "stops rising or falls even though the replicas are busier than ever. The horizontal "
                                "line on the first chart is the share a rate must keep to count as within capacity."
                            </p>
                        </details>
                    </figure>
                </section>
            </div>
            <section class="comparison" aria-label="Capacity of every rule" data-panel="table">
                <div on:click=move |ev| {
                    if let Some(r) = crate::html::clicked_key(&ev).and_then(|k| RuleKind::from_name(&k)) {
                        set_focus(r.name());
                    }
                }>
                    <Markup html=move || outcome.with(|o| o.as_ref().map(|o| capacity_table(o, rule(), pickable)).unwrap_or_default()) />
                </div>
            </section>
        </article>
    }
}
