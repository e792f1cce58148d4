//! Retry amplification (§9.1): upstream calls per user action over the steps of
//! a seeded incident, for three retry policies, on a logarithmic axis.

use sim_core::labs::queueing::retries::Outcome;

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Policy names, in chart and table order.
pub const POLICIES: [&str; 3] = [
    "every layer retries",
    "one layer retries",
    "one layer, under a budget",
];

/// The series of `o` in [`POLICIES`] order.
pub fn policies(o: &Outcome) -> [&[f64]; 3] {
    [&o.every_layer, &o.one_layer, &o.budgeted]
}

/// A tick label on the log axis: the value 10^y.
fn power_label(y: f64) -> String {
    let v = libm::pow(10.0, y);
    if v < 10.0 {
        crate::ui::format::fixed(v, 1)
    } else {
        crate::ui::format::fixed(v, 0)
    }
}

/// One line per policy; the incident window shaded.
pub fn spec(o: &Outcome) -> ChartSpec {
    let top = policies(o)
        .iter()
        .flat_map(|s| s.iter().copied())
        .fold(1.0, f64::max);
    let y_max = (top * 1.5).log10().max(0.5);
    // The axis starts a little below one call per action, so the calm
    // baseline (exactly 1) is a visible line above the axis, not on it.
    let y_min = 0.8f64.log10();
    let steps = o.config.steps as f64;
    let (a, b) = (
        f64::from(o.config.incident_start),
        f64::from(o.config.incident_start + o.config.incident_length),
    );
    let mut series = vec![Series {
        label: Some("incident".to_string()),
        color: replica_color(3),
        mark: Mark::Area,
        points: vec![(a, y_min), (b, y_min), (b, y_max), (a, y_max)],
    }];
    series.extend(policies(o).iter().enumerate().map(|(i, s)| {
        Series {
            label: Some(POLICIES[i].to_string()),
            color: replica_color([5, 4, 2][i]),
            mark: Mark::Line,
            points: s
                .iter()
                .enumerate()
                .map(|(t, &c)| (t as f64, c.max(1.0).log10()))
                .collect(),
        }
    }));
    ChartSpec {
        x_desc: "step",
        y_desc: "calls per action (log)",
        x_range: (0.0, steps),
        y_range: (y_min, y_max),
        x_label: crate::ui::plot::whole,
        y_label: power_label,
        x_labels: 13,
        series,
        marker_x: None,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    }
}
