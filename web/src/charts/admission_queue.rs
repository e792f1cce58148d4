//! Admission lab: requests waiting at the gateway over ticks, one line per
//! policy (same arrivals), the player's tick marked. The policy in focus is
//! drawn last so it sits on top.

use sim_core::choice::Choice;
use sim_core::labs::admission::{Outcome, Policy};

use super::{whole, ChartSpec, Legend, Mark, Series};
use crate::theme::replica_color;

/// Colour index of `policy`: its place in [`Policy::ALL`], so a policy keeps
/// its colour on every chart and in the player.
pub fn policy_color(policy: Policy) -> usize {
    Policy::ALL.iter().position(|&p| p == policy).unwrap_or(0)
}

/// The queue chart at tick `current`.
pub fn spec(o: &Outcome, focus: Option<Policy>, current: usize) -> ChartSpec {
    let top = o
        .policies
        .iter()
        .flat_map(|r| r.timeline.iter().map(|s| s.queue))
        .max()
        .unwrap_or(0);
    let mut runs: Vec<_> = o.policies.iter().collect();
    runs.sort_by_key(|r| Some(r.policy) == focus);
    ChartSpec {
        x_desc: "tick",
        y_desc: "requests waiting at the gateway",
        x_range: (0.0, f64::from(o.config.ticks)),
        y_range: (0.0, f64::from(top + 1)),
        x_label: whole,
        y_label: whole,
        x_labels: 8,
        series: runs
            .iter()
            .map(|r| Series {
                label: Some(r.policy.title().to_string()),
                color: replica_color(policy_color(r.policy)),
                mark: Mark::Line,
                points: r
                    .timeline
                    .iter()
                    .enumerate()
                    .map(|(t, s)| (t as f64, f64::from(s.queue)))
                    .collect(),
            })
            .collect(),
        marker_x: Some(current as f64),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    }
}

/// The chart in words.
pub fn summary(o: &Outcome) -> String {
    let parts: Vec<String> = o
        .policies
        .iter()
        .map(|r| {
            let (at, peak) = r
                .timeline
                .iter()
                .enumerate()
                .max_by_key(|(_, s)| s.queue)
                .map_or((0, 0), |(t, s)| (t, s.queue));
            format!("{} peaks at {peak} around tick {at}", r.policy.title())
        })
        .collect();
    format!(
        "Line chart of requests waiting at the gateway over {} ticks, one line per policy: {}.",
        o.config.ticks,
        parts.join("; ")
    )
}
