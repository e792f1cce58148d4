//! The evaluate page (article §15 and §10.1): a new routing rule tried the
//! ways an operator would (canaries per request or per session, split
//! pools, shadow traffic) against the truth of each rule on the whole pool;
//! warm-up, open and closed loops, and a semantic cache's outage.

/// The chart specs.
pub mod chart;

use sim_core::choice::Choice;
use sim_core::labs::evaluate::{DesignRun, EvaluateLab as Lab, Warmth};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, View};
use crate::ui::format::{fixed, thousands};
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The design in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a DesignRun> {
    v.outcome.design(v.focus?)
}

fn signed(x: f64) -> String {
    format!("{}{}", if x > 0.0 { "+" } else { "" }, fixed(x, 1))
}

fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 0))
}

/// The design in focus against the truth, and what it measured in words.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(d) = run(v) else {
        return ().into_any();
    };
    let o = v.outcome;
    let needed = d.needed.map_or("never".to_string(), thousands);
    let words = d.verdict.clone();
    view! {
        <h2>{format!("Design: {}", d.design.title())}</h2>
        <div class="cards">
            {card("card-truth", "True effect", &signed(o.truth), "ticks", "The new rule's mean TTFT minus the current rule's, each alone on the whole pool after the warm-up: negative is faster.")}
            {card("card-measured", "Measured", &signed(d.measured), "ticks", "The canary arm's mean TTFT minus the control arm's in this design.")}
            {card("card-history", "History cached, new rule", &percent(d.canary.history_share), "", "Of the turns after a conversation's first, the share of the conversation's own tokens the new rule's requests found cached.")}
            {card("card-needed", "Requests needed", &needed, "", "Requests in all before a two-sample test sees the measured effect's sign (95% confidence, 80% power); never when the sign is wrong.")}
        </div>
        <h3>"What this measured"</h3>
        <p class="verdict">{words}</p>
    }
    .into_any()
}

/// The comparison's columns.
pub(crate) const COLS: [Column<DesignRun>; 6] = [
    Column {
        title: "Off the truth (ticks)",
        meaning:
            "how far the measured effect (canary mean TTFT minus control's) is from the true one",
        value: |d| d.error,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "History, new",
        meaning: "the new rule's conversation history found cached",
        value: |d| d.canary.history_share,
        show: percent,
        higher_is_better: true,
    },
    Column {
        title: "Both turns new",
        meaning: "consecutive turns both on the new rule",
        value: |d| f64::from(d.both) / f64::from(d.pairs.max(1)),
        show: |x| format!("{}%", fixed(x * 100.0, 2)),
        higher_is_better: true,
    },
    Column {
        title: "P99 new",
        meaning: "the new rule's TTFT P99, ticks",
        value: |d| d.canary.p99,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Max new",
        meaning: "the new rule's slowest first token, ticks",
        value: |d| d.canary.max,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Requests needed",
        meaning: "to see the measured sign; none when it is wrong",
        value: |d| d.needed.map_or(f64::INFINITY, |n| n as f64),
        show: |x| {
            if x.is_finite() {
                thousands(x as u64)
            } else {
                "never".into()
            }
        },
        higher_is_better: false,
    },
];

fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "evaluate-compare",
        "Design",
        &v.outcome.designs,
        &COLS,
    )
}

impl FocusRow for DesignRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.design
    }
}

/// Under the comparison: the truth and the exact odds.
fn note(v: &View<'_, Lab>) -> AnyView {
    let o = v.outcome;
    let text = format!(
        "Every design replays the same conversations. The truth runs each rule alone on all {} replicas: {} against {} ticks of mean TTFT. A per-request canary of {} holds both of two consecutive turns in {} of {} hash-bucket pairs ({}%). Pick a row to focus on it; ★ marks the best value in each column.",
        o.config.replicas,
        fixed(o.candidate.mean, 1),
        fixed(o.current.mean, 1),
        percent(o.config.canary),
        thousands(o.pair_odds.0),
        thousands(o.pair_odds.1),
        fixed(100.0 * o.pair_odds.0 as f64 / o.pair_odds.1.max(1) as f64, 2)
    );
    view! { <p class="small muted">{text}</p> }.into_any()
}

/// The tails of both arms of every design.
fn tails(v: &View<'_, Lab>, _: Pick) -> AnyView {
    let rows = v
        .outcome
        .designs
        .iter()
        .flat_map(|d| {
            [
                (d.design.title(), "current", &d.control),
                (d.design.title(), "new", &d.canary),
            ]
        })
        .map(|(design, arm, a)| {
            view! {
                <tr>
                    <th scope="row">{format!("{design}, {arm}")}</th>
                    <td>{fixed(a.p50, 0)}</td>
                    <td>{fixed(a.p95, 0)}</td>
                    <td>{fixed(a.p99, 0)}</td>
                    <td>{fixed(a.max, 0)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"The tail of each arm (TTFT, ticks)"</h3>
        <div class="table-scroll">
            <table class="numbers" id="evaluate-tails">
                <thead><tr><th scope="col">"Arm"</th><th scope="col">"P50"</th><th scope="col">"P95"</th><th scope="col">"P99"</th><th scope="col">"Max"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// The gap between the rules under each warm-up.
fn warmth(v: &View<'_, Lab>, _: Pick) -> AnyView {
    let rows = v
        .outcome
        .warmth
        .iter()
        .map(|w| {
            let name = match w.warmth {
                Warmth::Cold => "Cold: measured from empty caches",
                Warmth::Warm => "Warmed, then measured",
                Warmth::Over => "Over-warmed: caches never evict",
            };
            view! {
                <tr>
                    <th scope="row">{name}</th>
                    <td>{fixed(w.current.mean, 1)}</td>
                    <td>{fixed(w.candidate.mean, 1)}</td>
                    <td>{fixed(w.gap, 1)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"Warm-up: the new rule's advantage, measured three ways"</h3>
        <div class="table-scroll">
            <table class="numbers" id="evaluate-warmth">
                <thead><tr><th scope="col">"Run"</th><th scope="col">"Current (ticks)"</th><th scope="col">"New (ticks)"</th><th scope="col">"New faster by"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// The evaluate lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Experiment, traffic and cache",
    imported: Some(|v| {
        let r = v.outcome.replay.as_ref()?;
        Some(format!(
            "{} {}",
            r.words,
            crate::labs::routing::trace_stats_text(&r.stats, true)
        ))
    }),
    cards: Some(cards),
    charts: &[
        Chart::<Lab>::new(
            "evaluate-loads",
            |_| "Goodput as the load rises: open loop against closed loop".into(),
            |v, _| Some(chart::loads(v.outcome)),
            |v| chart::loads_summary(v.outcome),
        )
        .help("The current rule on the whole pool at rising loads. The open loop sends on schedule whatever the pool does; the closed loop's clients (as many as Little's law needs for the same rate) send a turn only once the last is answered. Past capacity the open loop's queue grows and goodput collapses, while the closed loop slows its own arrivals and still reports goodput near capacity, until it has far more clients than batch slots. The fourth line is one open-loop run whose rate climbs across the same loads (vLLM's linear ramp-up): it finds the knee in one run, a little late, as its queue has had less time to build."),
        Chart::<Lab>::new(
            "evaluate-outage",
            |v| match &v.outcome.outage {
                Some(u) => format!(
                    "A semantic cache goes down: goodput with and without a rate limit (TTFT P95 while it is down: {} ticks without, {} with)",
                    fixed(u.p95_unlimited, 0),
                    fixed(u.p95_limited, 0)
                ),
                None => "A semantic cache goes down: goodput with and without a rate limit".into(),
            },
            |v, _| chart::outage(v.outcome),
            |v| chart::outage_summary(v.outcome),
        )
        .help("A semantic cache in front of the pool answers a share of requests until the grey window, when it is down and all of them reach the pool. Without a limit the pool is flooded and answers late until its queue drains; with a rate limit placed right after the lookup, the excess is refused at once and the requests let through stay in time. The dashed line is 90% of what the pool delivers on its own, rate-limited, with no cache."),
    ],
    comparison: Some(Comparison {
        heading: "The four designs on the same conversations",
        table: compare,
        note,
    }),
    tables: &[tails, warmth],
    defer: |_, _| true,
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Evaluating a routing change</h1><p class="lede">A new routing rule looks better in a benchmark; will a canary confirm it? Each rule's effect depends on the traffic it gets: a per-request canary almost never sees two turns of one conversation, and a canary sharing replicas with the current rule reads and fills the same caches. Compare each design's verdict with the truth of each rule on the whole pool, then see what a cold cache, a closed-loop benchmark and a semantic cache's outage do to the numbers.</p><p class="small muted">Times in ticks, one engine iteration each. Follows §15 and §10.1 of the reference article.</p>"#;
