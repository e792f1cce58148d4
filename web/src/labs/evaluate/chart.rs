//! The evaluate lab's two charts: goodput as the load rises, open and
//! closed loop (§15: a closed loop slows its own arrivals and hides the
//! knee), and goodput through the semantic cache's outage with and without
//! the rate limit after the lookup (§10.1).

use sim_core::labs::evaluate::Outcome;

use crate::ui::format::fixed;
use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

fn rate(y: f64) -> String {
    fixed(y, 2)
}

fn load(x: f64) -> String {
    format!("{}×", fixed(x, 1))
}

fn ticks(x: f64) -> String {
    format!("{}k", fixed(x / 1000.0, 0))
}

/// Goodput against the load offered, both loops.
pub fn loads(o: &Outcome) -> ChartSpec {
    let top = o
        .loads
        .iter()
        .flat_map(|p| [p.open.goodput, p.closed.goodput, p.open.offered])
        .fold(0.05, f64::max);
    let line =
        |label: &str, i: usize, f: &dyn Fn(&sim_core::labs::evaluate::LoadPoint) -> f64| Series {
            label: Some(label.to_string()),
            color: replica_color(i),
            mark: Mark::LineDots,
            points: o.loads.iter().map(|p| (p.scale, f(p))).collect(),
        };
    let (x0, x1) = (
        o.loads.first().map_or(0.0, |p| p.scale),
        o.loads.last().map_or(1.0, |p| p.scale),
    );
    ChartSpec {
        x_desc: "load (× the lab's conversation rate)",
        y_desc: "requests per tick",
        x_range: (x0 - 0.05, x1 + 0.05),
        y_range: (0.0, top * 1.1),
        x_label: load,
        y_label: rate,
        x_labels: o.loads.len().min(8),
        series: vec![
            line("offered, open loop", 7, &|p| p.open.offered),
            line("goodput, open loop", 0, &|p| p.open.goodput),
            line("goodput, closed loop", 2, &|p| p.closed.goodput),
            Series {
                label: Some("goodput, one linear ramp".to_string()),
                color: replica_color(4),
                mark: Mark::Line,
                points: o.ramp.iter().map(|p| (p.scale, p.goodput)).collect(),
            },
        ],
        marker_x: Some(1.0),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    }
}

/// The loads chart in words.
pub fn loads_summary(o: &Outcome) -> String {
    let missed = o.loads.iter().find(|p| p.open.within < 0.95);
    match missed {
        Some(p) => format!(
            "Line chart of goodput against load. At {}× the lab's rate the open loop meets the objective for {}% of requests (goodput {} a tick) while the closed loop, with {} clients, reports {}% (goodput {}).",
            fixed(p.scale, 2),
            fixed(100.0 * p.open.within, 0),
            fixed(p.open.goodput, 3),
            p.clients,
            fixed(100.0 * p.closed.within, 0),
            fixed(p.closed.goodput, 3)
        ),
        None => "Line chart of goodput against load: at every load tried both loops meet the objective.".into(),
    }
}

/// Goodput over time through the outage.
pub fn outage(o: &Outcome) -> Option<ChartSpec> {
    let u = o.outage.as_ref()?;
    let w = u.width as f64;
    let pts = |s: &[f64]| {
        s.iter()
            .enumerate()
            .map(|(i, &g)| ((i as f64 + 0.5) * w, g))
            .collect()
    };
    let end = u.unlimited.len() as f64 * w;
    let top = u
        .unlimited
        .iter()
        .chain(&u.limited)
        .fold(u.baseline, |a, &b| a.max(b))
        * 1.15;
    let c = &o.config;
    let (a, b) = (
        f64::from(c.outage_at),
        f64::from(c.outage_at + c.outage_for),
    );
    Some(ChartSpec {
        x_desc: "tick",
        y_desc: "goodput (requests per tick)",
        x_range: (0.0, end),
        y_range: (0.0, top),
        x_label: ticks,
        y_label: rate,
        x_labels: 6,
        series: vec![
            Series {
                label: Some("cache down".into()),
                color: plotters::style::RGBColor(200, 200, 200),
                mark: Mark::Area,
                points: vec![(a, 0.0), (a, top), (b, top), (b, 0.0)],
            },
            Series {
                label: Some("no rate limit".into()),
                color: replica_color(0),
                mark: Mark::Line,
                points: pts(&u.unlimited),
            },
            Series {
                label: Some("rate limit after the lookup".into()),
                color: replica_color(2),
                mark: Mark::Line,
                points: pts(&u.limited),
            },
        ],
        marker_x: None,
        marker_y: Some(0.9 * u.baseline),
        ring: None,
        notes: vec![(end * 0.02, 0.9 * u.baseline, "90% of the pool alone".into())],
        legend: Legend::UpperLeft,
    })
}

/// The outage chart in words.
pub fn outage_summary(o: &Outcome) -> String {
    o.outage.as_ref().map_or(String::new(), |u| {
        format!(
            "Line chart of goodput over time. The cache answers {}% of requests until it goes down; without a limit goodput stays under 90% of what the pool delivers alone for {} ticks, with the limit for {}; the requests that reach the pool while it is down wait {} ticks for a first token at P95 without the limit, {} with it.",
            fixed(100.0 * u.hit, 0),
            u.below_unlimited,
            u.below_limited,
            fixed(u.p95_unlimited, 0),
            fixed(u.p95_limited, 0)
        )
    })
}
