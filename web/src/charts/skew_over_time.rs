//! Skew over time (herding lab): max − min outstanding per tick, as bars, with
//! the player's current tick marked.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::theme::ChartTheme;

/// Draw `skew` per tick as bars and a vertical marker at `current`.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    skew: &[u32],
    current: usize,
    theme: &ChartTheme,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let n = skew.len().max(1) as f64;
    let y_max = f64::from(skew.iter().copied().max().unwrap_or(0).max(1) + 1);
    let text = |size: u32| ("sans-serif", size).into_font().color(&theme.foreground);
    let mut chart = ChartBuilder::on(&root)
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(40)
        .build_cartesian_2d(0f64..n, 0f64..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("tick")
        .y_desc("skew (max − min)")
        .axis_desc_style(text(12))
        .label_style(text(11))
        .axis_style(theme.foreground)
        .light_line_style(theme.grid)
        .bold_line_style(theme.grid)
        .disable_x_mesh()
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(err)?;
    let bar = theme.foreground.mix(0.45).filled();
    let now = theme.accent.filled();
    chart
        .draw_series(skew.iter().enumerate().map(|(t, &s)| {
            let style = if t == current { now } else { bar };
            Rectangle::new([(t as f64, 0.0), (t as f64 + 1.0, f64::from(s))], style)
        }))
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(current as f64, 0.0), (current as f64, y_max)],
            theme.accent.stroke_width(1),
        )))
        .map_err(err)?;
    root.present().map_err(err)
}
