//! The stale-signal herding lab page (article §5.6): a tick-by-tick player.

use sim_core::choice::Choice;
use sim_core::labs::herding::{
    HerdingLab as Lab, HerdingRule, Outcome, RuleSummary, TickSnapshot, Totals,
};

use crate::charts::skew_over_time;
use crate::format::one_decimal;
use crate::html::{el, Cell, Column, Compare, Html, Row, Table};
use crate::page::{Chart, Comparison, Page, Player, Seek, View};
use crate::theme::replica_hex;

/// The rule in focus's run.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a RuleSummary> {
    v.outcome.rule(v.focus?)
}

/// The herding lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: || Html::trusted(HEADER_HTML),
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
        narrate: |v| run(v).map(|s| crate::scenes::herding::narrate(s, v.step())).unwrap_or_default(),
        scene: |v, width, palette| crate::scenes::herding::scene(run(v)?, v.step(), width, palette),
        legend: "",
        detail: |v| {
            run(v)
                .and_then(|s| s.timeline.ticks.get(v.step()))
                .zip(v.focus)
                .map(|(t, rule)| el("div").class("tick-view").child(tick_html(t, rule)).into())
                .unwrap_or_default()
        },
    }),
    charts: &[Chart::<Lab>::new(
        "skew-chart",
        |_| "Skew over time (max − min actual outstanding); the current tick is highlighted".into(),
        |v, theme| {
            let top = v.outcome.rules.iter().flat_map(|r| r.skew.iter().copied()).max()?;
            Some(skew_over_time::spec(&run(v)?.skew, top, v.step(), theme))
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
        table: |v| {
            v.focus
                .map(|rule| compare_html(v.outcome, rule, v.step()))
                .unwrap_or_default()
        },
        note: |_| Html::trusted(NOTE_HTML),
    }),
    ..Page::EMPTY
};

/// Under the comparison (static).
const NOTE_HTML: &str = r#"<p class="small muted">Skew is the gap between the busiest and the idlest replica. Oscillation is the mean change in skew from one tick to the next. Pile-up share counts ticks with at least two arrivals in which every arrival went to the same replica. ★ marks the best value in each column.</p>"#;

/// One tick as HTML: bars of actual outstanding (new work hatched), who scraped,
/// and what each router sees.
fn tick_html(tick: &TickSnapshot, rule: HerdingRule) -> Html {
    let max = tick.outstanding.iter().copied().max().unwrap_or(0).max(1);
    let width = |x: u32| crate::format::fixed(100.0 * f64::from(x) / f64::from(max), 2);
    let bars = tick
        .outstanding
        .iter()
        .zip(&tick.new)
        .enumerate()
        .map(|(i, (&o, &new))| {
            let c = replica_hex(i);
            let extra = if new > 0 {
                format!(" (+{new} new)")
            } else {
                String::new()
            };
            el("div")
                .class("bar-row")
                .attr("role", "listitem")
                .child(
                    el("span")
                        .class("bar-label")
                        .text(format!("Replica {}", i + 1)),
                )
                .child(
                    el("span")
                        .class("bar-track")
                        .child(
                            el("span")
                                .class("bar-old")
                                .attr("style", format!("width:{}%;background:{c}", width(o - new))),
                        )
                        .child(
                            el("span")
                                .class("bar-new")
                                .attr("style", format!("width:{}%;--c:{c}", width(new))),
                        ),
                )
                .child(el("span").class("bar-value").text(format!("{o}{extra}")))
        });
    let scraped: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scraped)
        .map(|(i, _)| format!("Router {}", i + 1))
        .collect();
    let counts_own = rule.counts_own();
    let n = tick.outstanding.len();
    let mut head = vec![("Router".to_string(), String::new())];
    head.extend((0..n).map(|i| {
        (
            format!("R{}", i + 1),
            format!("replica {} as this router sees it", i + 1),
        )
    }));
    head.push(("Age".into(), "ticks since this router last scraped".into()));
    head.push(("Sent this tick to".into(), String::new()));
    let rows = tick
        .routers
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let mut cells = vec![Cell::new(format!(
                "Router {}{}",
                k + 1,
                if r.scraped { " ⟳" } else { "" }
            ))];
            cells.extend(r.snapshot.iter().zip(&r.own).map(|(v, o)| {
                Cell::new(if counts_own && *o > 0 {
                    format!("{v}+{o}")
                } else {
                    v.to_string()
                })
            }));
            cells.push(Cell::new(r.age.to_string()));
            let sent = if r.dispatched.is_empty() {
                "—".to_string()
            } else {
                r.dispatched
                    .iter()
                    .map(|d| format!("Replica {}", d + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            cells.push(Cell::new(sent).class("sent"));
            Row {
                cells,
                ..Row::default()
            }
        })
        .collect();
    let routers = Table {
        id: "router-table",
        caption: format!(
            "What each router sees{}",
            if counts_own {
                " (snapshot + own dispatches since it)"
            } else {
                ""
            }
        ),
        head,
        rows,
        ..Table::default()
    };
    [
        Html::from(el("h2").id("tick-heading").text(format!(
            "Tick {} · {} arrivals · max − min = {}",
            tick.tick, tick.arrivals, tick.skew
        ))),
        el("div")
            .class("bars")
            .attr("role", "list")
            .attr("aria-label", "Actual outstanding requests per replica")
            .children(bars)
            .into(),
        Html::trusted(r#"<p class="small legend"><span class="key-old"></span> in flight from earlier ticks <span class="key-new"></span> dispatched this tick</p>"#),
        el("p")
            .id("scraped")
            .text(if scraped.is_empty() {
                "Nobody scraped this tick.".to_string()
            } else {
                format!("Scraped this tick: {}.", scraped.join(", "))
            })
            .into(),
        routers.html(),
    ]
    .into_iter()
    .collect()
}

/// One rule's figures over the ticks played so far.
pub(crate) struct Upto {
    rule: HerdingRule,
    totals: Totals,
}

/// The four rules compared as HTML over ticks `0..=step` (the whole run at
/// the last tick); best (lowest) per column marked.
fn compare_html(o: &Outcome, selected: HerdingRule, step: usize) -> Html {
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
    [
        Html::from(
            el("p")
                .class("small progress-note")
                .id("herding-upto")
                .text(caption),
        ),
        Compare {
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
        .html(),
    ]
    .into_iter()
    .collect()
}

/// The comparison's columns (see [`compare_html`]).
pub(crate) const COLS: [Column<Upto>; 4] = [
    Column {
        title: "Peak skew",
        meaning: "largest max − min over the run",
        value: |r| f64::from(r.totals.peak_skew),
        show: |x| crate::format::fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Mean skew",
        meaning: "max − min averaged over ticks",
        value: |r| r.totals.mean_skew,
        show: |x| crate::format::fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "Oscillation",
        meaning: "mean change in skew from one tick to the next",
        value: |r| r.totals.oscillation,
        show: |x| crate::format::fixed(x, 2),
        higher_is_better: false,
    },
    Column {
        title: "Pile-up share",
        meaning: "ticks with 2+ arrivals that all went to one replica",
        value: |r| r.totals.pile_up_share,
        show: |x| format!("{}%", crate::format::fixed(x * 100.0, 0)),
        higher_is_better: false,
    },
];

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Stale-signal herding</h1><p class="lede">Routers pick replicas from load numbers scraped every few ticks. With the first rule (least outstanding on the last snapshot) and every router scraping at the same ticks, they all believe the same replica is idlest between scrapes, so they pile onto it and abandon it together at the next scrape: "Next key moment" jumps to each stampede. Stagger the scrapes or pick a fix to see how much of it goes away.</p><p class="small muted">Ticks are abstract time steps; every request occupies its replica for a fixed service time. Follows §5.6 of the reference article.</p>"#;
