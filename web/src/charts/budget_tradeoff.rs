//! Batching player: iterations to drain against mean gap per token, as the
//! chunked-prefill budget changes, for decode-first and prefill-first orders.

use plotters::coord::Shift;
use plotters::prelude::*;
use sim_core::labs::batching::BudgetPoint;

use crate::theme::{replica_color, ChartTheme};

/// Draw one line per order through the budgets; `current` (budget, prefill
/// first) is ringed.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    sweep: &[BudgetPoint],
    current: (u32, bool),
    theme: &ChartTheme,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let x_max = sweep.iter().map(|p| p.mean_gap).fold(1.0, f64::max) * 1.1 + 0.1;
    let y_max = f64::from(sweep.iter().map(|p| p.iterations).max().unwrap_or(1)) * 1.1;
    let text = |size: u32| ("sans-serif", size).into_font().color(&theme.foreground);
    let mut chart = ChartBuilder::on(&root)
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(40)
        .build_cartesian_2d(0.9f64..x_max, 0f64..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("mean iterations per token after prefill")
        .y_desc("iterations to drain")
        .axis_desc_style(text(12))
        .label_style(text(11))
        .axis_style(theme.foreground)
        .light_line_style(theme.grid)
        .bold_line_style(theme.grid)
        .x_label_formatter(&|x| format!("{x:.1}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(err)?;
    for (k, prefill_first) in [false, true].into_iter().enumerate() {
        let color = replica_color(if prefill_first { 5 } else { 4 });
        let pts: Vec<&BudgetPoint> = sweep
            .iter()
            .filter(|p| p.prefill_first == prefill_first)
            .collect();
        chart
            .draw_series(LineSeries::new(
                pts.iter().map(|p| (p.mean_gap, f64::from(p.iterations))),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(if prefill_first {
                "prefill first"
            } else {
                "decode first"
            })
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|p| {
                let ring = (p.budget, p.prefill_first) == current;
                let size = if ring { 6 } else { 3 };
                Circle::new(
                    (p.mean_gap, f64::from(p.iterations)),
                    size,
                    if ring {
                        theme.accent.filled()
                    } else {
                        color.filled()
                    },
                )
            }))
            .map_err(err)?;
        chart
            .draw_series(pts.iter().filter(|p| p.budget <= 3).map(|p| {
                Text::new(
                    format!("{}", p.budget),
                    (
                        p.mean_gap + 0.02 * (k as f64 * 2.0 - 1.0) * x_max,
                        f64::from(p.iterations),
                    ),
                    text(11),
                )
            }))
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(text(11))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}
