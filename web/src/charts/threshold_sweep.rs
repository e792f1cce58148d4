//! Prefix player: hits and final assignment gap as the threshold goes 0…10, ∞.

use plotters::coord::Shift;
use plotters::prelude::*;
use sim_core::labs::prefix::SweepPoint;

use crate::theme::{replica_color, ChartTheme};

/// Draw hits (line with dots) and the final max − min gap (dashed) per threshold;
/// the threshold in use (`current`, index into `sweep`) is marked.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    sweep: &[SweepPoint],
    current: usize,
    theme: &ChartTheme,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let n = sweep.len().max(1) as i32;
    let nf = f64::from(n);
    let y_max = f64::from(
        sweep
            .iter()
            .map(|p| p.hits.max(p.assignment_gap))
            .max()
            .unwrap_or(1)
            + 1,
    );
    let text = |size: u32| ("sans-serif", size).into_font().color(&theme.foreground);
    let mut chart = ChartBuilder::on(&root)
        .margin(8)
        .x_label_area_size(32)
        .y_label_area_size(36)
        .build_cartesian_2d(-1f64..nf, 0f64..y_max)
        .map_err(err)?;
    let label = |x: &f64| match x.round() as i32 {
        x if x == n - 1 => "∞".to_string(),
        x if (0..n - 1).contains(&x) => x.to_string(),
        _ => String::new(),
    };
    chart
        .configure_mesh()
        .x_desc("threshold (load gap tolerated)")
        .y_desc("requests")
        .axis_desc_style(text(12))
        .label_style(text(11))
        .x_label_formatter(&label)
        .x_labels(n as usize + 2)
        .y_label_formatter(&|y| format!("{y:.0}"))
        .axis_style(theme.foreground)
        .light_line_style(theme.grid)
        .bold_line_style(theme.grid)
        .draw()
        .map_err(err)?;
    let hits_color = replica_color(4);
    let gap_color = replica_color(5);
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(current as f64, 0.0), (current as f64, y_max)],
            theme.accent.stroke_width(2),
        )))
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            sweep
                .iter()
                .enumerate()
                .map(|(i, p)| (i as f64, f64::from(p.hits))),
            hits_color.stroke_width(2),
        ))
        .map_err(err)?
        .label("hits")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 14, y)], hits_color.stroke_width(2))
        });
    chart
        .draw_series(
            sweep
                .iter()
                .enumerate()
                .map(|(i, p)| Circle::new((i as f64, f64::from(p.hits)), 3, hits_color.filled())),
        )
        .map_err(err)?;
    chart
        .draw_series(LineSeries::new(
            sweep
                .iter()
                .enumerate()
                .map(|(i, p)| (i as f64, f64::from(p.assignment_gap))),
            gap_color.stroke_width(2),
        ))
        .map_err(err)?
        .label("final max − min assignments")
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 14, y)], gap_color.stroke_width(2))
        });
    chart
        .draw_series(sweep.iter().enumerate().map(|(i, p)| {
            TriangleMarker::new(
                (i as f64, f64::from(p.assignment_gap)),
                4,
                gap_color.filled(),
            )
        }))
        .map_err(err)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(text(11))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}
