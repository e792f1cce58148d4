//! Batching player: iterations to drain against mean iterations per token, as
//! the chunked-prefill budget changes, for decode-first and prefill-first orders.

use sim_core::labs::batching::BudgetPoint;

use crate::ui::plot::{whole, ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// One line per order through the budgets; the setting in use is ringed.
pub fn spec(sweep: &[BudgetPoint], current: (u32, bool)) -> ChartSpec {
    let x_max = sweep.iter().map(|p| p.mean_gap).fold(1.0, f64::max) * 1.1 + 0.1;
    let y_max = f64::from(sweep.iter().map(|p| p.iterations).max().unwrap_or(1)) * 1.1;
    let at = |p: &BudgetPoint| (p.mean_gap, f64::from(p.iterations));
    let series = [false, true]
        .into_iter()
        .map(|prefill_first| Series {
            label: Some(
                if prefill_first {
                    "prefill chunks first"
                } else {
                    "decode first, prefill in the leftover budget"
                }
                .to_string(),
            ),
            color: replica_color(if prefill_first { 5 } else { 4 }),
            mark: Mark::LineDots,
            points: sweep
                .iter()
                .filter(|p| p.prefill_first == prefill_first)
                .map(at)
                .collect(),
        })
        .collect();
    ChartSpec {
        // Both axes say which way is better, so the chart reads without its
        // caption: down is sooner done, left is smoother decode.
        x_desc: "iterations per output token (decode smoothness)",
        y_desc: "iterations to drain",
        x_range: (0.9, x_max),
        y_range: (0.0, y_max),
        x_label: |x| crate::ui::format::fixed(x, 1),
        y_label: whole,
        x_labels: 8,
        series,
        marker_x: None,
        marker_y: None,
        ring: sweep
            .iter()
            .find(|p| (p.budget, p.prefill_first) == current)
            .map(at),
        // Budgets 1–3 named just right of their points (a prefill-first
        // point sitting on its decode-first twin is left unnamed), and which
        // way is better written in the empty upper middle.
        notes: sweep
            .iter()
            .filter(|p| p.budget <= 3 && (!p.prefill_first || p.mean_gap > 1.05))
            .map(|p| {
                let dx = 0.015 * (x_max - 0.9);
                (
                    p.mean_gap + dx,
                    f64::from(p.iterations),
                    format!("budget {}", p.budget),
                )
            })
            .chain(std::iter::once((
                0.9 + 0.3 * (x_max - 0.9),
                0.97 * y_max,
                "better: lower (drains sooner), further left (smoother)".to_string(),
            )))
            .collect(),
        legend: Legend::UpperRight,
    }
}
