//! LoRA lab: the longest replica queue in each second, one line per rule,
//! with the player's tick marked. Residency-only affinity piles a popular
//! adapter's requests onto the replicas holding it; balance without
//! affinity stalls every replica on loads; the llm-d pipeline stays low.

use sim_core::choice::Choice;
use sim_core::labs::lora::{Outcome, Rule, TICK_MS};

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

fn seconds(x: f64) -> String {
    let s = x.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

fn requests(y: f64) -> String {
    format!("{}", y.round() as i64)
}

/// The chart of every run, player tick `current` marked.
pub fn spec(o: &Outcome, current: usize) -> Option<ChartSpec> {
    let end = o
        .runs
        .iter()
        .map(|r| r.queue.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let top = o
        .runs
        .iter()
        .flat_map(|r| r.queue.iter().copied())
        .max()
        .unwrap_or(0)
        .max(4);
    let series = o
        .runs
        .iter()
        .map(|r| Series {
            label: Some(r.rule.title().to_string()),
            color: replica_color(Rule::ALL.iter().position(|&k| k == r.rule).unwrap_or(0)),
            mark: Mark::Line,
            points: r
                .queue
                .iter()
                .enumerate()
                .map(|(s, &q)| (s as f64 + 1.0, f64::from(q)))
                .collect(),
        })
        .collect();
    Some(ChartSpec {
        x_desc: "time (minutes:seconds)",
        y_desc: "longest replica queue (requests)",
        x_range: (0.0, end as f64),
        y_range: (0.0, f64::from(top) * 1.1),
        x_label: seconds,
        y_label: requests,
        x_labels: 7,
        series,
        marker_x: Some((current as u64 * u64::from(TICK_MS)) as f64 / 1000.0),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    })
}

/// The chart in words: each rule's longest queue over the run.
pub fn summary(o: &Outcome) -> String {
    let parts: Vec<String> = o
        .runs
        .iter()
        .map(|r| {
            format!(
                "{} peaks at {} requests",
                r.rule.title(),
                r.queue.iter().copied().max().unwrap_or(0)
            )
        })
        .collect();
    format!(
        "Line chart of the longest replica queue in each second against time, one line per rule. {}.",
        parts.join("; ")
    )
}
