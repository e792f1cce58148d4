//! Retry amplification (§9.1): attempts multiply down a stack of layers, and a
//! seeded incident compares three places to put retries.

/// The chart spec.
pub mod chart;

use leptos::prelude::*;
use sim_core::labs::queueing::retries::{self, RetriesLab};

use super::heads;
use crate::labs::queueing::retries::chart::{policies, spec, POLICIES};
use crate::page::{Chart, Page, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Cell, Pick, Row, Table};

/// A layer's name in a stack of `n`, top first (the article's four layers).
fn layer_name(i: usize, n: usize) -> String {
    match (i, n - 1 - i) {
        (_, 0) => "Provider SDK".into(),
        (_, 1) => "Gateway router".into(),
        (0, _) => "Client SDK".into(),
        (1, _) => "Agent tool loop".into(),
        (i, _) => format!("Middleware {i}"),
    }
}

/// Steps of the incident, clipped to the run.
fn incident(o: &retries::Outcome) -> std::ops::Range<usize> {
    let cfg = &o.config;
    let start = (cfg.incident_start as usize).min(o.every_layer.len());
    let end = ((cfg.incident_start + cfg.incident_length) as usize).min(o.every_layer.len());
    start..end.max(start)
}

/// Each policy's peak calls per action during the incident, as shown.
fn peaks(o: &retries::Outcome) -> Vec<String> {
    let window = incident(o);
    policies(o)
        .iter()
        .map(|s| fixed(s[window.clone()].iter().copied().fold(0.0, f64::max), 2))
        .collect()
}

/// A layer's attempts, and the retries they mean.
fn attempts(a: u32) -> String {
    format!(
        "{} (+{} {})",
        if a == 1 {
            "1 attempt".to_string()
        } else {
            format!("{a} attempts")
        },
        a - 1,
        if a == 2 { "retry" } else { "retries" }
    )
}

/// The stack of layers and the worst case, then each policy's peak.
fn head(v: &View<'_, RetriesLab>) -> AnyView {
    let (o, cfg) = (v.outcome, &v.outcome.config);
    let n = cfg.attempts.len();
    let stack = cfg
        .attempts
        .iter()
        .zip(&o.running_product)
        .enumerate()
        .map(|(i, (&a, &product))| {
            view! {
                <li>
                    <span class="stack-layer">{layer_name(i, n)}</span>
                    <span class="stack-attempts">{attempts(a)}</span>
                    <span class="stack-product">{format!("×{product}")}</span>
                </li>
            }
        })
        .collect_view();
    let peaks = peaks(o);
    let mut cards = vec![card(
        "card-upstream",
        "Upstream calls, worst case",
        &crate::ui::format::thousands(o.upstream_calls),
        "per action",
        "The product of all layers' attempts: one action when every attempt fails.",
    )];
    for (i, id) in ["card-every", "card-one", "card-budget"]
        .into_iter()
        .enumerate()
    {
        cards.push(card(
            id,
            POLICIES[i],
            &peaks[i],
            "calls/action",
            "The most upstream calls per user action in one step of the incident.",
        ));
    }
    view! {
        <h2>"Worst case: attempts multiply"</h2>
        <p class="small muted">
            "Calls leaving each layer per user action when every attempt fails, top layer first:"
        </p>
        <ol class="stack" id="stack">{stack}</ol>
        <div class="cards">{cards}</div>
    }
    .into_any()
}

/// Each policy before and during the incident.
fn details(v: &View<'_, RetriesLab>, _: Pick) -> AnyView {
    let (o, cfg) = (v.outcome, &v.outcome.config);
    let n = cfg.attempts.len();
    let window = incident(o);
    let mean = |s: &[f64]| {
        if window.is_empty() {
            0.0
        } else {
            s[window.clone()].iter().sum::<f64>() / window.len() as f64
        }
    };
    let (series, peaks) = (policies(o), peaks(o));
    let before = (cfg.incident_start as usize / 2).min(o.every_layer.len().saturating_sub(1));
    let rows = (0..3)
        .map(|i| Row {
            cells: vec![
                Cell::new(POLICIES[i]),
                Cell::new(fixed(series[i].get(before).copied().unwrap_or(0.0), 2)),
                Cell::new(fixed(mean(series[i]), 2)),
                Cell::new(peaks[i].clone()),
            ],
            ..Row::default()
        })
        .collect();
    let table = Table {
        id: "policies",
        caption: format!(
            "{} user actions per step; the single retrying layer is the {}",
            cfg.actions,
            layer_name(n.saturating_sub(2), n),
        ),
        head: heads(&[
            ("Policy", ""),
            (
                "Before",
                "upstream calls per action halfway to the incident",
            ),
            ("Incident mean", "mean calls per action over the incident"),
            (
                "Incident peak",
                "highest calls per action in one step of the incident",
            ),
        ]),
        rows,
        ..Table::default()
    }
    .view(None);
    let incident = format!(
        "The incident runs from step {} for {} steps. Budgeted retries back off 1, 2, 4 … steps (times a random 0.5–1.5) and are dropped once the step's budget is spent.",
        cfg.incident_start, cfg.incident_length
    );
    view! {
        {table}
        <p class="small muted">{incident}</p>
    }
    .into_any()
}

/// The chart in words.
fn summary(v: &View<'_, RetriesLab>) -> String {
    let (cfg, peaks) = (&v.outcome.config, peaks(v.outcome));
    format!(
        "Upstream calls per user action over {} steps. During the incident every layer retrying peaks at {}, one retrying layer at {}, and one layer under a {}% budget at {}.",
        cfg.steps,
        peaks[0],
        peaks[1],
        fixed(cfg.budget * 100.0, 0),
        peaks[2],
    )
}

/// The retries page.
pub static PAGE: Page<RetriesLab> = Page {
    intro: crate::intro!(|| Html::trusted(INTRO)),
    cards: Some(head),
    charts: &[Chart::new(
        super::CHART,
        |_| "Upstream calls per user action through an incident".into(),
        |v, _| Some(spec(v.outcome)),
        summary,
    )
    .help(HELP)],
    tables: &[details],
    ..Page::EMPTY
};

impl crate::page::LabPage for RetriesLab {
    const PAGE: &'static Page<Self> = &PAGE;
}

const INTRO: &str = r#"<h1>Retry amplification</h1><p class="lede">Every layer of an agent stack retries a little, and the counts multiply. Edit the attempts per layer, then watch an outage: retrying everywhere floods the provider, one retrying layer is bounded, and a retry budget keeps calls near one per action.</p><p class="small muted">A step is one time unit of the simulated incident. Follows §9.1 of the reference article.</p>"#;

const HELP: &str = "Calls reaching the provider per user action, step by step, on a log axis. In the shaded outage, retries at every layer multiply towards the worst case; one retrying layer sends at most its attempts; a budget tied to recent successes, which vanish in an outage, stays near one.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_are_named_top_first() {
        let names: Vec<String> = (0..4).map(|i| layer_name(i, 4)).collect();
        assert_eq!(
            names,
            [
                "Client SDK",
                "Agent tool loop",
                "Gateway router",
                "Provider SDK"
            ]
        );
        assert_eq!(layer_name(0, 1), "Provider SDK");
        assert_eq!(layer_name(2, 6), "Middleware 2");
    }
}
