//! Tokens per iteration (batching player): output tokens of each iteration
//! as bars, the player's iteration in the accent colour. Gaps at zero are the
//! iterations a prefill (or an empty static batch) produced nothing (§7.2).

use sim_core::labs::batching::ModeRun;

use crate::ui::plot::{whole, ChartSpec, Legend};
use crate::ui::theme::ChartTheme;

/// Bars over iterations 1..=n (bar `i` from x = i − 1 to i, so the data x
/// of a bar is the player's 0-based index); `current` is that index.
/// The y-axis reaches `slots` (the most tokens an iteration can emit), so it
/// stays put when the reader switches modes.
pub fn spec(run: &ModeRun, slots: usize, current: usize, theme: &ChartTheme) -> ChartSpec {
    let n = run.iterations_detail.len().max(1);
    ChartSpec {
        x_desc: "iteration",
        y_desc: "output tokens",
        // Just short of n: the axis then never labels the right edge of the
        // last bar, which would read as an iteration n + 1.
        x_range: (0.0, n as f64 - 1e-6),
        y_range: (0.0, slots.max(1) as f64 + 0.5),
        // Iterations count from 1.
        x_label: |x| crate::ui::format::fixed(x + 1.0, 0),
        y_label: whole,
        x_labels: n.min(12),
        series: crate::ui::plot::step_bars(
            &run.iterations_detail
                .iter()
                .map(|d| f64::from(d.output_tokens))
                .collect::<Vec<_>>(),
            current,
            theme,
        ),
        marker_x: Some(current as f64 + 0.5),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::None,
    }
}
