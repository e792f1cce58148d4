//! The utilisation knee (§1.2): wait over service time against utilisation for
//! several service-time CV², the tolerable wait as a horizontal line, each
//! curve's read-off, and the simulated points with their 95% band.

use sim_core::labs::queueing::knee::{Curve, Outcome};

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Curve names, in the order `knee::run` returns the curves.
pub const NAMES: [&str; 5] = [
    "deterministic, CV² 0",
    "exponential, CV² 1",
    "heavy tail, CV² 4",
    "your CV²",
    "Kingman: your CV² and Ca²",
];

/// Palette index of each curve (Okabe–Ito; the yellow is skipped: it is too
/// faint on a light background for a line the reader must follow).
pub const COLORS: [usize; 5] = [0, 1, 2, 3, 4];

/// A curve cut where it leaves the plot (the line ends on the top edge rather
/// than being drawn past it).
fn clipped(c: &Curve, y_max: f64) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0)];
    for &(x, y) in &c.points {
        let &(px, py) = out.last().unwrap_or(&(0.0, 0.0));
        if y > y_max {
            out.push((px + (x - px) * (y_max - py) / (y - py), y_max));
            break;
        }
        out.push((x, y));
    }
    out
}

/// The knee chart for `o`.
pub fn spec(o: &Outcome) -> ChartSpec {
    let wait = o.config.wait;
    let y_max = (wait * 2.5).clamp(12.0, 60.0);
    let kingman_differs = o.config.ca2 != 1.0;
    let mut series: Vec<Series> = o
        .curves
        .iter()
        .enumerate()
        .filter(|&(i, _)| i < 4 || kingman_differs)
        .map(|(i, c)| Series {
            label: Some(NAMES[i].to_string()),
            color: replica_color(COLORS[i]),
            mark: Mark::Line,
            points: clipped(c, y_max),
        })
        .collect();
    // Read-offs: drop from the tolerable wait to the utilisation axis.
    series.extend(o.curves.iter().take(4).enumerate().map(|(i, c)| Series {
        label: None,
        color: replica_color(COLORS[i]),
        mark: Mark::LineDots,
        points: vec![(c.usable_utilization, wait), (c.usable_utilization, 0.0)],
    }));
    if !o.simulated.is_empty() {
        let mut band: Vec<(f64, f64)> = o
            .simulated
            .iter()
            .map(|p| (p.rho, (p.mean_wait - p.band).max(0.0)))
            .collect();
        band.extend(
            o.simulated
                .iter()
                .rev()
                .map(|p| (p.rho, (p.mean_wait + p.band).min(y_max))),
        );
        series.push(Series {
            label: Some("simulated: 95% band".to_string()),
            color: replica_color(5),
            mark: Mark::Area,
            points: band,
        });
        series.push(Series {
            label: Some("simulated mean wait".to_string()),
            color: replica_color(5),
            mark: Mark::Dots,
            points: o
                .simulated
                .iter()
                .filter(|p| p.mean_wait <= y_max)
                .map(|p| (p.rho, p.mean_wait))
                .collect(),
        });
    }
    ChartSpec {
        x_desc: "utilisation ρ",
        y_desc: "mean wait / mean service time",
        x_range: (0.0, 1.0),
        y_range: (0.0, y_max),
        x_label: |x| crate::ui::format::fixed(x, 1),
        y_label: crate::ui::plot::whole,
        x_labels: 11,
        series,
        marker_x: None,
        marker_y: Some(wait),
        ring: None,
        notes: vec![(0.02, wait + y_max * 0.05, "tolerable wait".to_string())],
        legend: Legend::UpperLeft,
    }
}
