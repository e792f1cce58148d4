//! Admission lab: goodput (requests per tick that meet the SLO) against a
//! steady offered load, one line per policy, the pool's capacity as a
//! horizontal line and the run's load as a vertical one: the knee of §1.2 on
//! a live pool. The circuit breaker is left out: with no failing replica it
//! never trips, so its line would be no control's. Without admission control goodput collapses past capacity;
//! with it, it stays near capacity.

use sim_core::choice::Choice;
use sim_core::labs::admission::{Outcome, Policy};

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Colour index of `policy`: its place in [`Policy::ALL`], so a policy keeps
/// its colour whichever policies a run holds.
fn policy_color(policy: Policy) -> usize {
    Policy::ALL.iter().position(|&p| p == policy).unwrap_or(0)
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn rate(y: f64) -> String {
    crate::ui::format::fixed(y, 2)
}

/// The goodput chart.
pub fn spec(o: &Outcome) -> Option<ChartSpec> {
    let last = o.sweep.last()?.0;
    let top = o
        .sweep
        .iter()
        .flat_map(|(_, g)| g.iter().copied())
        .fold(o.capacity, f64::max);
    Some(ChartSpec {
        x_desc: "steady offered load (share of capacity)",
        y_desc: "goodput (requests/tick within the SLO)",
        x_range: (0.0, last),
        y_range: (0.0, top * 1.15),
        x_label: percent,
        y_label: rate,
        x_labels: 6,
        // Not the breaker: at a steady load no replica fails, so it never
        // trips and its line would lie on no control's, hiding it.
        series: (0..o.policies.len())
            .filter(|&k| o.policies[k].policy != Policy::Breaker)
            .map(|k| {
                let r = &o.policies[k];
                Series {
                    label: Some(r.policy.title().to_string()),
                    color: replica_color(policy_color(r.policy)),
                    mark: Mark::LineDots,
                    points: o
                        .sweep
                        .iter()
                        .filter_map(|(load, g)| g.get(k).map(|&y| (*load, y)))
                        .collect(),
                }
            })
            .collect(),
        marker_x: Some(o.config.load),
        marker_y: Some(o.capacity),
        ring: None,
        notes: vec![(0.05, o.capacity, "capacity".to_string())],
        legend: Legend::UpperLeft,
    })
}

/// The chart in words: where each policy ends up at the highest load.
pub fn summary(o: &Outcome) -> String {
    let Some((load, g)) = o.sweep.last() else {
        return String::new();
    };
    let parts: Vec<String> = o
        .policies
        .iter()
        .zip(g)
        .map(|(r, y)| format!("{} {}", r.policy.title(), rate(*y)))
        .collect();
    format!(
        "Line chart of goodput against steady offered load, one line per policy; capacity is {} requests per tick. At {} load: {}.",
        rate(o.capacity),
        percent(*load),
        parts.join(", ")
    )
}
