//! The disaggregation page (article §7.3): prefill and decode on separate
//! GPUs against every GPU doing both, Dynamo's conditional policies between
//! them, and the prompt length from which the split pays.

/// The chart spec.
pub mod chart;

use sim_core::choice::Choice;
use sim_core::labs::disagg::{Crossover, DisaggLab as Lab, Setup, SetupRun};

use leptos::prelude::*;

use crate::page::{Chart, Comparison, Page, View};
use crate::ui::format::{fixed, thousands};
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Compare, Pick};

/// The crossover as a card's value and unit; the unit carries the length
/// where the split falls behind again, so the card gives the whole window
/// the chart shades, not only its start.
fn crossover(c: Crossover, until: Option<f64>) -> (String, String) {
    let value = match c {
        Crossover::At(t) => thousands(t.round() as u64),
        Crossover::Below => "≤ 256".into(),
        Crossover::Never => return ("none".into(), "up to 32,768 tokens".into()),
    };
    let unit = match until {
        Some(t) => format!("to {} tokens", thousands(t.round() as u64)),
        None => "to 32,768+ tokens".into(),
    };
    (value, unit)
}

/// The run of `setup`.
fn of<'a>(v: &View<'a, Lab>, setup: Setup) -> Option<&'a SetupRun> {
    v.outcome.runs.iter().find(|r| r.setup == setup)
}

/// The crossover, and what the split changes at the prompt length set.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let (Some(co), Some(di)) = (of(v, Setup::Colocated), of(v, Setup::Disagg)) else {
        return ().into_any();
    };
    let c = v.config;
    let (value, unit) = crossover(v.outcome.crossover, v.outcome.until);
    let heading = format!(
        "At {} prompt tokens, {} prefill and {} decode engines",
        thousands(c.prompt.into()),
        c.prefill,
        c.decode
    );
    let pays = format!(
        "Mean prompt lengths over which the plain split's mean latency (arrival to last token) is below the colocated pool's, at {} req/s and {} GB/s: the shaded window on the chart. Past its end the {} prefill GPUs cannot keep up.",
        fixed(c.rate, 1),
        fixed(c.bandwidth, 1),
        c.prefill
    );
    let tpot = format!(
        "95th percentile time per output token with decode GPUs that never prefill; colocated {} ms.",
        fixed(co.tpot_p95, 2)
    );
    let ttft = format!(
        "Median time to first token with the KV sent over the link; colocated {} ms.",
        fixed(co.ttft_p50, 1)
    );
    let transfer = format!(
        "Mean time from a prompt's last chunk to its KV on the decode GPU: {} ms fixed plus the bytes, queueing on the link included.",
        fixed(c.hop, 1)
    );
    view! {
        <h2>{heading}</h2>
        <div class="cards">
            {card("card-crossover", "Split ahead from", &value, &unit, &pays)}
            {card("card-tpot", "TPOT P95, split", &fixed(di.tpot_p95, 2), "ms", &tpot)}
            {card("card-ttft", "TTFT P50, split", &fixed(di.ttft_p50, 1), "ms", &ttft)}
            {card("card-transfer", "KV transfer", &fixed(di.transfer, 1), "ms", &transfer)}
        </div>
    }
    .into_any()
}

fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 0))
}

/// The comparison's columns.
pub(crate) const COLS: [Column<SetupRun>; 6] = [
    Column {
        title: "TTFT P50 (ms)",
        meaning: "median time to first token",
        value: |r| r.ttft_p50,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "TTFT P95 (ms)",
        meaning: "95th percentile time to first token",
        value: |r| r.ttft_p95,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "TPOT P50 (ms)",
        meaning: "median time per output token after the first",
        value: |r| r.tpot_p50,
        show: |x| fixed(x, 2),
        higher_is_better: false,
    },
    Column {
        title: "TPOT P95 (ms)",
        meaning: "95th percentile over requests of the time per output token",
        value: |r| r.tpot_p95,
        show: |x| fixed(x, 2),
        higher_is_better: false,
    },
    Column {
        title: "Mean latency (ms)",
        meaning: "arrival to last token, mean over requests",
        value: |r| r.e2e,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "From cache",
        meaning: "share of prompt tokens a GPU already cached",
        value: |r| r.cached,
        show: percent,
        higher_is_better: true,
    },
];

/// Every setup at the prompt length set (nothing to pick: the page has no
/// focus).
fn compare(v: &View<'_, Lab>, _: Pick) -> AnyView {
    Compare {
        id: "disagg-compare",
        caption: "",
        first: "Setup",
        items: &v.outcome.runs,
        title: |r| r.setup.title(),
        key: None,
        selected: &|_| false,
        columns: &COLS,
        so_far: false,
    }
    .view(None)
}

/// What each setup does, and the decode router in use.
fn details(v: &View<'_, Lab>, _: Pick) -> AnyView {
    let defs = v
        .outcome
        .runs
        .iter()
        .map(|r| {
            let local = format!(
                "{} Prefilled on a GPU that decodes: {}.",
                r.setup.blurb(),
                percent(r.local)
            );
            view! {
                <dt>{r.setup.title()}</dt>
                <dd>{local}</dd>
            }
        })
        .collect_view();
    let r = v.config.decode_router;
    view! {
        <dl class="small definitions">{defs}</dl>
        <p class="small muted">{format!("Decode router: {}. {}", r.title(), r.blurb())}</p>
    }
    .into_any()
}

/// Under the comparison: how the columns are measured.
fn note(_: &View<'_, Lab>) -> AnyView {
    view! {
        <p class="small muted">
            "Every setup sees the same requests on the same GPUs. Time per output token is each request's decode time over its tokens after the first; a prompt prefilled beside running decodes stretches their steps. ★ marks the best value in each column."
        </p>
    }
    .into_any()
}

/// The disaggregation lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Traffic, link and split",
    cards: Some(cards),
    charts: &[Chart::<Lab>::new(
        "latency-chart",
        |_| "Mean latency against the colocated pool, by mean prompt length".into(),
        |v, _| Some(chart::spec(v.outcome)),
        |v| chart::summary(v.outcome),
    )
    .help("Each line is one setup's mean request latency (arrival to last token) as a percentage above or below the colocated pool's, on the same requests, as the mean prompt grows. The shaded window is where the plain split (Disaggregated) is ahead of the colocated pool, the same window as the card. Left of it the colocated pool is ahead: a short prompt barely delays the decodes it shares a step with, and the transfer costs more than that. Right of it the split's prefill GPUs cannot keep up and its line leaves the top of the chart; the prefill-load rule then prefills on the decode GPUs instead.")],
    comparison: Some(Comparison {
        heading: "The five setups at the prompt length set",
        table: compare,
        note,
    }),
    tables: &[details],
    defer: |_, _| true,
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Prefill and decode apart</h1><p class="lede">Prefill is bound by compute and decode by memory bandwidth, so a long prompt prefilled beside running decodes slows every one of them. Split the GPUs into a prefill pool and a decode pool and the decodes run undisturbed, but each prompt's KV cache must cross a link first. Sweep the prompt length and find where the split starts to pay; change the link and watch that point move.</p><p class="small muted">Times in milliseconds from the GPU and model presets. Follows §7.3 of the reference article (Splitwise and DistServe, 2024; Dynamo's conditional disaggregation).</p>"#;
