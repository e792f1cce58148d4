//! Hedging (§9.2): duplicates after a percentile threshold, against never and
//! always duplicating; for LLM calls, hedging only until the first token.

/// The chart spec.
pub mod chart;

use leptos::prelude::*;
use sim_core::labs::queueing::hedging::{self, HedgingLab};

use crate::page::{Chart, Page, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{Cell, Pick, Row, Table};

/// Display name and one-line meaning of a strategy.
fn describe(name: &str, at: &str) -> (String, &'static str) {
    match name {
        "none" => ("No hedging".into(), "one request, whatever it takes"),
        "hedge" => (
            format!("Hedge at P{at}"),
            "a duplicate once the threshold passes; the slower copy is cancelled",
        ),
        "always" => (
            "Always duplicate".into(),
            "two copies of every request from the start",
        ),
        "hedge-first-token" => (
            "Hedge to first token".into(),
            "race to the first token, then cancel the loser: only prefill is duplicated",
        ),
        _ => (
            "Hedge, both decode".into(),
            "the same hedge, but both copies run to their last token",
        ),
    }
}

/// Every strategy's display name.
fn names(o: &hedging::Outcome) -> Vec<String> {
    let at = fixed(o.config.hedge_at, 1);
    o.strategies
        .iter()
        .map(|s| describe(&s.strategy, &at).0)
        .collect()
}

/// The table's columns: title, meaning, value.
pub(crate) type Col = (&'static str, &'static str, fn(&hedging::Strategy) -> f64);

/// P50, P95, P99, extra requests, extra GPU work.
pub(crate) const COLUMNS: [Col; 5] = [
    ("P50 (ms)", "median latency", |s| s.p50),
    ("P95 (ms)", "95th percentile latency", |s| s.p95),
    ("P99 (ms)", "99th percentile latency", |s| s.p99),
    (
        "Extra requests",
        "duplicates sent, as a share of requests",
        |s| s.extra_load,
    ),
    (
        "Extra GPU work",
        "server time spent on duplicates until cancelled, as a share of the work without hedging",
        |s| s.extra_work,
    ),
];

/// Whether larger is better, per column: never here (latency, extra
/// requests and extra work all cost).
pub(crate) const HIGHER: [bool; 5] = [false; 5];

/// Column `c`'s value as shown: latencies in whole ms, shares as
/// percentages with one decimal.
fn show(c: usize, v: f64) -> String {
    if c < 3 {
        fixed(v, 0)
    } else {
        format!("{}%", fixed(v * 100.0, 1))
    }
}

/// Every strategy's cells as shown.
fn cells(o: &hedging::Outcome) -> Vec<Vec<String>> {
    o.strategies
        .iter()
        .map(|s| (0..5).map(|c| show(c, (COLUMNS[c].2)(s))).collect())
        .collect()
}

/// The threshold and the strategies' table.
fn head(v: &View<'_, HedgingLab>) -> AnyView {
    let (o, cfg) = (v.outcome, &v.outcome.config);
    let at = fixed(cfg.hedge_at, 1);
    let (names, cells) = (names(o), cells(o));
    let rows = o
        .strategies
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut row = vec![
                Cell::new(names[i].clone()).swatch(crate::ui::theme::replica_hex(
                    crate::labs::queueing::hedging::chart::COLORS[i % 5],
                )),
            ];
            row.extend((0..5).map(|c| {
                // Ties judged on what is shown.
                let values = o.strategies.iter().map(|t| (COLUMNS[c].2)(t));
                let best = if HIGHER[c] {
                    values.fold(f64::MIN, f64::max)
                } else {
                    values.fold(f64::MAX, f64::min)
                };
                Cell::new(cells[i][c].clone())
                    .best(show(c, best) == cells[i][c] && (COLUMNS[c].2)(s).is_finite())
            }));
            Row {
                cells: row,
                ..Row::default()
            }
        })
        .collect();
    let mut head_cols = vec![("Strategy".to_string(), String::new())];
    head_cols.extend(COLUMNS.iter().map(|c| (c.0.to_string(), c.1.to_string())));
    let table = Table {
        id: "strategies",
        class: "compare",
        caption: "Every strategy on the same latency draws".into(),
        head: head_cols,
        rows,
    }
    .view(None);
    let first_token = format!(
        " (first-token threshold {} ms), over {} seeded requests.",
        fixed(o.threshold * cfg.ttft_share, 0),
        crate::ui::format::thousands(cfg.requests.into())
    );
    view! {
        <h2>"Latency and what it costs"</h2>
        <p class="small">
            {format!("Threshold: P{at} = ")}
            <strong id="threshold">{format!("{} ms", fixed(o.threshold, 0))}</strong>
            {first_token}
        </p>
        {table}
    }
    .into_any()
}

/// What each strategy does.
fn details(v: &View<'_, HedgingLab>, _: Pick) -> AnyView {
    let o = v.outcome;
    let at = fixed(o.config.hedge_at, 1);
    let definitions = o
        .strategies
        .iter()
        .map(|s| {
            let (name, meaning) = describe(&s.strategy, &at);
            view! { <dt>{name}</dt><dd>{meaning}</dd> }
        })
        .collect_view();
    view! {
        <dl class="small definitions">{definitions}</dl>
        <p class="small muted">
            "Latencies: log-normal, mean 220 ms, plus the slow tail you set. ★ marks each column's best."
        </p>
    }
    .into_any()
}

/// The chart in words.
fn summary(v: &View<'_, HedgingLab>) -> String {
    let cells = cells(v.outcome);
    let at = fixed(v.outcome.config.hedge_at, 1);
    format!(
        "P99 latency against extra GPU work: no hedging {} ms at no cost; hedging at P{at} {} ms for {} more work; always duplicating {} ms for {} more; hedging to the first token {} ms for {} more.",
        cells[0][2], cells[1][2], cells[1][4], cells[2][2], cells[2][4], cells[3][2], cells[3][4],
    )
}

/// The hedging page.
pub static PAGE: Page<HedgingLab> = Page {
    intro: crate::intro!(|| Html::trusted(INTRO)),
    cards: Some(head),
    charts: &[Chart::new(
        super::CHART,
        |_| "Tail latency against the GPU work each strategy adds".into(),
        |v, _| {
            Some(crate::labs::queueing::hedging::chart::spec(
                v.outcome,
                &names(v.outcome),
            ))
        },
        summary,
    )
    .help(HELP)],
    tables: &[details],
    defer: |_, _| true,
    ..Page::EMPTY
};

impl crate::page::LabPage for HedgingLab {
    const PAGE: &'static Page<Self> = &PAGE;
}

const INTRO: &str = r#"<h1>Hedged requests</h1><p class="lede">Send a second copy only once a request is slower than most: the tail shrinks and only the slow few are duplicated. Compare with never and always duplicating, and with racing LLM calls only to the first token.</p><p class="small muted">After Dean and Barroso, “The Tail at Scale” (2013). Follows §9.2 of the reference article.</p>"#;

const HELP: &str = "One dot per strategy: its 99th-percentile latency (lower is better) against the extra server work its duplicates cost (left is cheaper). The two LLM hedges share a latency; cancelling at the first token spends only the loser's prefill. Sliders apply when released (each run draws 100,000 requests).";
