//! First-token lab: where each strategy's failures ended up, as grouped
//! bars (hidden by recovery, errors, broken streams, resumed).

use sim_core::choice::Choice;
use sim_core::labs::first_token::{Outcome, Recovery, RecoveryRun};

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Reads one bar's count from a strategy's run.
type Count = fn(&RecoveryRun) -> u32;

/// The groups' bars: label, value.
const BARS: [(&str, Count); 4] = [
    ("recovered unseen", |r| r.recovered),
    ("errors", |r| r.errors),
    ("broken streams", |r| r.broken),
    ("resumed", |r| r.resumed),
];

/// The strategy whose group of bars holds `x` (groups start at 0, 5, 10, 15).
fn strategy(x: f64) -> String {
    let i = (x.max(0.0) / 5.0).floor() as usize;
    Recovery::ALL
        .get(i)
        .map_or_else(String::new, |r| r.name().to_string())
}

/// The chart: for strategy `i`, four bars side by side at `i*5 + b`.
pub fn spec(o: &Outcome) -> Option<ChartSpec> {
    let top = o
        .runs
        .iter()
        .flat_map(|r| BARS.iter().map(move |b| (b.1)(r)))
        .max()
        .unwrap_or(0)
        .max(4);
    let series = BARS
        .iter()
        .enumerate()
        .map(|(b, (label, value))| Series {
            label: Some(label.to_string()),
            color: replica_color(b),
            mark: Mark::Bars,
            points: o
                .runs
                .iter()
                .enumerate()
                .map(|(i, r)| ((i * 5 + b) as f64, f64::from(value(r))))
                .collect(),
        })
        .collect();
    Some(ChartSpec {
        x_desc: "strategy (none, retry, hedge, resume)",
        y_desc: "turns",
        x_range: (-0.5, (o.runs.len() * 5) as f64 - 0.5),
        y_range: (0.0, f64::from(top) * 1.15),
        x_label: strategy,
        y_label: |y| format!("{}", y.round() as i64),
        x_labels: 4,
        series,
        marker_x: None,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    })
}

/// The chart in words.
pub fn summary(o: &Outcome) -> String {
    let parts: Vec<String> = o
        .runs
        .iter()
        .map(|r| {
            format!(
                "{}: {} recovered unseen, {} errors, {} broken, {} resumed",
                r.recovery.title(),
                r.recovered,
                r.errors,
                r.broken,
                r.resumed
            )
        })
        .collect();
    format!(
        "Bar chart of where failures ended up, per strategy. {}.",
        parts.join("; ")
    )
}
