//! The autoscaling page (article §11): a control loop sets the pool's size
//! while the gateway routes, six scalers on the same arrivals, a
//! second-by-second player of the scaler in focus.

/// The replicas-over-time chart spec.
pub mod replicas_chart;
/// What the stage draws and says at one step.
pub mod scene;
/// The TTFT-over-time chart spec.
pub mod ttft_chart;

use sim_core::choice::Choice;
use sim_core::labs::autoscale::{AutoscaleLab as Lab, ScalerRun};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, Seek, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the scaler in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a ScalerRun> {
    v.outcome.run(v.focus?)
}

fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 1))
}

/// The scaler in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    let c = v.config;
    let reaction = match r.reaction {
        Some(s) => format!("first order {s} s into the surge"),
        None => "no order during or after the surge".to_string(),
    };
    let fresh = match (r.fresh_load, r.fresh_p95) {
        (Some(l), Some(p)) => format!(
            "New replicas took {}× a fair share of arrivals in their first minute; their requests' TTFT P95 was {} s.",
            fixed(l, 2),
            fixed(p, 1)
        ),
        _ => "No new replica took requests.".to_string(),
    };
    let surge = format!(
        "95% of the requests that arrived during the surge had their first token within this; the SLO is {} s.",
        fixed(c.slo, 1)
    );
    let minutes = format!(
        "Replica-minutes paid for, starting and draining ones included; the fixed pool of {} pays {}.",
        c.replicas,
        fixed(f64::from(c.replicas) * f64::from(c.ticks) / 60.0, 0)
    );
    let late = format!("Ordered during the surge, ready after it ended ({reaction}). {fresh}");
    view! {
        <h2>{format!("{} over the whole run", r.scaler.title())}</h2>
        <div class="cards">
            {card("card-surge-ttft", "Surge TTFT P95", &fixed(r.surge_p95, 1), "s", &surge)}
            {card(
                "card-slo",
                "Within the SLO",
                &percent(r.slo_met),
                "",
                "Share of all arrivals whose first token came within the SLO.",
            )}
            {card("card-replica-minutes", "Replica time", &fixed(r.replica_minutes, 0), "min", &minutes)}
            {card("card-late", "Ready too late", &r.late.to_string(), "replicas", &late)}
        </div>
    }
    .into_any()
}

/// The comparison's columns.
pub(crate) const COLS: [Column<ScalerRun>; 6] = [
    Column {
        title: "Surge TTFT P95",
        meaning: "seconds to the first token, 95th percentile, for arrivals during the surge",
        value: |r| r.surge_p95,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "TTFT P95",
        meaning: "seconds to the first token, 95th percentile, over the whole run",
        value: |r| r.ttft_p95,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "Within SLO",
        meaning: "share of arrivals whose first token met the SLO",
        value: |r| r.slo_met,
        show: |x| format!("{}%", fixed(x * 100.0, 1)),
        higher_is_better: true,
    },
    Column {
        title: "Replica time",
        meaning: "replica-minutes paid for",
        value: |r| r.replica_minutes,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Peak",
        meaning: "most replicas at once",
        value: |r| f64::from(r.peak),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Late",
        meaning: "replicas ordered during the surge, ready after it",
        value: |r| f64::from(r.late),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
];

/// Every scaler over the whole run; rows pick the player's scaler.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "autoscale-compare",
        "Scaler",
        &v.outcome.runs,
        &COLS,
    )
}

impl FocusRow for ScalerRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.scaler
    }
}

/// Under the comparison: what the columns count.
fn note(_: &View<'_, Lab>) -> AnyView {
    view! {
        <p class="small muted">
            "Every scaler sees the same arrivals. Replica time counts every second a replica exists, cold start and draining included. Late counts replicas ordered during the surge that were ready only after it ended. Pick a row to play that scaler. ★ marks the best value in each column."
        </p>
    }
    .into_any()
}

fn moments(v: &View<'_, Lab>) -> Vec<usize> {
    run(v)
        .map(|r| crate::ui::scene::moment_steps(&r.timeline, |s| s.moment.is_some()))
        .unwrap_or_default()
}

/// The autoscaling lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Traffic, cold start and gateway",
    player: Some(Player {
        len: |v| v.config.ticks as usize,
        moments,
        narrate: |v| {
            run(v)
                .map(|r| crate::labs::autoscale::scene::narrate(r, v.config, v.step()))
                .unwrap_or_default()
        },
        scene: |v, width, palette| {
            crate::labs::autoscale::scene::scene(run(v)?, v.config, v.step(), width, palette)
        },
        legend: LEGEND_HTML,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    charts: &[Chart::<Lab>::new(
        "replicas-chart",
        |_| "Replicas taking requests, per scaler, against the count the traffic needs".into(),
        |v, _| replicas_chart::spec(v.outcome, v.step()),
        |v| replicas_chart::summary(v.outcome),
    )
    .seek(Seek::Step)
    .help("Each coloured line counts the replicas taking requests under one scaler; the grey step is how many the arrival rate keeps busy with every slot in use. The gap between the grey step rising and a line rising is the control loop's delay plus the cold start. A line that climbs after the grey step has fallen is capacity that came too late; one far above it is capacity paid for and idle. Click to move the player there."),
    Chart::<Lab>::new(
        "ttft-chart",
        |_| "TTFT P95 per half minute, per scaler".into(),
        |v, _| ttft_chart::spec(v.outcome, v.step()),
        |v| ttft_chart::summary(v.outcome),
    )
    .seek(Seek::Step)
    .help("Each line is one scaler's 95th-percentile time to first token over each half minute, on a log scale so a second and ten minutes both fit; the shaded band is the surge and the horizontal line the SLO. A scaler whose replicas arrive after the surge stays above the line until the queue it built has drained. Click to move the player there.")],
    comparison: Some(Comparison {
        heading: "The six scalers on the same arrivals",
        table: compare,
        note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">One column per replica: filled cells are slots running a request, the red bar and number above are its waiting requests, dots are this second's arrivals. A grey box is a replica in its cold start (seconds left inside); an accent outline marks a replica in its first minute; a dimmed one is draining.</p>"#;

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>Autoscaling</h1><p class="lede">A second control loop runs beside the balancer: every few seconds an autoscaler reads a signal and orders or drains replicas, and each new replica takes minutes to start. Which signal it reads decides whether it sees a surge at all, and the gateway's rule decides what happens to a replica that has just started. The default run has traffic tripling for eight minutes and a cold start of four: play each scaler and watch when its replicas arrive.</p><p class="small muted">One tick is one second; replica time is counted in minutes. Follows §11 of the reference article.</p>"#;
