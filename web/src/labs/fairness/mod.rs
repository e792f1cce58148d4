//! The fairness page (article §8): tenants of different shapes on one
//! engine, five schedulers on the same requests, an iteration-by-iteration
//! player of the scheduler in focus.

/// The chart spec.
pub mod chart;
/// The page's own panels (tables, readouts).
pub mod panel;
/// What the stage draws and says at one step.
pub mod scene;

use sim_core::choice::Choice;
use sim_core::labs::fairness::{FairnessLab as Lab, SchedulerRun, TENANTS};

use crate::labs::fairness::panel::{percent, tenants};
use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, Seek, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the scheduler in focus (recorded by the page's run).
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a SchedulerRun> {
    v.outcome.run(v.focus?)
}

/// Most weighted service per iteration over least, across tenants (1 is
/// equal service).
fn spread(r: &SchedulerRun) -> f64 {
    let (lo, hi) = r
        .tenants
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
            (lo.min(t.service), hi.max(t.service))
        });
    if lo > 0.0 {
        hi / lo
    } else {
        f64::INFINITY
    }
}

/// The spread in words: a tenant with no service at all makes it infinite.
fn spread_text(x: f64) -> String {
    if x.is_finite() {
        format!("{}×", fixed(x, 2))
    } else {
        "∞ (one starved)".into()
    }
}

/// TTFT P95 of the interactive tenant (chat).
fn chat_ttft(r: &SchedulerRun) -> f64 {
    TENANTS
        .iter()
        .position(|s| s.interactive)
        .and_then(|t| r.tenants.get(t))
        .map_or(0.0, |t| t.ttft_p95)
}

/// The slowest tenant's TTFT P95.
fn worst_ttft(r: &SchedulerRun) -> f64 {
    r.tenants.iter().map(|t| t.ttft_p95).fold(0.0, f64::max)
}

fn preempted(r: &SchedulerRun) -> f64 {
    r.tenants.iter().map(|t| f64::from(t.preempted)).sum()
}

/// The scheduler in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    let (spread, unit) = match spread(r) {
        x if x.is_finite() => (spread_text(x), ""),
        _ => ("∞".to_string(), "a tenant got none"),
    };
    view! {
        <h2>{format!("{} over the whole run", r.scheduler.title())}</h2>
        <div class="cards">
            {card(
                "card-spread",
                "Service spread",
                &spread,
                unit,
                "Most weighted token service a tenant got per iteration over the least (1× is equal service; infinite when a tenant got none).",
            )}
            {card(
                "card-chat-ttft",
                "Chat TTFT P95",
                &fixed(chat_ttft(r), 0),
                "iterations",
                "95% of the interactive tenant's requests had their first token within this many iterations.",
            )}
            {card(
                "card-cache",
                "Cache share",
                &percent(r.cache_share),
                "",
                "Share of all prompt tokens served from the prefix cache instead of computed.",
            )}
            {card(
                "card-preempted",
                "Preempted",
                &fixed(preempted(r), 0),
                "sequences",
                "Batch sequences evicted to make room for interactive requests; each starts over.",
            )}
        </div>
    }
    .into_any()
}

/// The comparison's columns.
pub(crate) const COLS: [Column<SchedulerRun>; 5] = [
    Column {
        title: "Service spread",
        meaning: "most weighted service per iteration over the least, across tenants",
        value: spread,
        show: spread_text,
        higher_is_better: false,
    },
    Column {
        title: "Chat TTFT P95",
        meaning: "iterations to the interactive tenant's first token, 95th percentile",
        value: chat_ttft,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Worst TTFT P95",
        meaning: "the slowest tenant's TTFT P95, iterations",
        value: worst_ttft,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Cache share",
        meaning: "share of all prompt tokens served from the prefix cache",
        value: |r| r.cache_share,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: true,
    },
    Column {
        title: "Preempted",
        meaning: "batch sequences evicted, each to start over",
        value: preempted,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
];

/// Every scheduler over the whole run; rows pick the player's scheduler.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "fairness-compare",
        "Scheduler",
        &v.outcome.runs,
        &COLS,
    )
}

impl FocusRow for SchedulerRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.scheduler
    }
}

/// Under the comparison: what the spread measures.
fn note(_: &View<'_, Lab>) -> AnyView {
    view! {
        <p class="small muted">
            "Service spread compares weighted token service per iteration across tenants (input at the input weight, output at the output weight): 1× is equal service. Pick a row to play that scheduler. ★ marks the best value in each column."
        </p>
    }
    .into_any()
}

fn moments(v: &View<'_, Lab>) -> Vec<usize> {
    run(v)
        .map(|r| crate::ui::scene::moment_steps(r.steps(), |s| s.moment.is_some()))
        .unwrap_or_default()
}

/// The fairness lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Tenants and weights",
    player: Some(Player {
        heading: "",
        records: true,
        side_by_side: false,
        len: |v| run(v).map_or(0, |r| r.steps().len()),
        moments,
        narrate: |v| {
            run(v)
                .map(|r| crate::labs::fairness::scene::narrate(r, v.step()))
                .unwrap_or_default()
        },
        scene: |v, width, palette| {
            crate::labs::fairness::scene::scene(run(v)?, v.config, v.step(), width, palette)
        },
        legend: LEGEND_HTML,
        detail: |_| ().into_any(),
        ..Player::PLAIN
    }),
    cards: Some(cards),
    tables: &[|v, _| run(v).map(tenants).into_any()],
    charts: &[Chart::<Lab>::new(
        "service-chart",
        |v| {
            run(v).map_or_else(String::new, |r| {
                format!("Weighted tokens served so far, per tenant, under {}", r.scheduler.title())
            })
        },
        |v, _| chart::spec(run(v)?, v.step()),
        |v| run(v).map(chart::summary).unwrap_or_default(),
    )
    .seek(Seek::FromOne)
    .help("Each line is one tenant's weighted token service so far: input tokens at the input weight plus output tokens at the output weight, the measure VTC equalises. Lines that climb at the same slope are tenants served alike; a line that flattens is a tenant kept waiting. Under first come, first served the tenant that sends the most gets the most; under VTC the lines climb together, since the tenant that has had the least goes next. Click to move the player there.")],
    comparison: Some(Comparison {
        heading: "The five schedulers on the same tenants",
        table: compare,
        note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">Rows: each tenant's waiting requests and the scheduler's count for it (lowest goes next). Slots: a square computes its prompt, a circle decodes, a ring found its shared prompt cached. Bottom: GPU time so far, by tenant.</p>"#;

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Fairness between tenants</h1><p class="lede">Four tenants share one engine: one sends long prompts, one asks for long answers, one chats in many small requests, and one sends bursts of requests that all start with the same long system prompt. Whoever the scheduler counts in requests, in tokens or in weighted service gets a different share of the GPU, and spreading tenants out for fairness breaks up the runs that keep a shared prompt in the cache. Play a scheduler and watch whose request goes next, and why.</p><p class="small muted">One step is one engine iteration; GPU time is counted in prompt-token units, an output token costing more. Follows §8 of the reference article.</p>"#;
