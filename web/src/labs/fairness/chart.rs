//! Fairness lab: each tenant's weighted token service so far (VTC's measure:
//! input and output tokens at their weights) against the iteration, under the
//! scheduler in focus, with the player's iteration marked. Lines that climb
//! together are tenants served alike; a line that flattens is a tenant left
//! waiting (article §8: what each scheduler equalises, and what it does not).

use sim_core::labs::fairness::{SchedulerRun, TENANTS};

use crate::ui::plot::{whole, ChartSpec, Legend, Mark, Series};
use crate::ui::theme::replica_color;

/// Points drawn per line at most (the timeline is sampled evenly).
const POINTS: usize = 300;

/// The chart of `run`'s timeline, `current` (0-based) marked.
pub fn spec(run: &SchedulerRun, current: usize) -> Option<ChartSpec> {
    let last = run.steps().last()?;
    let every = run.steps().len().div_ceil(POINTS).max(1);
    let top = last.service.iter().copied().fold(1.0, f64::max);
    Some(ChartSpec {
        x_desc: "iteration",
        y_desc: "weighted tokens served so far",
        x_range: (0.0, run.steps().len() as f64),
        y_range: (0.0, top * 1.05),
        x_label: whole,
        y_label: |y| crate::ui::format::thousands(y.max(0.0) as u64),
        x_labels: 6,
        series: (0..last.service.len())
            .map(|t| Series {
                label: TENANTS.get(t).map(|s| s.name.to_string()),
                color: replica_color(t),
                mark: Mark::Line,
                points: run
                    .steps()
                    .iter()
                    .enumerate()
                    .step_by(every)
                    .chain(core::iter::once((run.steps().len() - 1, last)))
                    .map(|(i, s)| ((i + 1) as f64, s.service[t]))
                    .collect(),
            })
            .collect(),
        marker_x: Some((current + 1) as f64),
        marker_y: None,
        ring: None,
        notes: Vec::new(),
        legend: Legend::UpperLeft,
    })
}

/// The chart in words: each tenant's service at the end of the run.
pub fn summary(run: &SchedulerRun) -> String {
    let Some(last) = run.steps().last() else {
        return String::new();
    };
    let parts: Vec<String> = last
        .service
        .iter()
        .enumerate()
        .map(|(t, x)| {
            format!(
                "{} {}",
                TENANTS[t].name,
                crate::ui::format::thousands(*x as u64)
            )
        })
        .collect();
    format!(
        "Line chart of each tenant's weighted tokens served against the iteration. After {} iterations: {}.",
        run.steps().len(),
        parts.join(", ")
    )
}
