//! Autoscaling lab: TTFT P95 of each half-minute against time, one line per
//! scaler, on a log scale (a good scaler sits near a second while a starved
//! pool waits minutes), with the SLO as a horizontal line, the surge as a
//! shaded band and the player's second marked. The line of a scaler whose
//! replicas came late falls only once the surge is over (article §11.3).

use sim_core::choice::Choice;
use sim_core::labs::autoscale::{Outcome, Scaler, WINDOW};

use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// The axis holds log10 of seconds; nothing is drawn below 0.1 s.
const FLOOR: f64 = 0.1;

fn log(x: f64) -> f64 {
    x.max(FLOOR).log10()
}

/// A log10 value as seconds.
fn seconds(y: f64) -> String {
    let s = libm::pow(10.0, y);
    if s < 1.0 {
        format!("{} s", crate::ui::format::fixed(s, 1))
    } else {
        format!("{} s", crate::ui::format::fixed(s, 0))
    }
}

fn minutes(x: f64) -> String {
    let s = x.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The chart of every run, second `current` marked.
pub fn spec(o: &Outcome, current: usize) -> Option<ChartSpec> {
    let c = &o.config;
    let top = o
        .runs
        .iter()
        .flat_map(|r| r.ttft_windows.iter().copied())
        .fold(c.slo, f64::max);
    let (y0, y1) = (log(FLOOR), log(top) + 0.2);
    let mut series = Vec::new();
    if c.surge > 0.0 {
        let (a, b) = (f64::from(c.surge_at), f64::from(c.surge_at + c.surge_for));
        series.push(Series {
            label: Some("surge".to_string()),
            color: plotters::style::RGBColor(200, 200, 200),
            mark: Mark::Area,
            points: vec![(a, y0), (a, y1), (b, y1), (b, y0)],
        });
    }
    series.extend(o.runs.iter().map(|r| {
        Series {
            label: Some(r.scaler.title().to_string()),
            color: replica_color(Scaler::ALL.iter().position(|&s| s == r.scaler).unwrap_or(0)),
            mark: Mark::Line,
            points: r
                .ttft_windows
                .iter()
                .enumerate()
                .filter(|(_, &v)| v > 0.0)
                .map(|(k, &v)| ((k as u32 * WINDOW + WINDOW / 2) as f64, log(v)))
                .collect(),
        }
    }));
    Some(ChartSpec {
        x_desc: "time (minutes:seconds)",
        y_desc: "TTFT P95 per half minute (log scale)",
        x_range: (0.0, f64::from(c.ticks)),
        y_range: (y0, y1),
        x_label: minutes,
        y_label: seconds,
        x_labels: 7,
        series,
        marker_x: Some(current as f64),
        marker_y: Some(log(c.slo)),
        ring: None,
        notes: vec![(1.0, log(c.slo), "SLO".to_string())],
        legend: Legend::UpperLeft,
    })
}

/// The chart in words: each scaler's worst half minute and when its TTFT
/// came back within the SLO after the surge began.
pub fn summary(o: &Outcome) -> String {
    let c = &o.config;
    let parts: Vec<String> = o
        .runs
        .iter()
        .map(|r| {
            let worst = r.ttft_windows.iter().copied().fold(0.0, f64::max);
            let back = r
                .ttft_windows
                .iter()
                .enumerate()
                .skip((c.surge_at / WINDOW) as usize)
                .skip_while(|(_, &v)| v <= c.slo)
                .find(|(_, &v)| v <= c.slo)
                .map(|(k, _)| minutes(f64::from(k as u32 * WINDOW)));
            match back {
                Some(t) => format!(
                    "{} worst {} s, back within the SLO at {t}",
                    r.scaler.title(),
                    crate::ui::format::fixed(worst, 1)
                ),
                None => format!(
                    "{} worst {} s",
                    r.scaler.title(),
                    crate::ui::format::fixed(worst, 1)
                ),
            }
        })
        .collect();
    format!(
        "Line chart of the TTFT P95 of each half minute against time, log scale, one line per scaler; the SLO is {} s and the surge runs from {} to {}. {}.",
        crate::ui::format::fixed(c.slo, 1),
        minutes(f64::from(c.surge_at)),
        minutes(f64::from(c.surge_at + c.surge_for)),
        parts.join("; ")
    )
}
