//! The stale-signal herding lab page (article §5.6): a tick-by-tick player.

mod state;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::herding::{self, HerdingRule, Outcome, RuleSummary, TickSnapshot};

use crate::charts::{self, skew_over_time};
use crate::components::{Notice, Player, Slider};
use crate::format::one_decimal;
use crate::html::{best_mask, Cell, Row, Table};
use crate::theme::{replica_hex, ChartTheme};
use crate::url::{self, ParamReader};
use state::HerdingView;

/// The herding lab.
#[component]
pub fn HerdingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let mut reader = ParamReader::new(pairs);
    let (initial, initial_step) = HerdingView::from_query(&mut reader);
    let notices = Signal::stored(reader.notices);
    let (view_state, set_view) = signal(initial);
    let step = RwSignal::new(initial_step);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(4.0);

    let (outcome, error) = super::use_lab_run(move || {
        view_state.with(|v| herding::run(&v.config).map_err(|e| e.to_string()))
    });
    let len = Signal::derive(move || view_state.with(|v| v.config.ticks as usize));
    // Keep the step inside a shorter run.
    Effect::new(move |_| {
        let n = len.get();
        if step.get_untracked() >= n {
            step.set(n.saturating_sub(1));
        }
    });
    Effect::new(move |_| {
        let q = view_state.with(|v| v.to_query(step.get()));
        url::replace_query(&q);
    });

    let rule = Signal::derive(move || view_state.with(|v| v.rule));
    let summary = Signal::derive(move || outcome.get().and_then(|o| o.rule(rule.get()).cloned()));
    let tick = Signal::derive(move || {
        summary.with(|s| {
            s.as_ref()
                .and_then(|s| s.timeline.ticks.get(step.get()).cloned())
        })
    });

    let canvas_ref = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let current = step.get();
        summary.with(|s| {
            if let Some(s) = s {
                let theme = ChartTheme::from_css();
                let _ = charts::draw_on_canvas(&canvas, |root| {
                    skew_over_time::draw(root, &s.skew, current, &theme)
                });
            }
        });
    });

    let cfg = move |f: fn(&herding::Config) -> f64| {
        Signal::derive(move || view_state.with(|v| f(&v.config)))
    };
    let set = move |f: fn(&mut herding::Config, f64)| {
        Callback::new(move |x: f64| set_view.update(|v| f(&mut v.config, x)))
    };
    let whole = |x: f64| format!("{x:.0}");
    let chart_label = Signal::derive(move || {
        summary.with(|s| {
            s.as_ref()
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
            {move || error.get().map(|e| view! { <div class="notice error" role="alert">"Simulation error: " {e}</div> })}
            <div class="lab-grid">
                <section class="controls" aria-label="Controls">
                    <h2>"Setup"</h2>
                    <Slider id="replicas" label="Replicas" unit="" min=2.0 max=10.0 step=1.0 value=cfg(|c| f64::from(c.replicas)) format=whole
                        on_input=set(|c, x| c.replicas = x as u32) />
                    <Slider id="routers" label="Routers" unit="" min=1.0 max=8.0 step=1.0 value=cfg(|c| f64::from(c.routers)) format=whole
                        on_input=set(|c, x| c.routers = x as u32) hint="each dispatches on its own snapshot" />
                    <Slider id="interval" label="Scrape interval" unit="ticks" min=1.0 max=30.0 step=1.0 value=cfg(|c| f64::from(c.scrape_interval)) format=whole
                        on_input=set(|c, x| c.scrape_interval = x as u32) hint="how stale a snapshot can get" />
                    <Slider id="rate" label="Arrival rate" unit="req/tick" min=0.2 max=5.0 step=0.1 value=cfg(|c| c.arrival_rate) format=|x| format!("{x:.1}")
                        on_input=set(|c, x| c.arrival_rate = (x * 10.0).round() / 10.0) hint="Poisson" />
                    <Slider id="service" label="Service time" unit="ticks" min=1.0 max=60.0 step=1.0 value=cfg(|c| f64::from(c.service_time)) format=whole
                        on_input=set(|c, x| c.service_time = x as u32) />
                    <Slider id="ticks" label="Horizon" unit="ticks" min=30.0 max=300.0 step=10.0 value=cfg(|c| f64::from(c.ticks)) format=whole
                        on_input=set(|c, x| c.ticks = x as u32) />
                    <label class="check" data-control="stagger">
                        <input type="checkbox" id="stagger" prop:checked=move || view_state.with(|v| v.config.stagger)
                            on:change=move |ev| { let on = event_target_checked(&ev); set_view.update(|v| v.config.stagger = on) } />
                        " Stagger scrape times (router k scrapes k·T/K ticks later)"
                    </label>
                    <div class="seed-row" data-control="seed">
                        <label for="seed">"Seed"</label>
                        <input id="seed" type="number" min="0" step="1" prop:value=move || view_state.with(|v| v.config.seed.to_string())
                            on:change=move |ev| {
                                if let Ok(s) = event_target_value(&ev).trim().parse::<u64>() {
                                    set_view.update(|v| v.config.seed = s)
                                }
                            } />
                        <button id="new-trace" on:click=move |_| set_view.update(|v| v.config.seed = (js_sys::Math::random() * 1e6) as u64)>"New arrivals"</button>
                    </div>
                    <fieldset class="rule-picker" data-control="rule">
                        <legend>"Rule every router uses"</legend>
                        {HerdingRule::ALL.into_iter().map(|r| {
                            let id = format!("rule-{}", r.name());
                            view! {
                                <div class="rule-option">
                                    <input type="radio" name="rule" id=id.clone() prop:checked=move || rule.get() == r
                                        on:change=move |_| set_view.update(|v| v.rule = r) />
                                    <label for=id><span class="rule-name">{r.title()}</span><span class="rule-signal">{r.signal()}</span></label>
                                </div>
                            }
                        }).collect_view()}
                    </fieldset>
                </section>
                <section class="results" aria-label="Player">
                    <Player step=step len=len unit="tick" playing=playing speed=speed zero_based=true />
                    <div class="tick-view" inner_html=move || tick.with(|t| t.as_ref().map(|t| tick_html(t, rule.get())).unwrap_or_default())></div>
                    <figure class="chart">
                        <figcaption>"Skew over time (max − min actual outstanding); the current tick is highlighted"</figcaption>
                        <canvas node_ref=canvas_ref id="skew-chart" class="short" role="img" aria-label=chart_label></canvas>
                        <p class="sr-only">{chart_label}</p>
                    </figure>
                </section>
            </div>
            <section class="comparison" aria-label="Comparison of the four rules">
                <h2>"The four rules on the same arrivals"</h2>
                <div inner_html=move || outcome.with(|o| o.as_ref().map(|o| compare_html(o, rule.get())).unwrap_or_default())></div>
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
            r#"<div class="bar-row" role="listitem"><span class="bar-label">Replica {}</span><span class="bar-track"><span class="bar-old" style="width:{:.2}%;background:{c}"></span><span class="bar-new" style="width:{:.2}%;--c:{c}"></span></span><span class="bar-value">{o}{extra}</span></div>"#,
            i + 1,
            w(o - new),
            w(new)
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
    type Col = (&'static str, fn(&RuleSummary) -> f64, fn(f64) -> String);
    const COLS: [Col; 4] = [
        (
            "Peak skew",
            |r| f64::from(r.peak_skew),
            |x| format!("{x:.0}"),
        ),
        ("Mean skew", |r| r.mean_skew, |x| format!("{x:.1}")),
        ("Oscillation", |r| r.oscillation, |x| format!("{x:.2}")),
        (
            "Pile-up share",
            |r| r.pile_up_share,
            |x| format!("{:.0}%", x * 100.0),
        ),
    ];
    let masks: Vec<Vec<bool>> = COLS
        .iter()
        .map(|(_, f, show)| best_mask(&o.rules.iter().map(f).collect::<Vec<_>>(), false, *show))
        .collect();
    let mut head = vec![("Rule".to_string(), String::new())];
    head.extend(COLS.iter().map(|c| (c.0.to_string(), String::new())));
    Table {
        id: "herding-compare",
        class: "compare",
        head,
        rows: o
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut cells = vec![Cell::new(r.rule.title())];
                cells.extend(
                    COLS.iter()
                        .zip(&masks)
                        .map(|((_, f, show), m)| Cell::new(show(f(r))).best(m[i])),
                );
                Row {
                    cells,
                    selected: r.rule == selected,
                    key: None,
                }
            })
            .collect(),
        ..Table::default()
    }
    .render()
}

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Stale-signal herding</h1><p class="lede">Several routers pick replicas from load numbers scraped every few ticks. Step through the ticks: between scrapes every router believes the same replica is idlest, so they all pile onto it, then abandon it together at the next scrape. Try staggering the scrapes, or a fix.</p><p class="small muted">Ticks are abstract time steps; every request occupies its replica for a fixed service time. Follows §5.6 of the reference article.</p>"#;
