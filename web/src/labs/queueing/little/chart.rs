//! Little's law (§1.3): the throughput ceiling λmax = Lmax / W of one replica
//! against the share of the prompt served from the prefix cache.

use sim_core::labs::queueing::little::Outcome;

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// λmax across cache-hit shares 0–100%, the setting in use ringed.
pub fn spec(o: &Outcome) -> ChartSpec {
    let points: Vec<(f64, f64)> = (0..=20)
        .map(|i| {
            let share = f64::from(i) / 20.0;
            (share * 100.0, o.ceiling_at(share))
        })
        .collect();
    let y_max = points.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-6) * 1.15;
    ChartSpec {
        x_desc: "prompt tokens served from the prefix cache (%)",
        y_desc: "λmax (requests / tick)",
        x_range: (0.0, 100.0),
        y_range: (0.0, y_max),
        x_label: crate::ui::plot::whole,
        y_label: |y| crate::ui::format::fixed(y, 2),
        x_labels: 11,
        series: vec![
            Series {
                label: Some("ceiling with cache hits".to_string()),
                color: replica_color(4),
                mark: Mark::Line,
                points,
            },
            Series {
                label: Some("seeded check".to_string()),
                color: replica_color(5),
                mark: Mark::Dots,
                points: vec![(o.config.cache_hit * 100.0, o.check.throughput)],
            },
            Series {
                label: Some("ceiling without".to_string()),
                color: replica_color(0),
                mark: Mark::Line,
                points: vec![(0.0, o.lambda_max), (100.0, o.lambda_max)],
            },
        ],
        marker_x: None,
        marker_y: None,
        ring: Some((o.config.cache_hit * 100.0, o.lambda_max_cached)),
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    }
}
