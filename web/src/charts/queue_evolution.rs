//! Queue evolution: outstanding requests per replica over ticks (Routing Lab).

use plotters::coord::Shift;
use plotters::prelude::*;
use sim_core::labs::routing::QueueSeries;

use crate::theme::{replica_color, ChartTheme};

/// Draw one line per replica of `queue` onto `root`, with axis titles and a legend.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    queue: &QueueSeries,
    theme: &ChartTheme,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let points = queue.series.first().map_or(0, Vec::len).max(1);
    let x_max = (points as u64 * queue.stride).max(1) as f64;
    let y_max = f64::from(
        queue
            .series
            .iter()
            .flatten()
            .copied()
            .max()
            .unwrap_or(0)
            .max(1)
            + 1,
    );
    let text = |size: u32| ("sans-serif", size).into_font().color(&theme.foreground);
    let mut chart = ChartBuilder::on(&root)
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("tick")
        .y_desc("outstanding requests")
        .axis_desc_style(text(13))
        .label_style(text(12))
        .axis_style(theme.foreground)
        .light_line_style(theme.grid)
        .bold_line_style(theme.grid)
        .x_labels(8)
        .y_labels(6)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .map_err(err)?;
    for (i, s) in queue.series.iter().enumerate() {
        let color = replica_color(i);
        chart
            .draw_series(LineSeries::new(
                s.iter()
                    .enumerate()
                    .map(|(j, &v)| ((j as u64 * queue.stride) as f64, f64::from(v))),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(format!("Replica {}", i + 1))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(3))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(theme.background.mix(0.85))
        .border_style(theme.grid)
        .label_font(text(12))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// A one-paragraph text alternative for the chart.
pub fn summary(queue: &QueueSeries) -> String {
    let mut parts = Vec::new();
    for (i, s) in queue.series.iter().enumerate() {
        let (peak_at, peak) = s
            .iter()
            .enumerate()
            .max_by_key(|(_, v)| **v)
            .map_or((0, 0), |(j, v)| (j, *v));
        parts.push(format!(
            "replica {} peaks at {} around tick {}",
            i + 1,
            peak,
            peak_at as u64 * queue.stride
        ));
    }
    let ticks = queue.series.first().map_or(0, Vec::len) as u64 * queue.stride;
    format!(
        "Line chart of outstanding requests per replica over {} ticks: {}.",
        ticks,
        parts.join("; ")
    )
}
