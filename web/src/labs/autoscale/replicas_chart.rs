//! Autoscaling lab: replicas taking requests against the second, one line
//! per scaler, with the count the traffic needs (at every slot busy) as a
//! grey step and the player's second marked. A line that rises after the
//! grey step has fallen again is capacity ordered for a surge that has
//! passed (article §11.3); one that sits far above it is capacity paid for
//! and idle (§11.2).

use sim_core::choice::Choice;
use sim_core::labs::autoscale::{Config, Life, Outcome, Scaler};

use crate::ui::plot::{whole, ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Seconds between drawn points.
const EVERY: usize = 10;

/// Seconds as minutes and seconds (`8:20`).
fn minutes(x: f64) -> String {
    let s = x.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// Replicas the arrival rate at second `t` keeps busy with every slot in use.
fn needed(c: &Config, t: u32) -> f64 {
    (c.rate_at(t) / c.replica_rate()).ceil()
}

/// The chart of every run, second `current` marked.
pub fn spec(o: &Outcome, current: usize) -> Option<ChartSpec> {
    let c = &o.config;
    let ticks = c.ticks as usize;
    let mut series: Vec<Series> = vec![Series {
        label: Some("needed at full slots".to_string()),
        color: plotters::style::RGBColor(150, 150, 150),
        mark: Mark::Line,
        points: (0..ticks)
            .step_by(EVERY)
            .chain(core::iter::once(ticks - 1))
            .map(|t| (t as f64, needed(c, t as u32)))
            .collect(),
    }];
    series.extend(o.runs.iter().map(|r| {
        Series {
            label: Some(r.scaler.title().to_string()),
            color: replica_color(Scaler::ALL.iter().position(|&s| s == r.scaler).unwrap_or(0)),
            mark: Mark::Line,
            points: r
                .timeline
                .iter()
                .enumerate()
                .step_by(EVERY)
                .map(|(t, s)| (t as f64, f64::from(s.count(Life::Ready))))
                .collect(),
        }
    }));
    Some(ChartSpec {
        x_desc: "time (minutes:seconds)",
        y_desc: "replicas taking requests",
        x_range: (0.0, ticks as f64),
        y_range: (0.0, f64::from(c.max.max(c.replicas)) * 1.1 + 1.0),
        x_label: minutes,
        y_label: whole,
        x_labels: 7,
        series,
        marker_x: Some(current as f64),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    })
}

/// The chart in words: each scaler's peak and its ready count when the
/// surge ends.
pub fn summary(o: &Outcome) -> String {
    let end = (o.config.surge_at + o.config.surge_for) as usize;
    let parts: Vec<String> = o
        .runs
        .iter()
        .map(|r| {
            let at_end = r.timeline.get(end.min(r.timeline.len().saturating_sub(1)));
            format!(
                "{} peaks at {} and has {} ready when the surge ends",
                r.scaler.title(),
                r.peak,
                at_end.map_or(0, |s| s.count(Life::Ready))
            )
        })
        .collect();
    format!(
        "Line chart of replicas taking requests against time, one line per scaler, with the count the traffic needs at full slots as a grey step ({} outside the surge, {} during it). {}.",
        needed(&o.config, 0),
        needed(&o.config, o.config.surge_at),
        parts.join("; ")
    )
}
