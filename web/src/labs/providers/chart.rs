//! Providers lab: the cost meter (the running bill of every strategy over
//! the run, the player's tick marked) and the load sweep (spillover against
//! equal weights, per 1,000 calls, at loads around the reserved capacity).

use sim_core::choice::Choice;
use sim_core::labs::providers::{Outcome, Strategy, METER_S, TICK_MS};

use crate::ui::format::fixed;
use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Player ticks in one point of the cost meter.
const TICKS_PER_POINT: f64 = (METER_S * 1000 / TICK_MS) as f64;

/// A tick on the cost chart's axis as minutes:seconds.
fn clock(x: f64) -> String {
    let s = (x * TICK_MS as f64 / 1000.0).max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// Dollars: whole where the value is whole (the axis' round ticks), else
/// to a tenth.
fn dollars(y: f64) -> String {
    let tenths = (y * 10.0).round() / 10.0;
    if (tenths - tenths.round()).abs() < 1e-9 {
        format!("${}", fixed(tenths, 0))
    } else {
        format!("${}", fixed(tenths, 1))
    }
}

/// The colour of strategy `s`, the same on both charts.
fn color(s: Strategy) -> plotters::style::RGBColor {
    replica_color(Strategy::ALL.iter().position(|&k| k == s).unwrap_or(0))
}

/// The running bill of every run against time, in player ticks (so a click
/// seeks the player there), tick `current` marked. The line of `focus` (the
/// player's strategy) is drawn again last, so no other hides it.
pub fn cost(o: &Outcome, focus: Option<Strategy>, current: usize) -> Option<ChartSpec> {
    let points = o
        .runs
        .iter()
        .map(|r| r.meter.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let top = o
        .runs
        .iter()
        .flat_map(|r| r.meter.iter().copied())
        .fold(1.0_f32, f32::max);
    let line = |r: &sim_core::labs::providers::StrategyRun, label: Option<String>| Series {
        label,
        color: color(r.strategy),
        mark: Mark::Line,
        points: std::iter::once((0.0, 0.0))
            .chain(
                r.meter
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| ((i as f64 + 1.0) * TICKS_PER_POINT, f64::from(c))),
            )
            .collect(),
    };
    let mut series: Vec<Series> = o
        .runs
        .iter()
        .map(|r| line(r, Some(r.strategy.title().to_string())))
        .collect();
    // On top, with no second legend entry.
    series.extend(
        o.runs
            .iter()
            .filter(|r| Some(r.strategy) == focus)
            .map(|r| line(r, None)),
    );
    Some(ChartSpec {
        x_desc: "time (minutes:seconds)",
        y_desc: "bill so far (dollars)",
        x_range: (0.0, points as f64 * TICKS_PER_POINT),
        y_range: (0.0, f64::from(top) * 1.1),
        x_label: clock,
        y_label: dollars,
        x_labels: 7,
        series,
        marker_x: Some(current as f64),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    })
}

/// The cost meter in words: every strategy's whole bill, in table order,
/// and the cheapest.
pub fn cost_summary(o: &Outcome) -> String {
    let parts: Vec<String> = o
        .runs
        .iter()
        .map(|r| {
            format!(
                "{} ${} (${} per 1,000 calls)",
                r.strategy.title(),
                fixed(r.cost, 2),
                fixed(r.cost_per_1k, 3)
            )
        })
        .collect();
    let cheapest = o
        .runs
        .iter()
        .min_by(|a, b| a.cost.total_cmp(&b.cost))
        .map_or("none", |r| r.strategy.title());
    format!(
        "Line chart of the bill so far against time, one line per strategy; reserved hours accrue whether used or not, metered tokens as they are served. The whole runs: {}. Cheapest: {cheapest}.",
        parts.join("; ")
    )
}

fn load(x: f64) -> String {
    format!("{}%", fixed(x, 0))
}

/// The load at which the lab's own arrival rate sits, read off the sweep's
/// (rate, load) points, if it falls within them.
fn own_load(o: &Outcome) -> Option<f64> {
    let rate = o.config.rate;
    o.sweep.windows(2).find_map(|w| {
        let (a, b) = (&w[0], &w[1]);
        (a.rate <= rate && rate <= b.rate && b.rate > a.rate)
            .then(|| a.load + (b.load - a.load) * (rate - a.rate) / (b.rate - a.rate))
    })
}

/// Spillover's and equal weights' bill per 1,000 calls against the load
/// over the reserved capacity; spillover's points carry the share it sent
/// to metered capacity. `None` when there was no sweep.
pub fn sweep(o: &Outcome) -> Option<ChartSpec> {
    let last = o.sweep.last()?;
    let top = o
        .sweep
        .iter()
        .map(|p| p.spill_cost.max(p.shuffle_cost))
        .fold(1.0, f64::max);
    let line = |label: &str,
                s: Strategy,
                value: fn(&sim_core::labs::providers::SweepPoint) -> f64| Series {
        label: Some(label.to_string()),
        color: color(s),
        mark: Mark::LineDots,
        points: o.sweep.iter().map(|p| (p.load * 100.0, value(p))).collect(),
    };
    let series = vec![
        line("Spillover", Strategy::Spillover, |p| p.spill_cost),
        line("Equal weights (simple shuffle)", Strategy::Shuffle, |p| {
            p.shuffle_cost
        }),
    ];
    // Spilled shares under spillover's points, where it spilled at all
    // (the first says what the figures are).
    let notes = o
        .sweep
        .iter()
        .filter(|p| p.spill_share >= 0.005)
        .enumerate()
        .map(|(i, p)| {
            let share = format!("{}%", fixed(p.spill_share * 100.0, 0));
            (
                p.load * 100.0 - 3.0,
                p.spill_cost - 0.03 * top,
                if i == 0 { share + " spilled" } else { share },
            )
        })
        .collect();
    Some(ChartSpec {
        x_desc: "offered load (% of the reserved capacity)",
        y_desc: "bill per 1,000 calls (dollars)",
        x_range: (0.0, last.load * 100.0 * 1.08),
        y_range: (0.0, top * 1.1),
        x_label: load,
        y_label: dollars,
        x_labels: 7,
        series,
        marker_x: own_load(o).map(|l| l * 100.0),
        marker_y: None,
        ring: None,
        notes,
        legend: Legend::UpperRight,
    })
}

/// The sweep in words: where spillover starts to spill, and what each
/// costs there and at the highest load.
pub fn sweep_summary(o: &Outcome) -> String {
    let Some(last) = o.sweep.last() else {
        return "No load sweep: it needs both a reserved and a metered deployment.".into();
    };
    let pct = |x: f64| fixed(x * 100.0, 0);
    let share = |x: f64| fixed(x * 100.0, 1);
    // The highest load at which spillover still sent nothing on.
    let calm = o.sweep.iter().rev().find(|p| p.spill_share < 0.0005);
    let at = calm.unwrap_or(&o.sweep[0]);
    let spills = format!(
        "Spillover spills {}% of calls up to {}% load and {}% at {}%",
        share(at.spill_share),
        pct(at.load),
        share(last.spill_share),
        pct(last.load)
    );
    format!(
        "Line chart of the bill per 1,000 calls against the offered load, spillover against equal weights over the same deployments. {spills}. At {}% load spillover costs ${} per 1,000 calls against equal weights' ${}; at {}%, ${} against ${}.",
        pct(at.load),
        fixed(at.spill_cost, 3),
        fixed(at.shuffle_cost, 3),
        pct(last.load),
        fixed(last.spill_cost, 3),
        fixed(last.shuffle_cost, 3)
    )
}
