//! Disaggregation lab: each setup's mean request latency against the
//! colocated pool's, as the mean prompt grows (log scale), the window where
//! the plain split is ahead shaded (article §7.3: for short prompts the KV
//! transfer costs more than the interference it removes; for long ones the
//! prefill GPUs fall behind).

use sim_core::choice::Choice;
use sim_core::labs::disagg::{Crossover, Outcome, Setup, SWEEP};

use crate::ui::format::{fixed, thousands};
use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// The x axis holds log2 of tokens (through `log10`, whose code the bundle
/// already carries: `log2` would add its own tables).
fn log2(x: f64) -> f64 {
    x.log10() / core::f64::consts::LOG10_2
}

fn tokens(x: f64) -> String {
    let t = libm::pow(2.0, x).round();
    if t >= 1024.0 {
        format!("{}k", fixed(t / 1024.0, 0))
    } else {
        fixed(t, 0)
    }
}

/// Highest gap drawn, percent: a setup whose prefill GPUs cannot keep up
/// runs many times slower, and on a scale that holds it the few percent
/// either side of the crossover would be a flat line.
const TOP: f64 = 30.0;

fn percent(y: f64) -> String {
    let r = y.round();
    if r > 0.0 {
        format!("+{}%", fixed(r, 0))
    } else {
        format!("{}%", fixed(r, 0))
    }
}

/// Each setup's mean latency against the colocated pool's, in percent
/// (0: the same; negative: faster), drawn no higher than [`TOP`].
fn gap(e2e: &[f64], i: usize) -> f64 {
    let base = e2e[Setup::Colocated.index()];
    ((e2e[i] / base - 1.0) * 100.0).min(TOP)
}

/// The chart of the sweep.
pub fn spec(o: &Outcome) -> ChartSpec {
    let low = o
        .sweep
        .iter()
        .flat_map(|p| (0..p.e2e.len()).map(|i| gap(&p.e2e, i)))
        .fold(-2.0, f64::min);
    let (y0, y1) = (low - 1.0, TOP + 2.0);
    // The plain split last, on top: where a conditional policy never
    // prefills locally its line is the split's, and would hide it.
    let order = [0, 2, 3, 4, 1].map(|i| (i, Setup::ALL[i]));
    let mut series: Vec<Series> = order
        .into_iter()
        .map(|(i, s)| Series {
            label: Some(s.title().to_string()),
            color: replica_color(i),
            mark: Mark::LineDots,
            points: o
                .sweep
                .iter()
                .map(|p| (log2(f64::from(p.prompt)), gap(&p.e2e, i)))
                .collect(),
        })
        .collect();
    let (first, last) = (
        log2(f64::from(SWEEP[0])),
        log2(f64::from(SWEEP[SWEEP.len() - 1])),
    );
    let marker = match o.crossover {
        Crossover::At(t) => Some(log2(t)),
        _ => None,
    };
    // The window the crossover card gives, shaded under the lines: from
    // the crossover to where the split falls behind again.
    let start = match o.crossover {
        Crossover::At(t) => Some(log2(t)),
        Crossover::Below => Some(first - 0.2),
        Crossover::Never => None,
    };
    if let Some(a) = start {
        let b = o.until.map_or(last + 0.2, log2);
        series.insert(
            0,
            Series {
                label: Some("Disaggregated ahead of colocated".to_string()),
                color: plotters::style::RGBColor(200, 200, 200),
                mark: Mark::Area,
                points: vec![(a, y0), (a, y1), (b, y1), (b, y0)],
            },
        );
    }
    let mut notes = vec![(first, TOP + 1.0, format!("{}, off the top", percent(TOP)))];
    // The run the cards and the table describe, ringed on the split's line
    // and named, so a step about one prompt length shows where it stands.
    let e2e: Vec<f64> = Setup::ALL
        .iter()
        .map(|s| {
            o.runs
                .iter()
                .find(|r| r.setup == *s)
                .map_or(f64::NAN, |r| r.e2e)
        })
        .collect();
    let split = Setup::Disagg.index();
    let ring = e2e.iter().all(|x| x.is_finite() && *x > 0.0).then(|| {
        (
            log2(f64::from(o.config.prompt)),
            gap(&e2e, split).max(y0 + 1.0),
        )
    });
    // Short and above the ring, clear of the lines that meet near 0% and
    // of the right edge on a phone (the x axis already names the length).
    if let Some((x, y)) = ring {
        notes.push((x - 0.35, (y + 5.0).min(TOP - 2.0), "this run".to_string()));
    }
    ChartSpec {
        x_desc: "mean prompt length (tokens, log scale)",
        y_desc: "mean latency against colocated",
        x_range: (first - 0.2, last + 0.2),
        y_range: (y0, y1),
        x_label: tokens,
        y_label: percent,
        x_labels: SWEEP.len(),
        series,
        marker_x: marker,
        marker_y: Some(0.0),
        ring,
        notes,
        legend: Legend::UpperLeft,
    }
}

/// The chart in words: the crossover, and each setup at the two ends.
pub fn summary(o: &Outcome) -> String {
    let (a, b) = (&o.sweep[0], &o.sweep[o.sweep.len() - 1]);
    let ends: Vec<String> = Setup::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "{} {} ms at {} tokens, {} ms at {}",
                s.title(),
                fixed(a.e2e[i], 0),
                a.prompt,
                thousands(b.e2e[i].round() as u64),
                thousands(b.prompt.into())
            )
        })
        .collect();
    format!(
        "Line chart of each setup's mean request latency relative to the colocated pool's against mean prompt length (log scale). The split pool's latency is below the colocated pool's {}. {}.",
        sim_core::labs::disagg::crossover_text(o.crossover, o.until),
        ends.join("; ")
    )
}
