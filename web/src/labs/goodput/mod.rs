//! The goodput lab page (article §1.2, §4.2): the Routing Lab's workload (or a
//! trace) offered at rising rates; SLO attainment and goodput per rule, and
//! each rule's capacity read off the sweep.

/// The chart spec.
pub mod chart;

use sim_core::choice::Choice;
use sim_core::labs::goodput::{GoodputLab as Lab, Outcome};
use sim_core::labs::Lab as _;
use sim_core::routing::RuleKind;

use leptos::prelude::*;

use crate::page::{Chart, Comparison, Page, View};
use crate::ui::format::{fixed, percent};
use crate::ui::html::Html;
use crate::ui::table::{Cell, Pick, Row, Table};

/// The page header: static prose under the lab's registered title.
fn header() -> Html {
    let mut header = Html::trusted("<div><h1>");
    header.push_text(Lab::INFO.title);
    header.push(Html::trusted(HEADER_REST_HTML));
    header
}

/// The header after its title (static).
const HEADER_REST_HTML: &str = r#"</h1><p class="lede">Offer the same kind of traffic at rising rates and watch each rule's share of requests within the TTFT objective fall. A rule's capacity is the highest rate at which it still keeps the target share: the number to size a fleet by, not peak throughput.</p><p class="small muted">Open loop: requests arrive on schedule whether or not earlier ones finished. Goodput counts only requests whose first token met the objective. A tick is one engine iteration; choose a GPU to price iterations in milliseconds and sweep rates per second. Follows §1.2 and §4.2 of the reference article.</p></div>"#;

/// Capacity per rule; the rule in focus highlighted, each name a button
/// that picks it (when `pick` is given).
fn capacity_table(o: &Outcome, focus: RuleKind, pick: Option<Pick>) -> AnyView {
    let last = o.points.last();
    let ms = o.config.routing.timing.in_ms();
    Table {
        id: "capacity-table",
        class: "capacity",
        caption: format!(
            "Capacity: highest swept rate with at least {} of requests within the SLO",
            percent(o.config.slo_target)
        ),
        head: [
            ("Rule", ""),
            (
                "Capacity",
                if ms {
                    "requests per second"
                } else {
                    "requests per tick"
                },
            ),
            (
                "SLO met at the highest rate",
                "share of requests within the TTFT SLO",
            ),
            (
                "Best goodput",
                if ms {
                    "requests per second within the SLO, best over the sweep"
                } else {
                    "requests per tick within the SLO, best over the sweep"
                },
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
                    key: Some(c.rule.name()),
                }
            })
            .collect(),
    }
    .view(pick)
}

/// The rule in focus, its capacity in a sentence.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(rule) = v.focus else {
        return ().into_any();
    };
    view! {
        <h2>{format!("Capacity of {}", rule.title())}</h2>
        <p id="goodput-summary">{chart::summary(v.outcome, rule)}</p>
    }
    .into_any()
}

/// Both charts in words.
fn summary(v: &View<'_, Lab>) -> String {
    v.focus
        .map(|rule| chart::summary(v.outcome, rule))
        .unwrap_or_default()
}

/// The goodput lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: header,
    inputs: "Sweep and workload",
    imported: Some(|v| v.outcome.import.as_ref().map(|i| i.summary())),
    progress: "runs",
    cards: Some(cards),
    charts: &[
        Chart::<Lab>::new(
            "slo-chart",
            |_| "Share of requests within the TTFT SLO, by offered rate".into(),
            |v, _| Some(chart::slo_spec(v.outcome, v.focus?)),
            summary,
        ),
        Chart::<Lab>::new(
            "goodput-chart",
            |v| {
                format!(
                    "Goodput: requests per {} that met the SLO",
                    if v.config.routing.timing.in_ms() {
                        "second"
                    } else {
                        "tick"
                    }
                )
            },
            |v, _| Some(chart::goodput_spec(v.outcome, v.focus?)),
            summary,
        )
        .help(
            "While a rule keeps up, goodput rises with the offered rate. Past its capacity, \
             queues grow faster than they drain, more requests miss the objective, and goodput \
             stops rising or falls even though the replicas are busier than ever. The horizontal \
             line on the first chart is the share a rate must keep to count as within capacity.",
        ),
    ],
    comparison: Some(Comparison {
        heading: "Capacity of every rule",
        table: |v, pick| {
            v.focus
                .map(|rule| capacity_table(v.outcome, rule, v.pickable.then_some(pick)))
                .into_any()
        },
        note: |_| ().into_any(),
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}
