//! The stale-signal herding lab page (article §5.6): a tick-by-tick player.

mod state;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::herding::{self, HerdingRule, Outcome, RuleSummary, TickSnapshot};

use crate::charts::{self, skew_over_time};
use crate::components::{Notice, Player, Slider};
use crate::format::one_decimal;
use crate::theme::{replica_hex, ChartTheme};
use crate::url::{self, ParamReader};
use state::HerdingView;

#[derive(Clone, PartialEq)]
struct Computed {
    result: Result<Arc<Outcome>, String>,
    ms: f64,
}

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

    let computed = Memo::new(move |_| {
        view_state.with(|v| {
            let start = super::now_ms();
            let result = herding::run(&v.config)
                .map(Arc::new)
                .map_err(|e| e.to_string());
            Computed {
                result,
                ms: super::now_ms() - start,
            }
        })
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
    Effect::new(move |_| {
        computed.with(|c| {
            if let Ok(o) = &c.result {
                let o = Arc::clone(o);
                super::publish(
                    move || serde_json::to_string_pretty(&*o).unwrap_or_default(),
                    c.ms,
                );
            }
        })
    });

    let outcome = Signal::derive(move || computed.with(|c| c.result.as_ref().ok().cloned()));
    let error = Signal::derive(move || computed.with(|c| c.result.as_ref().err().cloned()));
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
            <header class="lab-header">
                <h1>"Stale-signal herding"</h1>
                <p class="lede">
                    "Several routers pick replicas from load numbers scraped every few ticks. Step through the "
                    "ticks: between scrapes every router believes the same replica is idlest, so they all pile "
                    "onto it, then abandon it together at the next scrape. Try staggering the scrapes, or a fix."
                </p>
                <p class="small muted">
                    "Ticks are abstract time steps; every request occupies its replica for a fixed service time. "
                    "Follows §5.6 of the reference article."
                </p>
            </header>
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
                    <label class="check">
                        <input type="checkbox" id="stagger" prop:checked=move || view_state.with(|v| v.config.stagger)
                            on:change=move |ev| { let on = event_target_checked(&ev); set_view.update(|v| v.config.stagger = on) } />
                        " Stagger scrape times (router k scrapes k·T/K ticks later)"
                    </label>
                    <div class="seed-row">
                        <label for="seed">"Seed"</label>
                        <input id="seed" type="number" min="0" step="1" prop:value=move || view_state.with(|v| v.config.seed.to_string())
                            on:change=move |ev| {
                                if let Ok(s) = event_target_value(&ev).trim().parse::<u64>() {
                                    set_view.update(|v| v.config.seed = s)
                                }
                            } />
                        <button id="new-trace" on:click=move |_| set_view.update(|v| v.config.seed = (js_sys::Math::random() * 1e6) as u64)>"New arrivals"</button>
                    </div>
                    <fieldset class="rule-picker">
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
                    {move || tick.get().map(|t| view! { <TickView tick=t rule=rule.get() /> })}
                    <figure class="chart">
                        <figcaption>"Skew over time (max − min actual outstanding); the current tick is highlighted"</figcaption>
                        <canvas node_ref=canvas_ref id="skew-chart" class="short" role="img" aria-label=chart_label></canvas>
                        <p class="sr-only">{chart_label}</p>
                    </figure>
                </section>
            </div>
            <section class="comparison" aria-label="Comparison of the four rules">
                <h2>"The four rules on the same arrivals"</h2>
                <CompareTable outcome=outcome selected=rule />
                <p class="small muted">
                    "Skew is the gap between the busiest and the idlest replica. Oscillation is the mean change in skew "
                    "from one tick to the next. Pile-up share counts ticks with at least two arrivals in which every "
                    "arrival went to the same replica. ★ marks the best value in each column."
                </p>
            </section>
        </article>
    }
}

/// One tick: bars of actual outstanding (new work hatched), scrapes, router views.
#[component]
fn TickView(tick: TickSnapshot, rule: HerdingRule) -> impl IntoView {
    let max = tick.outstanding.iter().copied().max().unwrap_or(0).max(1);
    let scraped: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scraped)
        .map(|(i, _)| format!("Router {}", i + 1))
        .collect();
    let counts_own = matches!(rule, HerdingRule::OwnDispatches | HerdingRule::Both);
    let n = tick.outstanding.len();
    view! {
        <div class="tick-view">
            <h2 id="tick-heading">{format!("Tick {} · {} arrivals · max − min = {}", tick.tick, tick.arrivals, tick.skew)}</h2>
            <div class="bars" role="list" aria-label="Actual outstanding requests per replica">
                {tick.outstanding.iter().zip(&tick.new).enumerate().map(|(i, (&o, &new))| {
                    let old = o - new;
                    let w = |x: u32| format!("width:{:.2}%", 100.0 * f64::from(x) / f64::from(max));
                    view! {
                        <div class="bar-row" role="listitem">
                            <span class="bar-label">{format!("Replica {}", i + 1)}</span>
                            <span class="bar-track">
                                <span class="bar-old" style=format!("{};background:{}", w(old), replica_hex(i))></span>
                                <span class="bar-new" style=format!("{};--c:{}", w(new), replica_hex(i))></span>
                            </span>
                            <span class="bar-value">{o}{(new > 0).then(|| format!(" (+{new} new)"))}</span>
                        </div>
                    }
                }).collect_view()}
            </div>
            <p class="small legend"><span class="key-old"></span>" in flight from earlier ticks  "<span class="key-new"></span>" dispatched this tick"</p>
            <p id="scraped">{if scraped.is_empty() { "Nobody scraped this tick.".to_string() } else { format!("Scraped this tick: {}.", scraped.join(", ")) }}</p>
            <div class="table-wrap">
                <table id="router-table">
                    <caption>"What each router sees"{counts_own.then_some(" (snapshot + own dispatches since it)")}</caption>
                    <thead><tr>
                        <th scope="col">"Router"</th>
                        {(0..n).map(|i| view! { <th scope="col">{format!("R{}", i + 1)}</th> }).collect_view()}
                        <th scope="col" title="ticks since this router last scraped">"Age"</th>
                        <th scope="col">"Sent this tick to"</th>
                    </tr></thead>
                    <tbody>
                        {tick.routers.iter().enumerate().map(|(k, r)| {
                            let sent = if r.dispatched.is_empty() { "—".to_string() } else {
                                r.dispatched.iter().map(|d| format!("Replica {}", d + 1)).collect::<Vec<_>>().join(", ")
                            };
                            view! {
                                <tr>
                                    <th scope="row">{format!("Router {}", k + 1)}{r.scraped.then_some(" ⟳")}</th>
                                    {r.snapshot.iter().zip(&r.own).map(|(s, o)| view! {
                                        <td>{if counts_own && *o > 0 { format!("{s}+{o}") } else { s.to_string() }}</td>
                                    }).collect_view()}
                                    <td>{r.age}</td>
                                    <td class="sent">{sent}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        </div>
    }
}

/// The four rules compared; best per column marked with a star and text.
#[component]
fn CompareTable(
    outcome: Signal<Option<Arc<Outcome>>>,
    selected: Signal<HerdingRule>,
) -> impl IntoView {
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
    move || {
        let o = outcome.get()?;
        // Lower is better in every column here.
        let best: Vec<String> = COLS
            .iter()
            .map(|(_, f, show)| show(o.rules.iter().map(f).fold(f64::MAX, f64::min)))
            .collect();
        Some(view! {
            <div class="table-wrap">
            <table class="compare" id="herding-compare">
                <thead><tr><th scope="col">"Rule"</th>{COLS.iter().map(|c| view! { <th scope="col">{c.0}</th> }).collect_view()}</tr></thead>
                <tbody>
                    {o.rules.iter().map(|r| {
                        let rule = r.rule;
                        view! {
                            <tr class:selected=move || selected.get() == rule>
                                <th scope="row">{rule.title()}</th>
                                {COLS.iter().zip(&best).map(|((_, f, show), b)| {
                                    let shown = show(f(r));
                                    let is_best = &shown == b;
                                    view! { <td class:best=is_best>{shown}{is_best.then(|| view! { <span class="best-mark">" ★ best"</span> })}</td> }
                                }).collect_view()}
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            </div>
        })
    }
}
