//! The agent-sessions page (article §13): sessions of many calls, four
//! routing keys on the same sessions, a player of the key in focus stepping
//! a tenth of a second at a time.

/// The chart spec.
pub mod chart;
/// What the stage draws and says at one step.
pub mod scene;

use sim_core::choice::Choice;
use sim_core::labs::agents::{AgentsLab as Lab, KeyRun};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, Seek, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the key in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a KeyRun> {
    v.outcome.run(v.focus?)
}

/// The key in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    let c = v.config;
    let session = format!(
        "95% of sessions finished within this, first call to last answer, tool time included; the median was {} s.",
        fixed(r.session_p50, 1)
    );
    let burst = format!(
        "The longest replica queue while a fan-out's {} subagents waited to start, averaged over fan-outs{}.",
        c.fanout,
        if c.cap > 0 {
            format!("; the cap of {} holds the rest at the gateway", c.cap)
        } else {
            String::new()
        }
    );
    view! {
        <h2>{format!("Keyed on: {}", r.key.title())}</h2>
        <div class="cards">
            {card("card-session-p95", "Session P95", &fixed(r.session_p95, 1), "s", &session)}
            {card(
                "card-others-ttft",
                "Others' TTFT P95",
                &fixed(r.others_p95, 2),
                "s",
                "First-token time of the calls of sessions that never fan out, 95th percentile: what a fan-out costs its neighbours.",
            )}
            {card(
                "card-cache",
                "Cache share",
                &format!("{}%", fixed(r.cache_share * 100.0, 1)),
                "",
                "Share of all prompt tokens a replica already held in its prefix cache.",
            )}
            {card("card-burst", "Burst queue", &fixed(r.burst_queue, 1), "calls", &burst)}
        </div>
    }
    .into_any()
}

/// The comparison's columns. The cache share and the session P95 first:
/// they are the two sides of the trade the lab is about, and a phone shows
/// them before the table scrolls.
pub(crate) const COLS: [Column<KeyRun>; 6] = [
    Column {
        title: "Cache share",
        meaning: "share of prompt tokens found in the replica's prefix cache",
        value: |r| r.cache_share,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: true,
    },
    Column {
        title: "Session P95",
        meaning: "seconds from a session's first call to its last answer, 95th percentile",
        value: |r| r.session_p95,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "Session P50",
        meaning: "seconds from a session's first call to its last answer, median (long-running agents aside)",
        value: |r| r.session_p50,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "TTFT P95",
        meaning: "seconds from a call's issue to its first token, 95th percentile, every call (time held by the cap included)",
        value: |r| r.ttft_p95,
        show: |x| fixed(x, 2),
        higher_is_better: false,
    },
    Column {
        title: "Others' TTFT P95",
        meaning: "the same for the calls of sessions that do not fan out",
        value: |r| r.others_p95,
        show: |x| fixed(x, 2),
        higher_is_better: false,
    },
    Column {
        title: "Burst queue",
        meaning: "longest replica queue while a fan-out waited to start, mean over fan-outs",
        value: |r| r.burst_queue,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
];

/// Every key on the same sessions; rows pick the player's key.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "agents-compare",
        "Keyed on",
        &v.outcome.runs,
        &COLS,
    )
}

impl FocusRow for KeyRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.key
    }
}

/// Under the comparison: what the columns count.
fn note(_: &View<'_, Lab>) -> AnyView {
    view! {
        <p class="small muted">
            "Every key sees the same sessions, with the same tool times. A session's time runs from its first call to its last answer and includes the tools; long-running agents never finish inside the run and are left out of it. Pick a row to play that key. ★ marks the best value in each column."
        </p>
    }
    .into_any()
}

fn moments(v: &View<'_, Lab>) -> Vec<usize> {
    run(v)
        .map(|r| crate::ui::scene::moment_steps(&r.timeline, |s| s.moment.is_some()))
        .unwrap_or_default()
}

/// The agent-sessions page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Sessions, fan-out and gateway",
    player: Some(Player {
        len: |v| run(v).map_or(0, |r| r.timeline.len()),
        moments,
        narrate: |v| {
            run(v)
                .map(|r| crate::labs::agents::scene::narrate(r, v.config, v.step()))
                .unwrap_or_default()
        },
        scene: |v, width, palette| {
            crate::labs::agents::scene::scene(run(v)?, v.config, v.step(), width, palette)
        },
        legend: LEGEND_HTML,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    charts: &[Chart::<Lab>::new(
        "queue-chart",
        |_| "The longest replica queue each second, per routing key".into(),
        |v, _| chart::spec(v.outcome, v.step()),
        |v| chart::summary(v.outcome),
    )
    .seek(Seek::Step)
    .help("Each line is one routing key: the most calls waiting on any one replica in each second. A key that sends all of a fan-out's subagents to one replica spikes at every fan-out, while the other replicas may sit idle; a key that spreads them stays low. Click to move the player there.")],
    comparison: Some(Comparison {
        heading: "The four keys on the same sessions",
        table: compare,
        note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">One column per replica: a filled cell is a call in its batch, in the accent colour when it belongs to a subagent; the red bar and number above are the calls waiting in its queue. The line under the stage counts the sessions under way and the calls a per-session cap holds at the gateway.</p>"#;

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Agent sessions</h1><p class="lede">An agent's unit of work is a session: a chat turn is one model call, a tool-using chain a dozen in a row, a planner with subagents forty, mostly in bursts that start together and share the planner's context. The gateway still routes one call at a time, and what it keys the choice on decides two things: which cache a call finds, and whether a burst of subagents lands on one replica. The player opens on a fan-out under the prefix key; try the other keys, then a per-session cap.</p><p class="small muted">One step is 100 ms; times are in seconds. Follows §13 of the reference article.</p>"#;
