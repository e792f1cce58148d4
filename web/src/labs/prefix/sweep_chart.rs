//! Prefix player: hits and final assignment gap as the threshold goes 0…10, ∞.

use sim_core::labs::prefix::SweepPoint;

use crate::ui::plot::{whole, ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// The threshold axis: 0…10, then ∞ at position 11.
fn threshold_label(x: f64) -> String {
    match x.round() as i32 {
        11 => "∞".to_string(),
        x @ 0..=10 => x.to_string(),
        _ => String::new(),
    }
}

/// Hits and final max − min gap per threshold; the threshold in use (`current`,
/// an index into `sweep`) is marked.
pub fn spec(sweep: &[SweepPoint], current: usize) -> ChartSpec {
    let y_max = f64::from(
        sweep
            .iter()
            .map(|p| p.hits.max(p.assignment_gap))
            .max()
            .unwrap_or(1)
            + 1,
    );
    let line = |label: &str, color, value: fn(&SweepPoint) -> u32| Series {
        label: Some(label.to_string()),
        color,
        mark: Mark::LineDots,
        points: sweep
            .iter()
            .enumerate()
            .map(|(i, p)| (i as f64, f64::from(value(p))))
            .collect(),
    };
    ChartSpec {
        x_desc: "threshold (load gap tolerated)",
        y_desc: "requests",
        x_range: (-0.5, sweep.len() as f64 - 0.5),
        y_range: (0.0, y_max),
        x_label: threshold_label,
        y_label: whole,
        x_labels: sweep.len() + 1,
        series: vec![
            line("hits", replica_color(4), |p| p.hits),
            line("final max − min assignments", replica_color(5), |p| {
                p.assignment_gap
            }),
        ],
        marker_x: Some(current as f64),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    }
}
