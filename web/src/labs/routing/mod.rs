//! The Routing Lab page (article §4.2): controls with the offered load, a
//! tick-by-tick player (one rule, or two side by side), headline cards for one
//! rule, the queue-evolution chart, and the all-rules comparison.

mod decisions;
mod player;
mod stage;
mod tables;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::routing::{RoutingLab as Lab, RuleOutcome};
use sim_core::labs::Lab as _;
use sim_core::routing::RuleKind;

use super::lab::{LabPage, Steps};
use crate::charts::queue_evolution;
use crate::components::{ChartError, Controls, ErrorLine, Notice, RunStatus, TracePanel};
use crate::format::{one_decimal, percent, thousands, ticks};
use crate::html::{card, el, Html, Markup};

/// The six result cards of one rule; each card's meaning shows on hover and
/// keyboard focus and is its accessible description.
fn cards(r: Option<&RuleOutcome>, slo: u32) -> Html {
    let value = |f: fn(&RuleOutcome) -> String| r.map(f).unwrap_or_else(|| "–".into());
    [
        card(
            "card-ttft-p50",
            "TTFT median",
            &value(|r| ticks(r.ttft_p50)),
            "ticks",
            "Ticks from arrival to first token for the middle request.",
        ),
        card(
            "card-ttft-p95",
            "TTFT P95",
            &value(|r| ticks(r.ttft_p95)),
            "ticks",
            "95% of requests saw their first token within this many ticks.",
        ),
        card(
            "card-e2e-p95",
            "E2E P95",
            &value(|r| ticks(r.e2e_p95)),
            "ticks",
            "95% of requests finished their whole answer within this many ticks.",
        ),
        card(
            "card-slo",
            "TTFT SLO met",
            &value(|r| percent(r.slo_attainment)),
            "",
            &format!(
                "Share of requests whose first token arrived within the {slo}-tick TTFT objective."
            ),
        ),
        card(
            "card-cache",
            "Prompt from cache",
            &value(|r| percent(r.cache_hit_share)),
            "",
            "Share of prompt tokens reused from a replica's prefix cache instead of recomputed.",
        ),
        card(
            "card-throughput",
            "Output throughput",
            &value(|r| one_decimal(r.output_throughput)),
            "tokens/tick",
            "Output tokens of finished requests per tick, over the whole run.",
        ),
    ]
    .into_iter()
    .collect()
}

/// The page header: title, what to try, and what a tick means.
fn header() -> Html {
    let rules = RuleKind::ALL.len();
    el("div")
        .child(el("h1").text(Lab::INFO.title))
        .child(el("p").class("lede").text(format!(
            "One seeded stream of requests, replayed under {rules} selection rules on identical replicas. \
             From light load up to about the pool's capacity (the offered load under the rate says where \
             you are), least outstanding keeps the slowest first tokens sooner than round robin in most \
             seeds; far past capacity every rule is just a queue and their order is close to a coin flip. \
             Play the ticks to watch where each request goes, or put two rules side by side."
        )))
        .child(el("p").class("small muted").text(
            "A tick is one engine iteration (one prefill or one decode step), not a measured time. \
             Follows §4.2 of the reference article; compare rules by their gaps, not absolute values.",
        ))
        .into()
}

/// What the rule in focus reads and, for a real router's policy, where it is
/// from.
fn about_rule(rule: RuleKind) -> Html {
    let origin = rule.origin();
    let mut p = el("p")
        .class("small rule-about")
        .id("rule-about")
        .text(rule.signal());
    if !origin.is_textbook() {
        p = p.child(
            el("span")
                .class("muted")
                .text(format!(" Modelled on {}.", origin.credit())),
        );
    }
    p.into()
}

/// The Routing Lab.
#[component]
pub fn RoutingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let lab = LabPage::<Lab>::new(&pairs, Steps::FromZero);
    let step = lab.step;
    let playing = RwSignal::new(false);
    let timeline = player::use_timeline(&lab);
    let (config, focus, outcome) = (lab.config, lab.focus, lab.outcome);
    // Plain closures, not derived signals: each distinct signal type costs wasm.
    let rule = move || RuleKind::from_name(focus.get()).unwrap_or(RuleKind::LeastOutstanding);
    let rule_outcome = move || outcome.with(|o| o.as_ref().and_then(|o| o.rule(rule()).cloned()));

    let canvas_ref = NodeRef::<Canvas>::new();
    let chart_error = super::draw_linked(
        canvas_ref,
        Arc::new(move |_| {
            let range = outcome.with(|o| {
                o.as_ref()
                    .map(|o| queue_evolution::shared_range(o.rules.iter().map(|r| &r.queue)))
            })?;
            let current = step.get();
            rule_outcome().map(|r| queue_evolution::spec(&r.queue, range, Some(current as f64)))
        }),
        Some(super::seek_to(step, playing)),
    );
    let offered = move || {
        rule_outcome().map(|r| {
            let rate = config.with(|c| c.rate);
            let load = r.offered_load;
            let (class, verdict) = if load > 1.15 {
                (
                    "offered over",
                    "over capacity: requests arrive faster than the pool can serve them, so queues grow until arrivals stop",
                )
            } else if load > 0.85 {
                ("offered near", "around capacity: queues build up while requests keep arriving")
            } else {
                ("offered", "below capacity")
            };
            let source = outcome.with(|o| {
                o.as_ref().map(|o| o.source) == Some(sim_core::labs::routing::TraceSource::Replayed)
            });
            el("p")
                .class(class)
                .id("offered-load")
                .attr("role", if load > 1.15 { "status" } else { "note" })
                .child(el("strong").text(format!("Offered load {}%", crate::format::fixed(load * 100.0, 0))))
                .text(if source {
                    format!(" of the pool's capacity ({verdict}).")
                } else {
                    format!(" of the pool's capacity at {} req/tick ({verdict}).", crate::format::fixed(rate, 2))
                })
                .child(el("span").class("small muted").text(
                    " Work the requests bring (uncached prompt in prefill steps, output at full batches) per tick of arrivals, over what the replicas can run.",
                ))
                .into()
        })
    };
    // Side by side: the second rule's queues on the same axes.
    let vs = lab.vs;
    let vs_rule = move || RuleKind::from_name(vs.get()).filter(|r| *r != rule());
    let vs_ref = NodeRef::<Canvas>::new();
    let vs_error = super::draw_linked(
        vs_ref,
        Arc::new(move |_| {
            let other = vs_rule()?;
            let current = step.get();
            outcome.with(|o| {
                let o = o.as_ref()?;
                let range = queue_evolution::shared_range(o.rules.iter().map(|r| &r.queue));
                o.rule(other)
                    .map(|r| queue_evolution::spec(&r.queue, range, Some(current as f64)))
            })
        }),
        Some(super::seek_to(step, playing)),
    );
    let vs_summary = Signal::derive(move || {
        vs_rule()
            .and_then(|other| {
                outcome.with(|o| {
                    o.as_ref()
                        .and_then(|o| o.rule(other))
                        .map(|r| queue_evolution::summary(&r.queue))
                })
            })
            .unwrap_or_default()
    });
    let chart_summary = Signal::derive(move || {
        rule_outcome()
            .map(|r| queue_evolution::summary(&r.queue))
            .unwrap_or_default()
    });
    let import_summary = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .and_then(|o| o.import.as_ref())
                .map(|i| i.summary())
        })
    });
    let trace_range = move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    format!(
                        "{} prompts: {}–{} tokens (mean {})",
                        match o.source {
                            sim_core::labs::routing::TraceSource::Generated => "Generated",
                            sim_core::labs::routing::TraceSource::Replayed => "Trace",
                        },
                        thousands(o.trace.prompt.min.into()),
                        thousands(o.trace.prompt.max.into()),
                        thousands(o.trace.prompt.mean.round() as u64)
                    )
                })
                .unwrap_or_default()
        })
    };
    let slo = move || config.with(|c| c.slo_ttft);
    let set_focus = lab.set_focus();
    let select_rule = move |r: RuleKind| set_focus(r.name());
    let pickable = lab.focus_open();

    view! {
        <article class="lab" id="routing-lab">
            <header class="lab-header"><Markup html=header() /></header>
            <Notice messages=lab.notices.clone() />
            <ErrorLine error=move || outcome.error() />
            <RunStatus status=lab.status unit="rules" />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls" data-panel="controls">
                    <h2>"Workload"</h2>
                    <Controls specs=lab.control_specs() get=lab.getter() set=lab.setter() />
                    <Markup html=move || offered().unwrap_or_default() />
                    <p class="small" id="prompt-range">{trace_range}</p>
                    <TracePanel trace=lab.trace import=lab.import set=lab.setter() summary=import_summary />
                </section>
                <section class="results" aria-label="Results">
                    <player::RoutingPlayer lab=lab.clone() playing=playing timeline=timeline />
                    <div data-panel="cards">
                        <h2>{move || format!("Result for {}", rule().title())}</h2>
                        <Markup html=move || about_rule(rule()) />
                        <Markup class="cards" html=move || cards(rule_outcome().as_ref(), slo()) />
                    </div>
                    <figure class="chart" data-panel="chart">
                        <figcaption>{move || format!(
                            "Queue evolution under {}: outstanding requests (waiting + running) per replica; the line marks the player's tick (click to move it)",
                            rule().title()
                        )}</figcaption>
                        <canvas node_ref=canvas_ref id="queue-chart" role="img" aria-label=chart_summary></canvas>
                        <p class="sr-only" id="queue-chart-summary">{chart_summary}</p>
                        // Collapsed rather than hidden: the canvas keeps its
                        // width, so it is drawn at its real size while closed.
                        <div class="vs-chart" class:vs-off=move || vs_rule().is_none()>
                            <p class="small"><strong>{move || vs_rule().map(|r| format!("… and under {}, on the same axes", r.title())).unwrap_or_default()}</strong></p>
                            <canvas node_ref=vs_ref id="queue-chart-vs" role="img" aria-label=vs_summary></canvas>
                            <ChartError error=vs_error />
                        </div>
                        <ChartError error=chart_error />
                        <details>
                            <summary>"What am I looking at?"</summary>
                            <p class="small">
                                "Each line is one replica's queue plus batch: requests routed to it and not yet finished. "
                                "Lines that stay together mean the rule spreads work evenly; one line climbing away from "
                                "the others is a replica the rule keeps feeding while it is already behind. Each point is "
                                "the highest value within a few ticks."
                            </p>
                        </details>
                    </figure>
                    <div data-panel="table">
                        <Markup html=move || rule_outcome().as_ref().map(tables::replica_table).unwrap_or_default() />
                        <decisions::Decisions lab=lab.clone() />
                    </div>
                </section>
            </div>
            <section class="comparison" aria-label="Comparison of all rules" data-panel="table">
                <h2>"Every rule, same trace"</h2>
                <div on:click=move |ev| {
                    if let Some(r) = crate::html::clicked_key(&ev).and_then(|k| RuleKind::from_name(&k)) {
                        select_rule(r);
                    }
                }>
                    <Markup html=move || outcome.with(|o| o.as_ref().map(|o| tables::compare_table(o, rule(), pickable)).unwrap_or_default()) />
                </div>
                <p class="small muted">
                    "★ marks the best value in each column (every tied best is marked; a column where all rows tie has none). TTFT SLO: first token within "
                    {slo} " ticks. Hover a column title for its meaning."
                </p>
            </section>
        </article>
    }
}
