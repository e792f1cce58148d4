//! Admission lab: goodput (requests per tick that meet the SLO) against a
//! steady offered load, one line per policy, the pool's capacity as a
//! horizontal line and the run's load as a vertical one: the knee of §1.2 on
//! a live pool. Each point is a run of its own at a steady load, with none of
//! this run's surge or incident; this run's goodput (the card's, whole run)
//! is ringed at its load so the two cannot be read as one number. The
//! circuit breaker is drawn as dots on no control's line: with no failing
//! replica it never trips. Without admission control goodput collapses past
//! capacity; with it, it stays near capacity.

use sim_core::choice::Choice;
use sim_core::labs::admission::{Outcome, Policy, PolicyRun};

use crate::ui::format::fixed;
use crate::ui::plot::{ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Colour index of `policy`: its place in [`Policy::ALL`], so a policy keeps
/// its colour whichever policies a run holds.
fn policy_color(policy: Policy) -> usize {
    Policy::ALL.iter().position(|&p| p == policy).unwrap_or(0)
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn rate(y: f64) -> String {
    fixed(y, 2)
}

/// The goodput chart; `this` is the run in focus (the cards' policy), ringed
/// at the run's load with its whole-run goodput.
pub fn spec(o: &Outcome, this: Option<&PolicyRun>) -> Option<ChartSpec> {
    let last = o.sweep.last()?.0;
    let top = o
        .sweep
        .iter()
        .flat_map(|(_, g)| g.iter().copied())
        .fold(o.capacity, f64::max);
    // Capacity is a mean rate: a run whose drawn service times come out
    // short finishes more than it, so a point can sit a few percent above
    // the line (see the help).
    let mut notes = vec![(0.05, o.capacity, "capacity (mean rate)".to_string())];
    let ring = this.map(|r| (o.config.load, r.goodput));
    if let Some((x, y)) = ring {
        // Off the ring and the load line; three decimals, as on the card.
        let label = format!("this run, surge and incident: {}", fixed(y, 3));
        notes.push((x + 0.03 * last, y, label));
    }
    Some(ChartSpec {
        x_desc: "steady offered load (share of capacity)",
        y_desc: "goodput (requests/tick within the SLO)",
        x_range: (0.0, last),
        y_range: (0.0, top * 1.15),
        x_label: percent,
        y_label: rate,
        x_labels: 6,
        // The breaker as dots only: at a steady load no replica fails, so
        // it never trips and a line of its own would lie on no control's,
        // hiding it; its legend entry says so.
        series: (0..o.policies.len())
            .map(|k| {
                let r = &o.policies[k];
                let breaker = r.policy == Policy::Breaker;
                Series {
                    label: Some(if breaker {
                        format!("{} (never trips here: on no control)", r.policy.title())
                    } else {
                        r.policy.title().to_string()
                    }),
                    color: replica_color(policy_color(r.policy)),
                    mark: if breaker { Mark::Dots } else { Mark::LineDots },
                    points: o
                        .sweep
                        .iter()
                        .filter_map(|(load, g)| g.get(k).map(|&y| (*load, y)))
                        .collect(),
                }
            })
            .collect(),
        marker_x: Some(o.config.load),
        marker_y: Some(o.capacity),
        ring,
        notes,
        legend: Legend::UpperLeft,
    })
}

/// The chart in words: where each policy ends up at the highest load.
pub fn summary(o: &Outcome) -> String {
    let Some((load, g)) = o.sweep.last() else {
        return String::new();
    };
    let parts: Vec<String> = o
        .policies
        .iter()
        .zip(g)
        .map(|(r, y)| format!("{} {}", r.policy.title(), rate(*y)))
        .collect();
    format!(
        "Line chart of goodput against a steady offered load (separate runs with no surge and no incident), one line per policy; capacity is {} requests per tick. At {} load: {}.",
        rate(o.capacity),
        percent(*load),
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::labs::admission::{run, Config};

    /// The chart's points are steady-load runs and the cards' number is
    /// this run's: the chart rings this run at its load with the same
    /// goodput the card shows, and draws every policy of the table (the
    /// breaker as dots, named as on no control's line).
    #[test]
    fn the_chart_rings_the_cards_run_and_draws_every_policy() {
        let config = Config {
            ticks: 600,
            ..Config::default()
        };
        let o = run(&config, Policy::ALL, true).expect("valid");
        let this = o.policy(Policy::QueueCap);
        let spec = spec(&o, this).expect("a sweep");
        let goodput = this.expect("ran").goodput;
        assert_eq!(spec.ring, Some((config.load, goodput)));
        assert!(spec
            .notes
            .iter()
            .any(|(_, _, t)| t.ends_with(&fixed(goodput, 3)) && t.contains("surge and incident")));
        assert_eq!(spec.series.len(), Policy::ALL.len());
        let breaker = spec
            .series
            .iter()
            .find(|s| {
                s.label
                    .as_deref()
                    .is_some_and(|l| l.contains("never trips"))
            })
            .expect("the breaker has a legend entry");
        assert_eq!(breaker.mark, Mark::Dots);
        assert_eq!(breaker.points.len(), o.sweep.len());
    }
}
