//! Prefill so far (prefix player): tokens prefilled by each router after each
//! request, with the player's request marked. The gap between the lines is
//! the prefill prefix affinity saved (article §6.1).

use sim_core::choice::Choice;
use sim_core::labs::prefix::RouterRun;

use crate::ui::plot::{whole, ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// One line per router over requests 1..=n; `current` is the player's
/// request (0-based).
pub fn spec(routers: &[RouterRun], current: usize) -> ChartSpec {
    let n = routers
        .iter()
        .map(|r| r.steps.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let top = routers
        .iter()
        .filter_map(|r| r.steps.last())
        .map(|s| s.cumulative_prefill)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    ChartSpec {
        x_desc: "request",
        y_desc: "tokens prefilled so far",
        x_range: (0.5, n as f64 + 0.5),
        y_range: (0.0, top * 1.08),
        x_label: whole,
        y_label: |y| crate::ui::format::thousands(y.round().max(0.0) as u64),
        x_labels: n.min(12),
        series: routers
            .iter()
            .enumerate()
            .map(|(k, r)| Series {
                label: Some(r.router.title().to_string()),
                color: replica_color(k),
                mark: Mark::LineDots,
                points: r
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| ((i + 1) as f64, s.cumulative_prefill as f64))
                    .collect(),
            })
            .collect(),
        marker_x: Some((current + 1) as f64),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    }
}
