//! The admission-control page (article §9.3, with the knee of §1.2): one
//! pool past its capacity, five gateway policies on the same arrivals, a
//! tick-by-tick player of the policy in focus.

/// The chart spec.
pub mod chart;
/// What the stage draws and says at one step.
pub mod scene;

use sim_core::choice::Choice;
use sim_core::labs::admission::{AdmissionLab as Lab, PolicyRun};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, View};
use crate::ui::format::{fixed, thousands};
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the policy in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a PolicyRun> {
    v.outcome.policy(v.focus?)
}

fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 1))
}

/// The policy in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    let o = v.outcome;
    let goodput = format!(
        "Requests per tick whose first token met the SLO, over all {} ticks of this run, surge and incident included (the chart's runs have neither; this run is ringed on it): {} of the pool's capacity of {} per tick.",
        thousands(v.config.ticks.into()),
        percent(r.goodput / o.capacity),
        fixed(o.capacity, 2)
    );
    view! {
        <h2 title=format!("All {} ticks, surge and incident included", thousands(v.config.ticks.into()))>{format!("{} over the whole run", r.policy.title())}</h2>
        <div class="cards">
            {card("card-goodput", "Goodput", &fixed(r.goodput, 3), "req/tick", &goodput)}
            {card(
                "card-turned-away",
                "Turned away",
                &percent(r.rejected_share() + r.dropped_share()),
                "",
                "Share of arrivals refused with a 429 or dropped from the queue: they are told at once, or before a server is spent on them.",
            )}
            {card(
                "card-wait",
                "Wait P95",
                &fixed(r.wait_p95, 0),
                "ticks",
                "95% of the requests that reached a server waited at most this long at the gateway.",
            )}
            {card(
                "card-wasted",
                "Wasted work",
                &percent(r.wasted),
                "",
                "Share of server time spent on requests that missed the SLO anyway or failed.",
            )}
        </div>
    }
    .into_any()
}

/// The comparison's columns.
pub(crate) const COLS: [Column<PolicyRun>; 6] = [
    Column {
        title: "Goodput",
        meaning: "requests per tick whose first token met the SLO",
        value: |r| r.goodput,
        show: |x| fixed(x, 3),
        higher_is_better: true,
    },
    Column {
        title: "Refused",
        meaning: "share of arrivals answered 429 at once",
        value: PolicyRun::rejected_share,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: false,
    },
    Column {
        title: "Dropped",
        meaning: "share of arrivals dropped from the queue",
        value: PolicyRun::dropped_share,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: false,
    },
    Column {
        title: "Failed",
        meaning: "requests ended by the failing replica",
        value: |r| f64::from(r.failed),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Wait P95",
        meaning: "ticks waited by 95% of the requests that reached a server",
        value: |r| r.wait_p95,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Wasted work",
        meaning: "server time on requests that missed the SLO or failed",
        value: |r| r.wasted,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: false,
    },
];

/// Every policy over the whole run; rows pick the player's policy.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "admission-compare",
        "Policy",
        &v.outcome.policies,
        &COLS,
    )
}

impl FocusRow for PolicyRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.policy
    }
}

/// Under the comparison: what the columns count.
fn note(_: &View<'_, Lab>) -> AnyView {
    view! {
        <p class="small muted">
            "Every column is over this whole run, surge and incident included. Goodput counts requests whose first token came within the SLO, per tick of the run. Wasted work is server time spent on requests that missed the SLO or failed. Pick a row to play that policy. ★ marks the best value in each column."
        </p>
    }
    .into_any()
}

fn moments(v: &View<'_, Lab>) -> Vec<usize> {
    run(v)
        .map(|r| crate::ui::scene::moment_steps(&r.timeline, |s| s.moment.is_some()))
        .unwrap_or_default()
}

/// The admission lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Load and policies",
    player: Some(Player {
        len: |v| v.config.ticks as usize,
        moments,
        narrate: |v| {
            run(v)
                .map(|r| crate::labs::admission::scene::narrate(r, v.config, v.step()))
                .unwrap_or_default()
        },
        scene: |v, width, palette| {
            crate::labs::admission::scene::scene(run(v)?, v.config, v.step(), width, palette)
        },
        legend: LEGEND_HTML,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    charts: &[
        Chart::<Lab>::new(
            "goodput-chart",
            |_| "Goodput at a steady load (no surge, no incident), per policy".into(),
            |v, _| chart::spec(v.outcome, run(v)),
            |v| chart::summary(v.outcome),
        )
        .help("Each point is a separate run of the same length at a steady load (no surge, no failing replica), goodput over the whole of it. The ring is this run at its load, surge and incident included: the cards' number, lower because of them. Up to capacity every policy serves everything; past it, with no control the queue grows until almost every answer is late, while a cap, a deadline or a queue-time bound keeps goodput near capacity. Capacity is a mean rate (servers over the mean service time): a run whose service times come out shorter than the mean finishes more, and a deadline, which judges by the first token, lets a one-tick request through a tick later than the rest, so points past capacity can sit a few percent above the line. The circuit breaker is dots on no control's line: with no replica failing it never trips (a breaker does nothing about load). The vertical line is this run's load."),
    ],
    comparison: Some(Comparison {
        heading: "The five policies on the same requests",
        table: compare,
        note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">Squares on the left wait at the gateway; filled cells on the right are busy servers; red dots are this tick's 429s and drops; a replica outlined in red is out of rotation.</p>"#;

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Admission control</h1><p class="lede">A pool can only finish so many requests per tick. Past that, a queue without limits grows, every request in it waits longer, and soon the servers spend their time on answers that arrive too late to count. The default run holds an 80% load, surges to twice that (160% of capacity), and later has a replica that fails half its requests: play each policy and watch the queue, the refusals and the breaker.</p><p class="small muted">Ticks are abstract time steps; service times and the SLO are counted in mean service times. Follows §9.3 of the reference article, with the knee of §1.2.</p>"#;
