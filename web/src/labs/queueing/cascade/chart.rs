//! Cascades (§10.2): what the large pool's service times look like as the
//! escalated share changes: squared CV and mean, from the closed form.

use sim_core::labs::queueing::cascade::{cascade, Cascade};

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// C² and the mean ratio against the escalated share (1–100%), the setting in
/// use marked.
pub fn spec(c: &Cascade) -> ChartSpec {
    let curve: Vec<Cascade> = (1..=100)
        .filter_map(|p| cascade(f64::from(p) / 100.0, 0, 0).ok())
        .collect();
    let line = |label: &str, color, value: fn(&Cascade) -> f64| Series {
        label: Some(label.to_string()),
        color,
        mark: Mark::Line,
        points: curve
            .iter()
            .map(|x| (x.escalate * 100.0, value(x)))
            .collect(),
    };
    let q = c.escalate * 100.0;
    ChartSpec {
        x_desc: "share escalated to the large model (%)",
        y_desc: "relative to the raw traffic",
        x_range: (0.0, 100.0),
        y_range: (0.0, 6.0),
        x_label: crate::ui::plot::whole,
        y_label: |y| crate::ui::format::fixed(y, 0),
        x_labels: 11,
        series: vec![
            line("mean service time (× raw mean)", replica_color(5), |x| {
                x.mean_ratio
            }),
            line("service-time C² (raw: 1)", replica_color(4), |x| x.cv2),
        ],
        marker_x: Some(q),
        marker_y: None,
        ring: None,
        notes: vec![
            (
                q + 1.5,
                c.mean_ratio.min(5.6) + 0.25,
                format!("×{}", crate::ui::format::fixed(c.mean_ratio, 1)),
            ),
            (
                q + 1.5,
                c.cv2 + 0.3,
                format!("C² {}", crate::ui::format::fixed(c.cv2, 2)),
            ),
        ],
        legend: Legend::UpperRight,
    }
}
