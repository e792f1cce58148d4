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

/// Where the sweep's `i`th bandwidth sits on the tier chart's axis: log₂
/// of GB/s, since the sweep doubles from 8 GB/s (3) with no shared tier a
/// step left of it (2). Read from the position, so the page needs no
/// base-2 logarithm of its own.
fn at(i: usize) -> f64 {
    i as f64 + 2.0
}

fn bandwidth(x: f64) -> String {
    let x = x.round();
    if x < 2.5 {
        "none".into()
    } else {
        format!("{}", 1u64 << (x as u32).min(62))
    }
}

/// A TTFT as the log axis places it: natural logarithms, already in the
/// page for other charts, scaled to base 10.
fn log10(ms: f64) -> f64 {
    libm::log(ms) / core::f64::consts::LN_10
}

fn millis(y: f64) -> String {
    crate::ui::format::fixed(libm::exp(y * core::f64::consts::LN_10), 0)
}

/// One rule's figure at one bandwidth.
type Value = fn(&sim_core::labs::lora::tiers::TierPoint) -> f64;

/// TTFT P95 against the shared store's bandwidth, one line per rule, on
/// logarithmic axes.
pub fn tiers(o: &Outcome) -> Option<ChartSpec> {
    if o.tiers.is_empty() {
        return None;
    }
    let lines: [(&str, Value); 3] = [
        ("Prefix-aware", |p| p.prefix_p95),
        ("Least load", |p| p.least_p95),
        ("Tier-aware cost", |p| p.tier_p95),
    ];
    let top = o
        .tiers
        .iter()
        .map(|p| p.prefix_p95.max(p.least_p95).max(p.tier_p95))
        .fold(100.0, f64::max);
    let series = lines
        .iter()
        .enumerate()
        .map(|(i, (label, value))| Series {
            label: Some((*label).to_string()),
            color: replica_color(i),
            mark: Mark::LineDots,
            points: o
                .tiers
                .iter()
                .enumerate()
                .map(|(i, p)| (at(i), log10(value(p).max(1.0))))
                .collect(),
        })
        .collect();
    Some(ChartSpec {
        x_desc: "shared store bandwidth (GB/s, log scale)",
        y_desc: "TTFT P95 (ms, log scale)",
        x_range: (1.8, 9.2),
        y_range: (1.0, log10(top) + 0.2),
        x_label: bandwidth,
        y_label: millis,
        x_labels: 8,
        series,
        marker_x: None,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperRight,
    })
}

/// The tier chart in words.
pub fn tiers_summary(o: &Outcome) -> String {
    let (Some(first), Some(last)) = (o.tiers.first(), o.tiers.last()) else {
        return String::new();
    };
    format!(
        "Line chart of TTFT P95 against the shared store's bandwidth. With no shared tier, least load reaches {} ms against prefix-aware's {} ms; at {} GB/s they are {} and {} ms: once a transfer is cheaper than a prefill, scattering a document costs little.",
        crate::ui::format::fixed(first.least_p95, 0),
        crate::ui::format::fixed(first.prefix_p95, 0),
        last.gbps,
        crate::ui::format::fixed(last.least_p95, 0),
        crate::ui::format::fixed(last.prefix_p95, 0)
    )
}
