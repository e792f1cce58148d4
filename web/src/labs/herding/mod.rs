//! The stale-signal herding lab page (article §5.6): a tick-by-tick player.

mod state;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::herding::{self, HerdingRule, Outcome, RuleSummary, TickSnapshot};

use crate::charts::skew_over_time;
use crate::components::{
    ChartError, ControlKind, ControlSpec, Controls, ErrorLine, Getter, Notice, Player, Setter,
};
use crate::format::one_decimal;
use crate::html::{Cell, Column, Compare, Row, Table};
use crate::theme::replica_hex;
use crate::url::ParamReader;
use state::HerdingView;

/// The herding lab.
#[component]
pub fn HerdingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let mut reader = ParamReader::new(pairs);
    let (initial, initial_step) = HerdingView::from_query(&mut reader);
    let notices = reader.notices.clone();
    let (view_state, set_view) = signal(initial);
    let step = RwSignal::new(initial_step);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(4.0);

    let (outcome, error) = super::use_lab_run(move || {
        view_state.with(|v| herding::run(&v.config).map_err(|e| e.to_string()))
    });
    let len = Signal::derive(move || view_state.with(|v| v.config.ticks as usize));
    // Keep the step inside a shorter run.
    super::clamp_step(step, len);
    super::sync_url(Arc::new(move || {
        view_state.with(|v| v.to_query(step.get()))
    }));

    // Plain closures, not derived signals: each distinct signal type costs wasm.
    let rule = move || view_state.with(|v| v.rule);
    let tick = move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.rule(rule()))
                .and_then(|s| s.timeline.ticks.get(step.get()).cloned())
        })
    };

    let canvas_ref = NodeRef::<Canvas>::new();
    let chart_error = super::draw_effect(
        canvas_ref,
        Arc::new(move |theme| {
            let current = step.get();
            outcome.with(|o| {
                o.as_ref()
                    .and_then(|o| o.rule(rule()))
                    .map(|s| skew_over_time::spec(&s.skew, current, theme))
            })
        }),
    );

    let get: Getter = Arc::new(move |key: &str| {
        view_state.with(|v| {
            let c = &v.config;
            match key {
                "replicas" => c.replicas.to_string(),
                "routers" => c.routers.to_string(),
                "interval" => c.scrape_interval.to_string(),
                "rate" => c.arrival_rate.to_string(),
                "service" => c.service_time.to_string(),
                "ticks" => c.ticks.to_string(),
                "stagger" => u8::from(c.stagger).to_string(),
                "seed" => c.seed.to_string(),
                "rule" => v.rule.name().to_string(),
                _ => String::new(),
            }
        })
    });
    let set: Setter = Arc::new(move |key: &str, value: &str| {
        let x = crate::num::parse_f64(value).filter(|x| x.is_finite() && *x >= 0.0);
        set_view.update(|v| {
            let c = &mut v.config;
            match (key, x) {
                ("replicas", Some(x)) => c.replicas = x as u32,
                ("routers", Some(x)) => c.routers = x as u32,
                ("interval", Some(x)) => c.scrape_interval = x as u32,
                ("rate", Some(x)) => c.arrival_rate = (x * 10.0).round() / 10.0,
                ("service", Some(x)) => c.service_time = x as u32,
                ("ticks", Some(x)) => c.ticks = x as u32,
                ("stagger", _) => c.stagger = value == "1",
                ("seed", _) => {
                    if let Ok(seed) = value.trim().parse::<u64>() {
                        c.seed = seed;
                    }
                }
                ("new-trace", _) => c.seed = (js_sys::Math::random() * 1e6) as u64,
                ("rule", _) => {
                    if let Some(r) = HerdingRule::from_name(value) {
                        v.rule = r;
                    }
                }
                _ => {}
            }
        })
    });
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
            <header class="lab-header" inner_html=HEADER_HTML></header>
            <Notice messages=notices />
            <ErrorLine error=error />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls">
                    <h2>"Setup"</h2>
                    <Controls specs=control_specs() get=get set=set />
                </section>
                <section class="results" aria-label="Player">
                    <Player step=step len=len unit="tick" playing=playing speed=speed zero_based=true />
                    <div class="tick-view" inner_html=move || tick().map(|t| tick_html(&t, rule())).unwrap_or_default()></div>
                    <figure class="chart">
                        <figcaption>"Skew over time (max − min actual outstanding); the current tick is highlighted"</figcaption>
                        <canvas node_ref=canvas_ref id="skew-chart" class="short" role="img" aria-label=chart_label></canvas>
                        <ChartError error=chart_error />
                        <p class="sr-only">{chart_label}</p>
                    </figure>
                </section>
            </div>
            <section class="comparison" aria-label="Comparison of the four rules">
                <h2>"The four rules on the same arrivals"</h2>
                <div inner_html=move || outcome.with(|o| o.as_ref().map(|o| compare_html(o, rule())).unwrap_or_default())></div>
                <p class="small muted">
                    "Skew is the gap between the busiest and the idlest replica. Oscillation is the mean change in skew "
                    "from one tick to the next. Pile-up share counts ticks with at least two arrivals in which every "
                    "arrival went to the same replica. ★ marks the best value in each column."
                </p>
            </section>
        </article>
    }
}

/// The herding lab's controls, in display order.
fn control_specs() -> Vec<ControlSpec> {
    let whole = |x: f64| crate::format::fixed(x, 0);
    let range = |key, label, hint, min, max, step, unit, format| ControlSpec {
        key,
        label,
        hint,
        kind: ControlKind::Range {
            min,
            max,
            step,
            unit,
            format,
        },
    };
    vec![
        range("replicas", "Replicas", "", 2.0, 10.0, 1.0, "", whole),
        range(
            "routers",
            "Routers",
            "each dispatches on its own snapshot",
            1.0,
            8.0,
            1.0,
            "",
            whole,
        ),
        range(
            "interval",
            "Scrape interval",
            "how stale a snapshot can get",
            1.0,
            30.0,
            1.0,
            "ticks",
            whole,
        ),
        range(
            "rate",
            "Arrival rate",
            "Poisson",
            0.2,
            5.0,
            0.1,
            "req/tick",
            |x| crate::format::fixed(x, 1),
        ),
        range(
            "service",
            "Service time",
            "",
            1.0,
            60.0,
            1.0,
            "ticks",
            whole,
        ),
        range("ticks", "Horizon", "", 30.0, 300.0, 10.0, "ticks", whole),
        ControlSpec {
            key: "stagger",
            label: "Stagger scrape times (router k scrapes k·T/K ticks later)",
            hint: "",
            kind: ControlKind::Check,
        },
        ControlSpec {
            key: "seed",
            label: "Seed",
            hint: "",
            kind: ControlKind::Number,
        },
        ControlSpec {
            key: "new-trace",
            label: "New arrivals",
            hint: "",
            kind: ControlKind::Button,
        },
        ControlSpec {
            key: "rule",
            label: "Rule every router uses",
            hint: "",
            kind: ControlKind::Radio(
                HerdingRule::ALL
                    .iter()
                    .map(|r| (r.name(), r.title(), r.signal()))
                    .collect(),
            ),
        },
    ]
}

/// One tick as HTML: bars of actual outstanding (new work hatched), who scraped,
/// and what each router sees.
fn tick_html(tick: &TickSnapshot, rule: HerdingRule) -> String {
    let max = tick.outstanding.iter().copied().max().unwrap_or(0).max(1);
    let mut s = format!(
        r#"<h2 id="tick-heading">Tick {} · {} arrivals · max − min = {}</h2><div class="bars" role="list" aria-label="Actual outstanding requests per replica">"#,
        tick.tick, tick.arrivals, tick.skew
    );
    for (i, (&o, &new)) in tick.outstanding.iter().zip(&tick.new).enumerate() {
        let w = |x: u32| 100.0 * f64::from(x) / f64::from(max);
        let c = replica_hex(i);
        let extra = if new > 0 {
            format!(" (+{new} new)")
        } else {
            String::new()
        };
        s += &format!(
            r#"<div class="bar-row" role="listitem"><span class="bar-label">Replica {}</span><span class="bar-track"><span class="bar-old" style="width:{}%;background:{c}"></span><span class="bar-new" style="width:{}%;--c:{c}"></span></span><span class="bar-value">{o}{extra}</span></div>"#,
            i + 1,
            crate::format::fixed(w(o - new), 2),
            crate::format::fixed(w(new), 2)
        );
    }
    s += r#"</div><p class="small legend"><span class="key-old"></span> in flight from earlier ticks <span class="key-new"></span> dispatched this tick</p>"#;
    let scraped: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scraped)
        .map(|(i, _)| format!("Router {}", i + 1))
        .collect();
    s += &format!(
        r#"<p id="scraped">{}</p>"#,
        if scraped.is_empty() {
            "Nobody scraped this tick.".to_string()
        } else {
            format!("Scraped this tick: {}.", scraped.join(", "))
        }
    );
    let counts_own = matches!(rule, HerdingRule::OwnDispatches | HerdingRule::Both);
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
    s += &Table {
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
    }
    .render();
    s
}

/// The four rules compared as HTML; best (lowest) per column marked.
fn compare_html(o: &Outcome, selected: HerdingRule) -> String {
    const COLS: [Column<RuleSummary>; 4] = [
        Column {
            title: "Peak skew",
            meaning: "largest max − min over the run",
            value: |r| f64::from(r.peak_skew),
            show: |x| crate::format::fixed(x, 0),
            higher_is_better: false,
        },
        Column {
            title: "Mean skew",
            meaning: "max − min averaged over ticks",
            value: |r| r.mean_skew,
            show: |x| crate::format::fixed(x, 1),
            higher_is_better: false,
        },
        Column {
            title: "Oscillation",
            meaning: "mean change in skew from one tick to the next",
            value: |r| r.oscillation,
            show: |x| crate::format::fixed(x, 2),
            higher_is_better: false,
        },
        Column {
            title: "Pile-up share",
            meaning: "ticks with 2+ arrivals that all went to one replica",
            value: |r| r.pile_up_share,
            show: |x| format!("{}%", crate::format::fixed(x * 100.0, 0)),
            higher_is_better: false,
        },
    ];
    Compare {
        id: "herding-compare",
        caption: "",
        first: "Rule",
        items: &o.rules,
        title: |r| r.rule.title(),
        key: None,
        selected: &|r| r.rule == selected,
        columns: &COLS,
    }
    .render()
}

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Stale-signal herding</h1><p class="lede">Several routers pick replicas from load numbers scraped every few ticks. Step through the ticks: between scrapes every router believes the same replica is idlest, so they all pile onto it, then abandon it together at the next scrape. Try staggering the scrapes, or a fix.</p><p class="small muted">Ticks are abstract time steps; every request occupies its replica for a fixed service time. Follows §5.6 of the reference article.</p>"#;
