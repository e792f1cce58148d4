//! The queueing explorables as plain text (the CLI's output, the golden files)
//! and CSV.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{cascade, hedging, knee, little, retries};

/// Names of the knee's curves, in [`knee::Outcome::curves`] order.
const KNEE_CURVES: [&str; 5] = [
    "deterministic (M/D/1)",
    "exponential (M/M/1)",
    "heavy tail",
    "your CV²",
    "Kingman, your Ca² and CV²",
];

/// Usable utilisation per curve, then the simulated points if any.
pub fn knee(o: &knee::Outcome) -> String {
    let mut s = format!(
        "Usable utilisation at a tolerable wait of {} service times:\n",
        o.config.wait
    );
    for (c, n) in o.curves.iter().zip(KNEE_CURVES) {
        s += &format!(
            "  {n:<28} Ca² {:<5} Cs² {:<5} ρ = {:.2}\n",
            c.ca2, c.cv2, c.usable_utilization
        );
    }
    for p in &o.simulated {
        s += &format!(
            "  simulated ρ {:.1}: wait {:.3} ± {:.3} service times (formula {:.3})\n",
            p.rho, p.mean_wait, p.band, p.formula
        );
    }
    s
}

/// One row per curve.
pub fn knee_csv(o: &knee::Outcome) -> String {
    let mut s = String::from("curve,ca2,cv2,usable_utilization\n");
    for (c, n) in o.curves.iter().zip(KNEE_CURVES) {
        s += &format!(
            "{},{},{},{}\n",
            crate::labs::csv_field(n),
            c.ca2,
            c.cv2,
            c.usable_utilization
        );
    }
    s
}

/// The ceiling with and without cache hits, and the seeded check.
pub fn little(o: &little::Outcome) -> String {
    let c = &o.config;
    format!(
        "Lmax = {} sequences ({} blocks each); W = {:.1} prefill + {} decode = {:.1} ticks → λmax = {:.4} requests/tick\n\
         with {:.0}% of the prompt cached: W = {:.1} ticks → λmax = {:.4} requests/tick (+{:.1}%)\n\
         seeded check (exponential outputs): {:.4} requests/tick over {} sequences, mean W {:.1} ticks\n",
        o.l_max,
        o.blocks_per_sequence,
        o.prefill_ticks,
        c.output_tokens,
        o.residency,
        o.lambda_max,
        c.cache_hit * 100.0,
        o.residency_cached,
        o.lambda_max_cached,
        if o.lambda_max > 0.0 {
            (o.lambda_max_cached / o.lambda_max - 1.0) * 100.0
        } else {
            0.0
        },
        o.check.throughput,
        o.check.sequences,
        o.check.mean_residency
    )
}

/// Both ceilings as one row.
pub fn little_csv(o: &little::Outcome) -> String {
    format!(
        "l_max,blocks_per_sequence,residency,lambda_max,residency_cached,lambda_max_cached,check_throughput\n{},{},{},{},{},{},{}\n",
        o.l_max,
        o.blocks_per_sequence,
        o.residency,
        o.lambda_max,
        o.residency_cached,
        o.lambda_max_cached,
        o.check.throughput
    )
}

/// Peak calls per action during the incident under one policy's series.
fn incident_peak(c: &retries::Config, series: &[f64]) -> f64 {
    let start = (c.incident_start as usize).min(series.len());
    let end = ((c.incident_start + c.incident_length) as usize).min(series.len());
    series[start..end].iter().copied().fold(0.0, f64::max)
}

/// The running product and each policy's peak during the incident.
pub fn retries(o: &retries::Outcome) -> String {
    let c = &o.config;
    let products: Vec<String> = o.running_product.iter().map(|x| format!("×{x}")).collect();
    format!(
        "Attempts {:?}: running product {} → up to {} upstream calls per user action\n\
         Peak calls per action during the incident: every layer {:.1}, one layer {:.2}, one layer with a {:.0}% budget {:.3}\n",
        c.attempts,
        products.join(" "),
        o.upstream_calls,
        incident_peak(c, &o.every_layer),
        incident_peak(c, &o.one_layer),
        c.budget * 100.0,
        incident_peak(c, &o.budgeted)
    )
}

/// Calls per action per step under each policy.
pub fn retries_csv(o: &retries::Outcome) -> String {
    let mut s = String::from("step,every_layer,one_layer,budgeted\n");
    for (t, ((a, b), c)) in o
        .every_layer
        .iter()
        .zip(&o.one_layer)
        .zip(&o.budgeted)
        .enumerate()
    {
        s += &format!("{t},{a},{b},{c}\n");
    }
    s
}

/// Latency percentiles and costs per strategy.
pub fn hedging(o: &hedging::Outcome) -> String {
    let mut s = format!(
        "Hedge after P{} = {:.0} ms\n{:<18} {:>7} {:>7} {:>7} {:>10} {:>10}\n",
        o.config.hedge_at, o.threshold, "strategy", "p50", "p95", "p99", "extra load", "extra work"
    );
    for x in &o.strategies {
        s += &format!(
            "{:<18} {:>7.0} {:>7.0} {:>7.0} {:>9.1}% {:>9.1}%\n",
            x.strategy,
            x.p50,
            x.p95,
            x.p99,
            x.extra_load * 100.0,
            x.extra_work * 100.0
        );
    }
    s
}

/// One row per strategy.
pub fn hedging_csv(o: &hedging::Outcome) -> String {
    let mut s = String::from("strategy,p50_ms,p95_ms,p99_ms,extra_load,extra_work\n");
    for x in &o.strategies {
        s += &format!(
            "{},{},{},{},{},{}\n",
            x.strategy, x.p50, x.p95, x.p99, x.extra_load, x.extra_work
        );
    }
    s
}

/// The escalated pool's variability and mean, exact and sampled.
pub fn cascade(o: &cascade::Cascade) -> String {
    format!(
        "Escalating the slowest {:.1}% of an exponential workload: C² {:.3} (from 1), mean ×{:.2}; sampled C² {:.3}, mean ×{:.2}\n\
         The escalated stream is a state-dependent thinning of the arrivals: no longer Poisson.\n",
        o.escalate * 100.0,
        o.cv2,
        o.mean_ratio,
        o.sampled.0,
        o.sampled.1
    )
}

/// Exact and sampled figures as one row.
pub fn cascade_csv(o: &cascade::Cascade) -> String {
    format!(
        "escalate,cv2,mean_ratio,sampled_cv2,sampled_mean_ratio\n{},{},{},{},{}\n",
        o.escalate, o.cv2, o.mean_ratio, o.sampled.0, o.sampled.1
    )
}
