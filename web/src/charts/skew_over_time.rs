//! Skew over time (herding lab): max − min outstanding per tick, as bars, with
//! the player's current tick marked.

use super::{whole, ChartSpec, Legend, Mark, Series};
use crate::theme::ChartTheme;

/// Bars of `skew` per tick; the bar at `current` in the accent colour. The
/// y-axis reaches `top` (the largest skew of any rule of the run), so it
/// stays put when the reader switches rules.
pub fn spec(skew: &[u32], top: u32, current: usize, theme: &ChartTheme) -> ChartSpec {
    let n = skew.len().max(1) as f64;
    let y_max = f64::from(top.max(1) + 1);
    let bars = |keep: &dyn Fn(usize) -> bool| -> Vec<(f64, f64)> {
        skew.iter()
            .enumerate()
            .filter(|(t, _)| keep(*t))
            .map(|(t, &s)| (t as f64, f64::from(s)))
            .collect()
    };
    // 45% foreground over the background, so bars stay muted in either theme.
    let blend = |f: u8, b: u8| (0.45 * f64::from(f) + 0.55 * f64::from(b)).round() as u8;
    let (f, b) = (theme.foreground, theme.background);
    let muted = (blend(f.0, b.0), blend(f.1, b.1), blend(f.2, b.2));
    ChartSpec {
        x_desc: "tick",
        y_desc: "skew (max − min)",
        x_range: (0.0, n),
        y_range: (0.0, y_max),
        x_label: whole,
        y_label: whole,
        x_labels: 10,
        series: vec![
            Series {
                label: None,
                color: plotters::style::RGBColor(muted.0, muted.1, muted.2),
                mark: Mark::Bars,
                points: bars(&|t| t != current),
            },
            Series {
                label: None,
                color: theme.accent,
                mark: Mark::Bars,
                points: bars(&|t| t == current),
            },
        ],
        // The middle of the current bar (it runs from `current` to `current + 1`).
        marker_x: Some(current as f64 + 0.5),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::None,
    }
}
