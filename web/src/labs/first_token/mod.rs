//! The first-token page (article §9.4–9.5): four recovery strategies on the
//! same conversations and failures, a reasoning model's hidden tokens
//! moving the point after which a failure is one the user sees.

/// The chart spec.
pub mod chart;
/// What the player's stage draws and says at one frame.
pub mod scene;

use sim_core::choice::Choice;
use sim_core::labs::first_token::{FirstTokenLab as Lab, RecoveryRun};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, View};
use crate::ui::format::{fixed, thousands};
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the strategy in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a RecoveryRun> {
    v.outcome.run(v.focus?)
}

/// Milliseconds as seconds with one decimal.
fn secs(ms: f64) -> String {
    fixed(ms / 1000.0, 1)
}

/// The strategy in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    let ttfvt = format!(
        "95% of turns showed their first visible token within this, reasoning included; the median was {} s and the 99th percentile {} s.",
        secs(r.ttfvt_p50),
        secs(r.ttfvt_p99)
    );
    let seen = format!(
        "Turns that failed where the user saw it, of {}: {} errors before any token and {} streams broken mid-answer{}.",
        thousands(r.requests.into()),
        r.errors,
        r.broken,
        if r.resumed > 0 {
            format!("; {} more were resumed from the text shown", r.resumed)
        } else {
            String::new()
        }
    );
    let unseen = format!(
        "Turns that met a failure before their first visible token and were answered anyway ({} attempt failures before it, {} after).",
        r.failures_before, r.failures_after
    );
    view! {
        <h2>{format!("Strategy: {}", r.recovery.title())}</h2>
        <div class="cards">
            {card("card-ttfvt-p95", "First visible token P95", &secs(r.ttfvt_p95), "s", &ttfvt)}
            {card("card-seen", "Failures seen", &r.visible_failures().to_string(), "turns", &seen)}
            {card("card-unseen", "Recovered unseen", &r.recovered.to_string(), "turns", &unseen)}
            {card(
                "card-interactive",
                "Interactive P95",
                &secs(r.interactive_p95),
                "s",
                "The same 95th percentile for the low-effort turns alone (every turn of a plain model): what long reasoning sharing the batch costs a quick question.",
            )}
        </div>
    }
    .into_any()
}

/// The comparison's columns: what became of the failures first (the
/// lab's question, and what a phone shows before the table scrolls), then
/// the waits and the costs.
pub(crate) const COLS: [Column<RecoveryRun>; 9] = [
    Column {
        title: "Errors",
        meaning: "turns that failed before showing anything, with no attempt left",
        value: |r| f64::from(r.errors),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Broken",
        meaning: "streams that failed after the user had seen part of the answer",
        value: |r| f64::from(r.broken),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Resumed",
        meaning: "streams that failed mid-answer and went on from the text shown, on another replica",
        value: |r| f64::from(r.resumed),
        show: |x| fixed(x, 0),
        higher_is_better: true,
    },
    Column {
        title: "Per hedge",
        meaning: "what one hedge's cancelled copy decoded, as a share of a whole answer (hidden and visible tokens)",
        // No hedges, no figure (not a best 0%).
        value: |r| if r.hedges == 0 { f64::NAN } else { r.hedge_cost },
        show: |x| {
            if x.is_nan() {
                "–".into()
            } else {
                format!("{}%", fixed(x * 100.0, 0))
            }
        },
        higher_is_better: false,
    },
    Column {
        title: "First token P95",
        meaning: "seconds to the first visible token, 95th percentile of the turns that showed one",
        value: |r| r.ttfvt_p95,
        show: secs,
        higher_is_better: false,
    },
    Column {
        title: "P99",
        meaning: "the same, 99th percentile",
        value: |r| r.ttfvt_p99,
        show: secs,
        higher_is_better: false,
    },
    Column {
        title: "Interactive P95",
        meaning: "the 95th percentile for low-effort turns (every turn of a plain model)",
        value: |r| r.interactive_p95,
        show: secs,
        higher_is_better: false,
    },
    Column {
        title: "Hedge tokens",
        meaning: "tokens decoded by cancelled hedge copies, as a share of all tokens decoded",
        value: |r| r.hedge_share,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: false,
    },
    Column {
        title: "Cache share",
        meaning: "share of prompt tokens a replica already held for the conversation at that effort",
        value: |r| r.cache_share,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: true,
    },
];

/// Every strategy on the same conversations; rows pick the one in focus.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "first-token-compare",
        "Strategy",
        &v.outcome.runs,
        &COLS,
    )
}

impl FocusRow for RecoveryRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.recovery
    }
}

/// Under the comparison: what the strategies share.
fn note(v: &View<'_, Lab>) -> AnyView {
    let o = v.outcome;
    let text = format!(
        "Every strategy sees the same {} conversations and, attempt by attempt, the same failure draws: replica 1 fails {}% of its attempts and replica 2 runs {}× slower. A failure falls anywhere in an attempt's output, so with reasoning on, part of them fall while nothing is shown yet. Pick a row to focus on it. ★ marks the best value in each column.",
        thousands(o.conversations.into()),
        fixed(o.config.faulty * 100.0, 0),
        fixed(o.config.slow, 1)
    );
    view! { <p class="small muted">{text}</p> }.into_any()
}

/// The first-token page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Model, failures and routing",
    player: Some(Player {
        records: true,
        len: |v| run(v).map_or(0, |r| r.timeline.len()),
        moments: |v| {
            run(v)
                .map(|r| crate::ui::scene::moment_steps(&r.timeline, |s| s.moment.is_some()))
                .unwrap_or_default()
        },
        narrate: |v| run(v).map(|r| scene::narrate(r, v.config, v.step())).unwrap_or_default(),
        scene: |v, width, palette| scene::scene(run(v)?, v.config, v.step(), width, palette),
        legend: LEGEND_HTML,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    charts: &[Chart::<Lab>::new(
        "first-token-chart",
        |_| "Where each strategy's failures ended up".into(),
        |v, _| chart::spec(v.outcome),
        |v| chart::summary(v.outcome),
    )
    .help("One group of bars per strategy: attempt failures that came before the first visible token and were hidden by a retry or a hedge, the errors and broken streams the user saw, and the streams resumed from the text already shown. Without reasoning most failures fall after the first token, where only resuming helps.")],
    comparison: Some(Comparison {
        heading: "The four strategies on the same conversations",
        table: compare,
        note,
    }),
    defer: |_, _| true,
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">Each row is one request laid over its tokens: grey is hidden reasoning, the dark line the first visible token (the commitment point), the filled part on its right the answer the user has read. A dot is an attempt in its replica's colour and number, smaller while it waits in a queue, ringed when it is a hedge copy (accent) or a retry or resume (red); a red tick marks where an attempt failed. Rows follow failures and hedges first.</p>"#;

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>The first token</h1><p class="lede">A retry, a hedge or a failover can only act while the user has seen nothing. Once the first token is on screen, a failure is a broken answer, unless the application asks another replica to go on from the text already shown. A reasoning model thinks before it answers, so that moment comes later: failures during its reasoning are still invisible, and the effort a request asks for tells the gateway at dispatch how long it will run. Turn reasoning off and watch the broken streams grow; send high effort to its own pool and watch quick questions speed up.</p><p class="small muted">Times in seconds; the simulation steps 10 ms at a time. Follows §9.4 and §9.5 of the reference article.</p>"#;
