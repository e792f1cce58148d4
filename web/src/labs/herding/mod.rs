//! The stale-signal herding lab page (article §5.6): a tick-by-tick player.

mod stage;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::herding::{HerdingLab as Lab, HerdingRule, Outcome, TickSnapshot, Totals};

use super::lab::{LabPage, Steps};
use crate::charts::skew_over_time;
use crate::components::{ChartError, Controls, ErrorLine, Notice, Player, Stage};
use crate::format::one_decimal;
use crate::html::{el, Cell, Column, Compare, Html, Markup, Row, Table};
use crate::theme::replica_hex;

/// The herding lab.
#[component]
pub fn HerdingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let lab = LabPage::<Lab>::new(&pairs, Steps::FromZero);
    let (config, focus, step, outcome) = (lab.config, lab.focus, lab.step, lab.outcome);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(4.0);
    let len = Signal::derive(move || config.with(|c| c.ticks as usize));
    super::clamp_step(step, len);

    // Plain closures, not derived signals: each distinct signal type costs wasm.
    let rule = move || HerdingRule::from_name(focus.get()).unwrap_or(HerdingRule::Stale);
    let tick = move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.rule(rule()))
                .and_then(|s| s.timeline.ticks.get(step.get()).cloned())
        })
    };

    let moments = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.rule(rule()))
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
        })
    });
    let narration = Signal::derive(move || {
        let t = step.get();
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.rule(rule()))
                .map(|s| stage::narrate(s, t))
                .unwrap_or_default()
        })
    });
    let scene: crate::components::SceneFn = Arc::new(move |width, palette| {
        let t = step.get();
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.rule(rule()))
                .and_then(|s| stage::scene(s, t, width, palette))
        })
    });

    let canvas_ref = NodeRef::<Canvas>::new();
    let chart_error = super::draw_linked(
        canvas_ref,
        Arc::new(move |theme| {
            let current = step.get();
            outcome.with(|o| {
                o.as_ref().and_then(|o| {
                    let top = o.rules.iter().flat_map(|r| r.skew.iter().copied()).max()?;
                    o.rule(rule())
                        .map(|s| skew_over_time::spec(&s.skew, top, current, theme))
                })
            })
        }),
        Some(super::seek_to(step, playing)),
    );
    let chart_label = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.rule(rule()))
                .map(|s| format!(
                    "Bar chart of skew per tick under {}: peak {}, mean {}; the current tick is {}.",
                    s.rule.title(), s.peak_skew, one_decimal(s.mean_skew), step.get()
                ))
                .unwrap_or_default()
        })
    });

    view! {
        <article class="lab" id="herding-lab">
            <header class="lab-header"><Markup html=Html::trusted(HEADER_HTML) /></header>
            <Notice messages=lab.notices.clone() />
            <ErrorLine error=move || outcome.error() />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls" data-panel="controls">
                    <h2>"Setup"</h2>
                    <Controls specs=lab.control_specs() get=lab.getter() set=lab.setter() />
                </section>
                <section class="results" aria-label="Player">
                    <div data-panel="player" class="player-stage">
                        <Player step=step len=len unit="tick" playing=playing speed=speed zero_based=true
                            moments=moments narration=narration />
                        <Stage scene=scene speed=speed id="herding-stage" label=narration />
                        <Markup class="tick-view" html=move || tick().map(|t| tick_html(&t, rule())).unwrap_or_default() />
                    </div>
                    <figure class="chart" data-panel="chart">
                        <figcaption>"Skew over time (max − min actual outstanding); the current tick is highlighted"</figcaption>
                        <canvas node_ref=canvas_ref id="skew-chart" class="short" role="img" aria-label=chart_label></canvas>
                        <ChartError error=chart_error />
                        <p class="sr-only">{chart_label}</p>
                    </figure>
                </section>
            </div>
            <section class="comparison" aria-label="Comparison of the four rules" data-panel="table">
                <h2>"The four rules on the same arrivals"</h2>
                <Markup html=move || outcome.with(|o| o.as_ref().map(|o| compare_html(o, rule(), step.get())).unwrap_or_default()) />
                <p class="small muted">
                    "Skew is the gap between the busiest and the idlest replica. Oscillation is the mean change in skew "
                    "from one tick to the next. Pile-up share counts ticks with at least two arrivals in which every "
                    "arrival went to the same replica. ★ marks the best value in each column."
                </p>
            </section>
        </article>
    }
}

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
struct Upto {
    rule: HerdingRule,
    totals: Totals,
}

/// The four rules compared as HTML over ticks `0..=step` (the whole run at
/// the last tick); best (lowest) per column marked.
fn compare_html(o: &Outcome, selected: HerdingRule, step: usize) -> Html {
    const COLS: [Column<Upto>; 4] = [
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
        }
        .html(),
    ]
    .into_iter()
    .collect()
}

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Stale-signal herding</h1><p class="lede">Routers pick replicas from load numbers scraped every few ticks. With the first rule (least outstanding on the last snapshot) and every router scraping at the same ticks, they all believe the same replica is idlest between scrapes, so they pile onto it and abandon it together at the next scrape: "Next key moment" jumps to each stampede. Stagger the scrapes or pick a fix to see how much of it goes away.</p><p class="small muted">Ticks are abstract time steps; every request occupies its replica for a fixed service time. Follows §5.6 of the reference article.</p>"#;
