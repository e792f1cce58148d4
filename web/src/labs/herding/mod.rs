//! The stale-signal herding lab page (article §5.6): a tick-by-tick player.

/// The chart spec.
pub mod chart;
/// The page's own panels (tables, readouts).
pub mod panel;
/// What the stage draws and says at one step.
pub mod scene;

use sim_core::choice::Choice;
use sim_core::labs::herding::{HerdingLab as Lab, HerdingRule, Outcome, RuleSummary, Totals};

use leptos::prelude::*;

use crate::labs::herding::panel::tick_view;
use crate::page::{Chart, Comparison, Page, Player, Seek, View};
use crate::ui::format::one_decimal;
use crate::ui::html::Html;
use crate::ui::table::{Column, Compare};

/// The rule in focus's run.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a RuleSummary> {
    v.outcome.rule(v.focus?)
}

/// The herding lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Setup",
    player: Some(Player {
        heading: "",
        records: false,
        side_by_side: false,
        len: |v| v.config.ticks as usize,
        moments: |v| {
            run(v)
                .map(|s| {
                    s.timeline
                        .ticks
                        .iter()
                        .enumerate()
                        .filter(|(_, t)| t.moment.is_some())
                        .map(|(i, _)| i)
                        .collect()
                })
                .unwrap_or_default()
        },
        narrate: |v| run(v).map(|s| crate::labs::herding::scene::narrate(s, v.step())).unwrap_or_default(),
        scene: |v, width, palette| crate::labs::herding::scene::scene(run(v)?, v.step(), width, palette),
        legend: "",
        detail: |v| {
            let tick = run(v).and_then(|s| s.timeline.ticks.get(v.step()));
            match tick.zip(v.focus) {
                Some((t, rule)) => view! { <div class="tick-view">{tick_view(t, rule)}</div> }.into_any(),
                None => ().into_any(),
            }
        },
        ..Player::PLAIN
    }),
    charts: &[Chart::<Lab>::new(
        "skew-chart",
        |_| "Skew over time (max − min actual outstanding); the current tick is highlighted".into(),
        |v, theme| {
            let top = v.outcome.rules.iter().flat_map(|r| r.skew.iter().copied()).max()?;
            Some(chart::spec(&run(v)?.skew, top, v.step(), theme))
        },
        |v| {
            run(v)
                .map(|s| {
                    format!(
                        "Bar chart of skew per tick under {}: peak {}, mean {}; the current tick is {}.",
                        s.rule.title(),
                        s.peak_skew,
                        one_decimal(s.mean_skew),
                        v.step()
                    )
                })
                .unwrap_or_default()
        },
    )
    .seek(Seek::Step)
    .short()],
    comparison: Some(Comparison {
        heading: "The four rules on the same arrivals",
        table: |v, _| match v.focus {
            Some(rule) => compare_view(v.outcome, rule, v.step()),
            None => ().into_any(),
        },
        note: |_| note(),
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the comparison: what the columns measure.
fn note() -> AnyView {
    view! {
        <p class="small muted">"Skew is the gap between the busiest and the idlest replica. Oscillation is the mean change in skew from one tick to the next. Pile-up share counts ticks with at least two arrivals in which every arrival went to the same replica. ★ marks the best value in each column."</p>
    }
    .into_any()
}

/// One rule's figures over the ticks played so far.
pub(crate) struct Upto {
    rule: HerdingRule,
    totals: Totals,
}

/// The four rules compared over ticks `0..=step` (the whole run at the last
/// tick); best (lowest) per column marked.
fn compare_view(o: &Outcome, selected: HerdingRule, step: usize) -> AnyView {
    let rows: Vec<Upto> = o
        .rules
        .iter()
        .map(|r| {
            let ticks = &r.timeline.ticks;
            Upto {
                rule: r.rule,
                totals: Totals::of(&ticks[..(step + 1).min(ticks.len())]),
            }
        })
        .collect();
    let last = o
        .rules
        .first()
        .map_or(0, |r| r.timeline.ticks.len())
        .saturating_sub(1);
    let caption = if step >= last {
        "Whole run".to_string()
    } else {
        format!("Ticks 0–{step} so far (the whole run at tick {last})")
    };
    let table = Compare {
        id: "herding-compare",
        caption: "",
        first: "Rule",
        items: &rows,
        title: |r| r.rule.title(),
        key: None,
        selected: &|r| r.rule == selected,
        columns: &COLS,
        so_far: step < last,
    }
    .view(None);
    view! {
        <p class="small progress-note" id="herding-upto">{caption}</p>
        {table}
    }
    .into_any()
}

/// The comparison's columns (see [`compare_view`]).
pub(crate) const COLS: [Column<Upto>; 4] = [
    Column {
        title: "Peak skew",
        meaning: "largest max − min over the run",
        value: |r| f64::from(r.totals.peak_skew),
        show: |x| crate::ui::format::fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Mean skew",
        meaning: "max − min averaged over ticks",
        value: |r| r.totals.mean_skew,
        show: |x| crate::ui::format::fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "Oscillation",
        meaning: "mean change in skew from one tick to the next",
        value: |r| r.totals.oscillation,
        show: |x| crate::ui::format::fixed(x, 2),
        higher_is_better: false,
    },
    Column {
        title: "Pile-up share",
        meaning: "ticks with 2+ arrivals that all went to one replica",
        value: |r| r.totals.pile_up_share,
        show: |x| format!("{}%", crate::ui::format::fixed(x * 100.0, 0)),
        higher_is_better: false,
    },
];

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Stale-signal herding</h1><p class="lede">Routers pick replicas from load numbers scraped every few ticks. With the first rule (least outstanding on the last snapshot) and every router scraping at the same ticks, they all believe the same replica is idlest between scrapes, so they pile onto it and abandon it together at the next scrape: "Next key moment" jumps to each stampede. Stagger the scrapes or pick a fix to see how much of it goes away.</p><p class="small muted">Ticks are abstract time steps; every request occupies its replica for a fixed service time. Follows §5.6 of the reference article.</p>"#;
