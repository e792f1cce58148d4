//! The Routing Lab's tables: all rules compared, and one rule's replicas.

use leptos::prelude::*;
use sim_core::labs::routing::{Outcome, RuleOutcome};
use sim_core::routing::RuleKind;

use crate::format::{one_decimal, percent, thousands, ticks};
use crate::theme::replica_hex;

/// A column of the comparison table.
struct Column {
    title: &'static str,
    meaning: &'static str,
    value: fn(&RuleOutcome) -> f64,
    show: fn(f64) -> String,
    higher_is_better: bool,
}

const COLUMNS: &[Column] = &[
    Column {
        title: "TTFT median",
        meaning: "ticks from arrival to first token, middle request",
        value: |r| r.ttft_p50,
        show: ticks,
        higher_is_better: false,
    },
    Column {
        title: "TTFT P95",
        meaning: "ticks to first token that 95% of requests beat",
        value: |r| r.ttft_p95,
        show: ticks,
        higher_is_better: false,
    },
    Column {
        title: "E2E P95",
        meaning: "ticks from arrival to last token, 95th percentile",
        value: |r| r.e2e_p95,
        show: ticks,
        higher_is_better: false,
    },
    Column {
        title: "SLO met",
        meaning: "share of requests with TTFT within the SLO",
        value: |r| r.slo_attainment,
        show: percent,
        higher_is_better: true,
    },
    Column {
        title: "From cache",
        meaning: "share of prompt tokens reused from a prefix cache",
        value: |r| r.cache_hit_share,
        show: percent,
        higher_is_better: true,
    },
    Column {
        title: "Assignment gap",
        meaning: "most requests sent to one replica minus fewest",
        value: |r| f64::from(r.assignment_gap),
        show: |x| thousands(x as u64),
        higher_is_better: false,
    },
    Column {
        title: "Throughput",
        meaning: "output tokens per tick over the run",
        value: |r| r.output_throughput,
        show: one_decimal,
        higher_is_better: true,
    },
];

/// Every rule on the same trace; the best value of each column is marked with a
/// star and the word "best". Clicking a rule's name shows its details.
#[component]
pub fn CompareTable(
    /// The outcome to tabulate.
    outcome: Signal<Option<std::sync::Arc<Outcome>>>,
    /// The rule whose details are shown.
    selected: Signal<RuleKind>,
    /// Select a rule.
    on_select: Callback<RuleKind>,
) -> impl IntoView {
    move || {
        let o = outcome.get()?;
        // Compare displayed values, so ties in what the reader sees are all marked.
        let best: Vec<String> = COLUMNS
            .iter()
            .map(|c| {
                let vals = o.rules.iter().map(|r| (c.value)(r));
                let b = if c.higher_is_better {
                    vals.fold(f64::MIN, f64::max)
                } else {
                    vals.fold(f64::MAX, f64::min)
                };
                (c.show)(b)
            })
            .collect();
        Some(view! {
            <div class="table-wrap">
            <table class="compare" id="compare-table">
                <caption>"All rules on the same trace and settings"</caption>
                <thead>
                    <tr>
                        <th scope="col">"Rule"</th>
                        {COLUMNS
                            .iter()
                            .map(|c| view! { <th scope="col" title=c.meaning>{c.title}</th> })
                            .collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {o.rules
                        .iter()
                        .map(|r| {
                            let rule = r.rule;
                            let cells = COLUMNS
                                .iter()
                                .zip(&best)
                                .map(|(c, b)| {
                                    let shown = (c.show)((c.value)(r));
                                    let is_best = &shown == b;
                                    view! {
                                        <td class:best=is_best>
                                            {shown}
                                            {is_best.then(|| view! { <span class="best-mark">" ★ best"</span> })}
                                        </td>
                                    }
                                })
                                .collect_view();
                            view! {
                                <tr class:selected=move || selected.get() == rule>
                                    <th scope="row">
                                        <button
                                            class="linklike"
                                            aria-pressed=move || (selected.get() == rule).to_string()
                                            on:click=move |_| on_select.run(rule)
                                        >
                                            {rule.title()}
                                        </button>
                                    </th>
                                    {cells}
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
            </div>
        })
    }
}

/// One rule's replicas: assigned, completed, utilisation and its prefill part.
#[component]
pub fn ReplicaTable(
    /// The selected rule's outcome.
    rule: Signal<Option<RuleOutcome>>,
) -> impl IntoView {
    move || {
        let r = rule.get()?;
        Some(view! {
            <div class="table-wrap">
            <table class="replicas" id="replica-table">
                <caption>{format!("Per-replica breakdown under {}", r.rule.title())}</caption>
                <thead>
                    <tr>
                        <th scope="col">"Replica"</th>
                        <th scope="col" title="requests routed to this replica">"Assigned"</th>
                        <th scope="col" title="requests it finished">"Completed"</th>
                        <th scope="col" title="share of ticks it ran a prefill or decode step">"Utilization"</th>
                        <th scope="col" title="share of ticks spent on prefill steps">"of which prefill"</th>
                    </tr>
                </thead>
                <tbody>
                    {r.replicas
                        .iter()
                        .enumerate()
                        .map(|(i, x)| {
                            view! {
                                <tr>
                                    <th scope="row">
                                        <span class="swatch" style=format!("background:{}", replica_hex(i))></span>
                                        {format!("Replica {}", i + 1)}
                                    </th>
                                    <td>{thousands(x.assigned.into())}</td>
                                    <td>{thousands(x.completed.into())}</td>
                                    <td>{percent(x.utilization)}</td>
                                    <td>{percent(x.prefill_share)}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
            </div>
        })
    }
}
