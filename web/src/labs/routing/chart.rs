//! Queue evolution: outstanding requests per replica over ticks (Routing Lab).

use sim_core::labs::routing::QueueSeries;

use crate::ui::plot::{whole, ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// The axes that fit every one of `queues` (every rule of a run), so
/// switching rules keeps the scale and lines can be compared by eye.
pub fn shared_range<'a>(queues: impl IntoIterator<Item = &'a QueueSeries>) -> (f64, f64) {
    let (mut x, mut y) = (1.0f64, 1u32);
    for q in queues {
        let points = q.series.first().map_or(0, Vec::len).max(1);
        x = x.max((points as u64 * q.stride) as f64);
        y = y.max(q.series.iter().flatten().copied().max().unwrap_or(0));
    }
    (x, f64::from(y + 1))
}

/// One line per replica, with a legend, on axes reaching `(x_max, y_max)`;
/// `current` marks the player's tick; `unit` names the x axis (`tick`, or
/// `ms` when a GPU preset prices the iterations).
pub fn spec(
    queue: &QueueSeries,
    (x_max, y_max): (f64, f64),
    current: Option<f64>,
    unit: &'static str,
) -> ChartSpec {
    ChartSpec {
        x_desc: unit,
        y_desc: "outstanding requests",
        x_range: (0.0, x_max),
        y_range: (0.0, y_max),
        x_label: whole,
        y_label: whole,
        x_labels: 8,
        series: queue
            .series
            .iter()
            .enumerate()
            .map(|(i, s)| Series {
                label: Some(format!("Replica {}", i + 1)),
                color: replica_color(i),
                mark: Mark::Line,
                points: s
                    .iter()
                    .enumerate()
                    .map(|(j, &v)| ((j as u64 * queue.stride) as f64, f64::from(v)))
                    .collect(),
            })
            .collect(),
        marker_x: current,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    }
}

/// A one-paragraph text alternative for the chart.
pub fn summary(queue: &QueueSeries, unit: &str) -> String {
    let mut parts = Vec::new();
    for (i, s) in queue.series.iter().enumerate() {
        let (peak_at, peak) = s
            .iter()
            .enumerate()
            .max_by_key(|(_, v)| **v)
            .map_or((0, 0), |(j, v)| (j, *v));
        parts.push(format!(
            "replica {} peaks at {} around {unit} {}",
            i + 1,
            peak,
            peak_at as u64 * queue.stride
        ));
    }
    let ticks = queue.series.first().map_or(0, Vec::len) as u64 * queue.stride;
    format!(
        "Line chart of outstanding requests per replica over {} {unit}s: {}.",
        ticks,
        parts.join("; ")
    )
}
