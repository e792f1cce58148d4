//! Queue evolution: outstanding requests per replica over ticks (Routing Lab).

use sim_core::labs::routing::QueueSeries;

use super::{whole, ChartSpec, Legend, Mark, Series};
use crate::theme::replica_color;

/// One line per replica, with a legend.
pub fn spec(queue: &QueueSeries) -> ChartSpec {
    let points = queue.series.first().map_or(0, Vec::len).max(1);
    let x_max = (points as u64 * queue.stride).max(1) as f64;
    let y_max = f64::from(
        queue
            .series
            .iter()
            .flatten()
            .copied()
            .max()
            .unwrap_or(0)
            .max(1)
            + 1,
    );
    ChartSpec {
        x_desc: "tick",
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
        marker_x: None,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    }
}

/// A one-paragraph text alternative for the chart.
pub fn summary(queue: &QueueSeries) -> String {
    let mut parts = Vec::new();
    for (i, s) in queue.series.iter().enumerate() {
        let (peak_at, peak) = s
            .iter()
            .enumerate()
            .max_by_key(|(_, v)| **v)
            .map_or((0, 0), |(j, v)| (j, *v));
        parts.push(format!(
            "replica {} peaks at {} around tick {}",
            i + 1,
            peak,
            peak_at as u64 * queue.stride
        ));
    }
    let ticks = queue.series.first().map_or(0, Vec::len) as u64 * queue.stride;
    format!(
        "Line chart of outstanding requests per replica over {} ticks: {}.",
        ticks,
        parts.join("; ")
    )
}
