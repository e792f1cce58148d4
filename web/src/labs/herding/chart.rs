//! Skew over time (herding lab): max − min outstanding per tick, as bars, with
//! the player's current tick marked.

use crate::ui::plot::{whole, ChartSpec, Legend};
use crate::ui::theme::ChartTheme;

/// Bars of `skew` per tick; the bar at `current` in the accent colour. The
/// y-axis reaches `top` (the largest skew of any rule of the run), so it
/// stays put when the reader switches rules.
pub fn spec(skew: &[u32], top: u32, current: usize, theme: &ChartTheme) -> ChartSpec {
    let n = skew.len().max(1) as f64;
    let y_max = f64::from(top.max(1) + 1);
    ChartSpec {
        x_desc: "tick",
        y_desc: "skew (max − min)",
        x_range: (0.0, n),
        y_range: (0.0, y_max),
        x_label: whole,
        y_label: whole,
        x_labels: 10,
        series: crate::ui::plot::step_bars(
            &skew.iter().map(|&s| f64::from(s)).collect::<Vec<_>>(),
            current,
            theme,
        ),
        // The middle of the current bar (it runs from `current` to `current + 1`).
        marker_x: Some(current as f64 + 0.5),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::None,
    }
}
