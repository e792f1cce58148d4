//! The autoscaling lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Life, Moment, Outcome, ScalerRun};
use crate::choice::Choice;

/// One line saying what `moment` was.
pub fn moment_text(m: &Moment) -> String {
    match *m {
        Moment::Pinned { busy, kv } => format!(
            "busy fraction {:.0}% orders a replica while {:.0}% of slots are in use",
            busy * 100.0,
            kv * 100.0
        ),
        Moment::Ordered { count, ready_at } => format!(
            "{count} {} ordered for the surge, ready at second {ready_at}",
            if count == 1 { "replica" } else { "replicas" }
        ),
        Moment::Ready { replica, ordered } => format!(
            "replica {} (ordered at second {ordered}) takes requests",
            replica + 1
        ),
        Moment::Flooded {
            replica,
            took,
            after,
        } => format!(
            "fresh replica {} took {took} requests in its first {after} s",
            replica + 1
        ),
        Moment::Ignored {
            replica,
            took,
            fair,
        } => format!(
            "fresh replica {} took {took} requests in its first minute (fair share {fair:.0})",
            replica + 1
        ),
        Moment::SurgeOver { starting } => format!(
            "surge over with {starting} {} still starting",
            if starting == 1 { "replica" } else { "replicas" }
        ),
        Moment::ScaleIn { count } => format!("pool shrinks by {count}"),
    }
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or_else(|| String::from("-"), |x| format!("{x:.digits$}"))
}

/// The scalers compared; with `detail`, each scaler's key moments and its
/// pool every minute.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Autoscaling: {} req/s, surge +{:.0}% from second {} for {} s; {} replicas to start ({}–{}), cold start {} s, period {} s; {} rule, slow start {} s\n",
        c.rate,
        c.surge * 100.0,
        c.surge_at,
        c.surge_for,
        c.replicas,
        c.min,
        c.max,
        c.cold,
        c.period,
        c.router.name(),
        c.slow_start
    );
    s.push_str(&format!(
        "\n{:<11} {:>8} {:>9} {:>9} {:>8} {:>8} {:>5} {:>5} {:>6} {:>7} {:>9} {:>7} {:>6}\n",
        "scaler",
        "TTFT P50",
        "TTFT P95",
        "surge P95",
        "SLO met",
        "rep-min",
        "peak",
        "late",
        "react",
        "fresh",
        "fresh P95",
        "busy",
        "KV"
    ));
    for r in &o.runs {
        s.push_str(&format!(
            "{:<11} {:>8.2} {:>9.2} {:>9.2} {:>7.1}% {:>8.1} {:>5} {:>5} {:>6} {:>7} {:>9} {:>6.0}% {:>5.0}%\n",
            r.scaler.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.surge_p95,
            100.0 * r.slo_met,
            r.replica_minutes,
            r.peak,
            r.late,
            r.reaction
                .map_or_else(|| String::from("-"), |x| format!("{x}")),
            opt(r.fresh_load, 2),
            opt(r.fresh_p95, 2),
            100.0 * r.steady_busy,
            100.0 * r.steady_kv));
    }
    if detail {
        for r in &o.runs {
            s.push_str(&scaler_detail(r));
        }
    }
    s
}

/// A scaler's key moments and its pool every minute (ready+starting).
fn scaler_detail(r: &ScalerRun) -> String {
    let mut s = format!("\n{}: key moments\n", r.scaler.title());
    let mut any = false;
    for (t, snap) in r.timeline.iter().enumerate() {
        if let Some(m) = &snap.moment {
            s.push_str(&format!("  second {t:>5}: {}\n", moment_text(m)));
            any = true;
        }
    }
    if !any {
        s.push_str("  none\n");
    }
    s.push_str("  ready+starting every minute:");
    for snap in r.timeline.iter().step_by(60) {
        s.push_str(&format!(
            " {}+{}",
            snap.count(Life::Ready),
            snap.count(Life::Starting)
        ));
    }
    s.push('\n');
    s
}

/// One row per scaler.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "scaler,arrived,finished,unfinished,ttft_p50,ttft_p95,surge_p95,slo_met,replica_minutes,peak,late,reaction,fresh_load,fresh_p95,steady_busy,steady_kv\n",
    );
    for r in &o.runs {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.scaler.name(),
            r.arrived,
            r.finished,
            r.unfinished,
            r.ttft_p50,
            r.ttft_p95,
            r.surge_p95,
            r.slo_met,
            r.replica_minutes,
            r.peak,
            r.late,
            r.reaction.map_or_else(String::new, |x| format!("{x}")),
            r.fresh_load.map_or_else(String::new, |x| format!("{}", x)),
            r.fresh_p95.map_or_else(String::new, |x| format!("{}", x)),
            r.steady_busy,
            r.steady_kv
        ));
    }
    s
}
