//! Hedging (§9.2): what each strategy pays in extra GPU work for the tail it
//! gets, one point per strategy.

use sim_core::labs::queueing::hedging::Outcome;

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Palette index of each strategy's dot and swatch (yellow skipped: too faint
/// on a light background).
pub const COLORS: [usize; 5] = [0, 1, 2, 3, 4];

/// P99 latency against extra work, a labelled dot per strategy.
pub fn spec(o: &Outcome, names: &[String]) -> ChartSpec {
    let x_max = o
        .strategies
        .iter()
        .map(|s| s.extra_work * 100.0)
        .fold(10.0, f64::max)
        * 1.15;
    let y_max = o.strategies.iter().map(|s| s.p99).fold(1.0, f64::max) * 1.2;
    let series = o
        .strategies
        .iter()
        .enumerate()
        .map(|(i, s)| Series {
            label: Some(names[i].clone()),
            color: replica_color(COLORS[i % 5]),
            mark: Mark::Dots,
            points: vec![(s.extra_work * 100.0, s.p99)],
        })
        .collect();
    ChartSpec {
        x_desc: "extra GPU work (% of the work without hedging)",
        y_desc: "P99 latency (ms)",
        x_range: (-x_max * 0.03, x_max),
        y_range: (0.0, y_max),
        x_label: crate::ui::plot::whole,
        y_label: crate::ui::plot::whole,
        x_labels: 10,
        series,
        marker_x: None,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    }
}
