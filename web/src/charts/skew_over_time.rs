//! Skew over time (herding lab): max − min outstanding per tick, as bars, with
//! the player's current tick marked.

use plotters::style::Color;

use super::{whole, ChartSpec, Legend, Mark, Series};
use crate::theme::ChartTheme;

/// Bars of `skew` per tick; the bar at `current` in the accent colour.
pub fn spec(skew: &[u32], current: usize, theme: &ChartTheme) -> ChartSpec {
    let n = skew.len().max(1) as f64;
    let y_max = f64::from(skew.iter().copied().max().unwrap_or(0).max(1) + 1);
    let bars = |keep: &dyn Fn(usize) -> bool| -> Vec<(f64, f64)> {
        skew.iter()
            .enumerate()
            .filter(|(t, _)| keep(*t))
            .map(|(t, &s)| (t as f64, f64::from(s)))
            .collect()
    };
    let muted = theme.foreground.mix(0.45).to_rgba();
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
        marker_x: Some(current as f64),
        ring: None,
        notes: Vec::new(),
        legend: Legend::None,
    }
}
