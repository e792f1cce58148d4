//! Goodput lab: SLO attainment and goodput against the offered rate, one line
//! per rule, each in its own colour and named in the legend; the rule in
//! focus is drawn last, on top, with a dot at every swept rate. (Grey lines
//! for the rules not in focus could not be told apart.)

use sim_core::choice::Choice;
use sim_core::labs::goodput::Outcome;
use sim_core::routing::RuleKind;

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

fn rate_label(x: f64) -> String {
    crate::ui::format::fixed(x, 2)
}

fn percent_label(y: f64) -> String {
    format!("{:.0}%", y * 100.0)
}

fn goodput_label(y: f64) -> String {
    crate::ui::format::fixed(y, 2)
}

/// One line per rule of `value` against the rate, each named and in its own
/// colour (its place in the run, so a rule keeps its colour on both
/// charts); `focus` drawn last, with dots.
fn lines(
    o: &Outcome,
    focus: RuleKind,
    value: fn(&sim_core::labs::goodput::RuleAtRate) -> f64,
) -> Vec<Series> {
    let Some(first) = o.points.first() else {
        return Vec::new();
    };
    let line = |k: usize| -> Vec<(f64, f64)> {
        o.points
            .iter()
            .filter_map(|p| p.rules.get(k).map(|r| (p.rate, value(r))))
            .filter(|(_, y)| y.is_finite())
            .collect()
    };
    let series = |k: usize, rule: RuleKind, mark: Mark| Series {
        label: Some(rule.title().to_string()),
        color: replica_color(k),
        mark,
        points: line(k),
    };
    let mut out: Vec<Series> = first
        .rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.rule != focus)
        .map(|(k, r)| series(k, r.rule, Mark::Line))
        .collect();
    if let Some(k) = first.rules.iter().position(|r| r.rule == focus) {
        out.push(series(k, focus, Mark::LineDots));
    }
    out
}

/// The swept range in the lab's rate unit.
fn swept(o: &Outcome) -> (f64, f64) {
    if o.config.routing.timing.in_ms() {
        (o.config.sweep_from_rps, o.config.sweep_to_rps)
    } else {
        (o.config.sweep_from, o.config.sweep_to)
    }
}

/// The axis title of offered rates: per tick, or per second in milliseconds mode.
fn rate_desc(o: &Outcome) -> &'static str {
    if o.config.routing.timing.in_ms() {
        "offered arrival rate (requests per second)"
    } else {
        "offered arrival rate (requests per tick)"
    }
}

fn x_range(o: &Outcome) -> (f64, f64) {
    let (lo, hi) = swept(o);
    let pad = (hi - lo) * 0.03;
    (lo - pad, hi + pad)
}

/// SLO attainment against the offered rate, with the capacity threshold.
pub fn slo_spec(o: &Outcome, focus: RuleKind) -> ChartSpec {
    ChartSpec {
        x_desc: rate_desc(o),
        y_desc: "within the TTFT SLO",
        x_range: x_range(o),
        y_range: (0.0, 1.02),
        x_label: rate_label,
        y_label: percent_label,
        x_labels: 8,
        series: lines(o, focus, |r| r.slo_attainment),
        marker_x: None,
        marker_y: Some(o.config.slo_target),
        ring: None,
        // The horizontal line named where the lines are far below it.
        notes: vec![(
            x_range(o).0 + (swept(o).1 - swept(o).0) * 0.55,
            o.config.slo_target,
            format!(
                "{} target: capacity while a line stays above",
                percent_label(o.config.slo_target)
            ),
        )],
        legend: Legend::UpperRight,
    }
}

/// Goodput (requests per tick that met the SLO) against the offered rate.
pub fn goodput_spec(o: &Outcome, focus: RuleKind) -> ChartSpec {
    let top = o
        .points
        .iter()
        .flat_map(|p| p.rules.iter().map(|r| r.goodput))
        .filter(|g| g.is_finite())
        .fold(swept(o).1, f64::max);
    ChartSpec {
        x_desc: rate_desc(o),
        y_desc: if o.config.routing.timing.in_ms() {
            "goodput (req/s)"
        } else {
            "goodput (req/tick)"
        },
        x_range: x_range(o),
        y_range: (0.0, top * 1.05),
        x_label: rate_label,
        y_label: goodput_label,
        x_labels: 8,
        series: lines(o, focus, |r| r.goodput),
        marker_x: None,
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    }
}

/// Both charts in words (their text alternatives).
pub fn summary(o: &Outcome, focus: RuleKind) -> String {
    let cap = o.capacities.iter().find(|c| c.rule == focus);
    match cap.and_then(|c| c.rate.map(|r| (r, c.beyond_sweep))) {
        Some((r, false)) => format!(
            "{} keeps {:.0}% of requests within the SLO up to {} requests per {}; above that its attainment falls.",
            focus.title(),
            o.config.slo_target * 100.0,
            rate_label(r),
            if o.config.routing.timing.in_ms() { "second" } else { "tick" }
        ),
        Some((r, true)) => format!(
            "{} keeps {:.0}% within the SLO at every swept rate, up to {}: its capacity is beyond the sweep.",
            focus.title(),
            o.config.slo_target * 100.0,
            rate_label(r)
        ),
        None => format!(
            "{} misses {:.0}% within the SLO even at the lowest swept rate.",
            focus.title(),
            o.config.slo_target * 100.0),
    }
}
