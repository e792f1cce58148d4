//! The Routing Lab page (article §4.2): controls, headline cards for one rule,
//! the queue-evolution chart, and the all-rules comparison.

mod state;
mod tables;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::routing;
use sim_core::routing::RuleKind;

use crate::charts::queue_evolution;
use crate::components::{
    ChartError, ControlKind, ControlSpec, Controls, ErrorLine, Getter, Notice, Setter,
};
use crate::format::{one_decimal, percent, thousands, ticks};
use crate::url::ParamReader;
use state::bounds;
pub use state::RoutingView;

/// A computed outcome (or the error to show) and how long it took, in ms.
/// The six result cards of one rule; each card's meaning shows on hover and
/// keyboard focus and is its accessible description.
fn cards_html(r: Option<&sim_core::labs::routing::RuleOutcome>) -> String {
    type Card = (
        &'static str,
        &'static str,
        &'static str,
        fn(&sim_core::labs::routing::RuleOutcome) -> String,
        &'static str,
    );
    const CARDS: [Card; 6] = [
        (
            "card-ttft-p50",
            "TTFT median",
            "ticks",
            |r| ticks(r.ttft_p50),
            "Ticks from arrival to first token for the middle request.",
        ),
        (
            "card-ttft-p95",
            "TTFT P95",
            "ticks",
            |r| ticks(r.ttft_p95),
            "95% of requests saw their first token within this many ticks.",
        ),
        (
            "card-e2e-p95",
            "E2E P95",
            "ticks",
            |r| ticks(r.e2e_p95),
            "95% of requests finished their whole answer within this many ticks.",
        ),
        (
            "card-slo",
            "TTFT SLO met",
            "",
            |r| percent(r.slo_attainment),
            SLO_MEANING,
        ),
        (
            "card-cache",
            "Prompt from cache",
            "",
            |r| percent(r.cache_hit_share),
            "Share of prompt tokens reused from a replica's prefix cache instead of recomputed.",
        ),
        (
            "card-throughput",
            "Output throughput",
            "tokens/tick",
            |r| one_decimal(r.output_throughput),
            "Output tokens of finished requests per tick, over the whole run.",
        ),
    ];
    CARDS
        .iter()
        .map(|(id, title, unit, value, meaning)| {
            let v = r.map(value).unwrap_or_else(|| "–".into());
            let unit = if unit.is_empty() { String::new() } else { format!(r#"<span class="card-unit"> {unit}</span>"#) };
            format!(
                r#"<div class="card" id="{id}" tabindex="0" aria-describedby="{id}-meaning"><div class="card-title">{title}</div><div class="card-value"><span class="card-number">{v}</span>{unit}</div><div class="card-meaning" id="{id}-meaning" role="tooltip">{meaning}</div></div>"#
            )
        })
        .collect()
}

/// The Routing Lab's controls, in display order.
fn control_specs() -> Vec<ControlSpec> {
    let range = |key, label, hint, (min, max): (f64, f64), step, unit, format| ControlSpec {
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
        range(
            "replicas",
            "Replicas",
            "identical engines, 8 batch slots each",
            bounds::REPLICAS,
            1.0,
            "",
            |x| crate::format::fixed(x, 0),
        ),
        range(
            "rate",
            "Arrival rate",
            "Poisson arrivals, λ",
            bounds::RATE,
            0.01,
            "req/tick",
            |x| crate::format::fixed(x, 2),
        ),
        range(
            "prompt",
            "Mean prompt",
            "320 prompt tokens per prefill tick",
            bounds::PROMPT,
            1.0,
            "tokens",
            |x| thousands(x as u64),
        ),
        range(
            "cv",
            "Prompt-length CV",
            "spread of prompt lengths",
            bounds::CV,
            0.05,
            "",
            |x| crate::format::fixed(x, 2),
        ),
        range(
            "long",
            "Long requests",
            "outputs ~250 tokens instead of ~100",
            (0.0, 100.0),
            5.0,
            "%",
            |x| crate::format::fixed(x, 0),
        ),
        ControlSpec {
            key: "seed",
            label: "Seed",
            hint: "",
            kind: ControlKind::Number,
        },
        ControlSpec {
            key: "new-trace",
            label: "New trace",
            hint: "",
            kind: ControlKind::Button,
        },
        ControlSpec {
            key: "rule",
            label: "Selection rule",
            hint: "",
            kind: ControlKind::Radio(
                RuleKind::ALL
                    .iter()
                    .map(|r| (r.name(), r.title(), r.signal()))
                    .collect(),
            ),
        },
    ]
}

/// A fresh seed for "new trace" (UI-side randomness; the simulation stays seeded).
fn random_seed() -> u64 {
    (js_sys::Math::random() * 1_000_000.0) as u64
}

/// The Routing Lab.
#[component]
pub fn RoutingLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let mut reader = ParamReader::new(pairs);
    let initial = RoutingView::from_query(&mut reader);
    let notices = reader.notices.clone();
    let (view_state, set_view) = signal(initial);
    let (outcome, error) = super::use_lab_run(move || {
        view_state.with(|v| routing::run(&v.config).map_err(|e| e.to_string()))
    });
    // Outside-world synchronisation only: the URL (and, below, the canvas).
    super::sync_url(Arc::new(move || view_state.with(RoutingView::to_query)));

    // Plain closures, not derived signals: each distinct signal type costs wasm.
    let rule = move || view_state.with(|v| v.rule);
    let rule_outcome = move || outcome.with(|o| o.as_ref().and_then(|o| o.rule(rule()).cloned()));

    let canvas_ref = NodeRef::<Canvas>::new();
    let chart_error = super::draw_effect(
        canvas_ref,
        Arc::new(move |_| rule_outcome().map(|r| queue_evolution::spec(&r.queue))),
    );
    let chart_summary = Signal::derive(move || {
        rule_outcome()
            .map(|r| queue_evolution::summary(&r.queue))
            .unwrap_or_default()
    });

    let get: Getter = Arc::new(move |key: &str| {
        view_state.with(|v| {
            let c = &v.config;
            match key {
                "replicas" => c.replicas.to_string(),
                "rate" => c.rate.to_string(),
                "prompt" => c.mean_prompt.to_string(),
                "cv" => c.prompt_cv.to_string(),
                "long" => (c.long_share * 100.0).round().to_string(),
                "seed" => c.seed.to_string(),
                "rule" => v.rule.name().to_string(),
                _ => String::new(),
            }
        })
    });
    let set: Setter = Arc::new(move |key: &str, value: &str| {
        let x = crate::num::parse_f64(value).filter(|x| x.is_finite());
        set_view.update(|v| {
            let c = &mut v.config;
            match (key, x) {
                ("replicas", Some(x)) => c.replicas = x as u32,
                ("rate", Some(x)) => c.rate = (x * 100.0).round() / 100.0,
                ("prompt", Some(x)) => c.mean_prompt = x as u32,
                ("cv", Some(x)) => c.prompt_cv = (x * 100.0).round() / 100.0,
                ("long", Some(x)) => c.long_share = x.round() / 100.0,
                ("seed", _) => {
                    if let Ok(seed) = value.trim().parse::<u64>() {
                        c.seed = seed;
                    }
                }
                ("new-trace", _) => c.seed = random_seed(),
                ("rule", _) => {
                    if let Some(r) = RuleKind::from_name(value) {
                        v.rule = r;
                    }
                }
                _ => {}
            }
        })
    });
    let select_rule = Callback::new(move |r: RuleKind| set_view.update(|v| v.rule = r));
    let trace_range = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    format!(
                        "{}–{} tokens (mean {})",
                        thousands(o.trace.prompt_min.into()),
                        thousands(o.trace.prompt_max.into()),
                        thousands(o.trace.prompt_mean.round() as u64)
                    )
                })
                .unwrap_or_default()
        })
    });

    view! {
        <article class="lab" id="routing-lab">
            <header class="lab-header" inner_html=HEADER_HTML></header>
            <Notice messages=notices />
            <ErrorLine error=error />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls">
                    <h2>"Workload"</h2>
                    <Controls specs=control_specs() get=get set=set />
                    <p class="small" id="prompt-range">"Generated prompts: " {trace_range}</p>
                </section>
                <section class="results" aria-label="Results">
                    <h2>{move || format!("Result for {}", rule().title())}</h2>
                    <div class="cards" inner_html=move || cards_html(rule_outcome().as_ref())></div>
                    <figure class="chart">
                        <figcaption>"Queue evolution: outstanding requests (waiting + running) per replica"</figcaption>
                        <canvas node_ref=canvas_ref id="queue-chart" role="img" aria-label=chart_summary></canvas>
                        <p class="sr-only" id="queue-chart-summary">{chart_summary}</p>
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
                    <div inner_html=move || rule_outcome().as_ref().map(tables::replica_table).unwrap_or_default()></div>
                </section>
            </div>
            <section class="comparison" aria-label="Comparison of all rules">
                <h2>"Every rule, same trace"</h2>
                <div
                    inner_html=move || outcome.with(|o| o.as_ref().map(|o| tables::compare_table(o, rule())).unwrap_or_default())
                    on:click=move |ev| {
                        if let Some(r) = crate::html::clicked_key(&ev).and_then(|k| RuleKind::from_name(&k)) {
                            select_rule.run(r);
                        }
                    }
                ></div>
                <p class="small muted">
                    "★ marks the best value in each column (ties all marked). TTFT SLO: first token within "
                    {sim_core::labs::routing::Config::default().slo_ttft} " ticks. Hover a column title for its meaning."
                </p>
            </section>
        </article>
    }
}

/// The SLO card's meaning (the objective is the core's default `slo_ttft`, 80 ticks).
const SLO_MEANING: &str =
    "Share of requests whose first token arrived within the 80-tick TTFT objective.";

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Routing Lab</h1><p class="lede">One seeded stream of requests, replayed under six selection rules on identical replicas. Push the arrival rate up and watch least outstanding pull ahead of round robin; switch to least KV usage and watch queues it cannot see pile up.</p><p class="small muted">A tick is one engine iteration (one prefill or one decode step), not a measured time. Follows §4.2 of the reference article; compare rules by their gaps, not absolute values.</p>"#;
