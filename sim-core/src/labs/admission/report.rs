//! The admission lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Moment, Outcome, PolicyRun};
use crate::choice::Choice;

/// One line saying what `moment` was.
pub fn moment_text(m: &Moment) -> String {
    match *m {
        Moment::SloLost { waited } => {
            format!("first request served after its SLO was lost (waited {waited} ticks)")
        }
        Moment::FirstRefusal { queue } => format!("first 429 (queue held {queue})"),
        Moment::FirstDrop { waited } => format!("first drop (waited {waited} ticks)"),
        Moment::Trip { replica, failures } => format!(
            "breaker took replica {} out after {failures} failures",
            replica + 1
        ),
    }
}

/// The policies compared; with `detail`, goodput against load and each
/// policy's key moments and queue every 100 ticks.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Admission control: {} replicas × {} slots, mean service {} ticks (capacity {:.2} requests/tick), load {:.0}%, SLO {} × service\n",
        c.replicas, c.slots, c.service, o.capacity, c.load * 100.0, c.slo
    );
    if c.surge > 0.0 {
        s.push_str(&format!(
            "Surge: +{:.0}% from tick {} for {} ticks\n",
            c.surge * 100.0,
            c.surge_at,
            c.surge_for
        ));
    }
    if c.failure > 0.0 {
        s.push_str(&format!(
            "Incident: replica 1 fails {:.0}% of its requests from tick {} for {} ticks\n",
            c.failure * 100.0,
            c.incident_at,
            c.incident_for
        ));
    }
    s.push_str(&format!(
        "\n{:<12} {:>8} {:>6} {:>9} {:>8} {:>7} {:>9} {:>7} {:>8}\n",
        "policy",
        "goodput",
        "of cap",
        "rejected",
        "dropped",
        "failed",
        "wait P95",
        "wasted",
        "tripped"
    ));
    for r in &o.policies {
        s.push_str(&format!(
            "{:<12} {:>8.3} {:>5.0}% {:>8.1}% {:>7.1}% {:>7} {:>9.1} {:>6.1}% {:>8}\n",
            r.policy.name(),
            r.goodput,
            100.0 * r.goodput / o.capacity,
            100.0 * r.rejected_share(),
            100.0 * r.dropped_share(),
            r.failed,
            r.wait_p95,
            100.0 * r.wasted,
            r.tripped_ticks
        ));
    }
    if detail {
        s.push_str("\nGoodput (requests/tick within the SLO) against offered load\n");
        s.push_str(&format!("{:>6}", "load"));
        for r in &o.policies {
            s.push_str(&format!(" {:>12}", r.policy.name()));
        }
        s.push('\n');
        for (load, g) in &o.sweep {
            s.push_str(&format!("{:>5.0}%", load * 100.0));
            for x in g {
                s.push_str(&format!(" {x:>12.3}"));
            }
            s.push('\n');
        }
        for r in &o.policies {
            s.push_str(&policy_detail(r));
        }
    }
    s
}

/// A policy's key moments and its queue every 100 ticks.
fn policy_detail(r: &PolicyRun) -> String {
    let mut s = format!("\n{}: key moments\n", r.policy.title());
    let mut any = false;
    for (t, snap) in r.timeline.iter().enumerate() {
        if let Some(m) = &snap.moment {
            s.push_str(&format!("  tick {t:>5}: {}\n", moment_text(m)));
            any = true;
        }
    }
    if !any {
        s.push_str("  none\n");
    }
    s.push_str("  queue every 100 ticks:");
    for snap in r.timeline.iter().step_by(100) {
        s.push_str(&format!(" {}", snap.queue));
    }
    s.push('\n');
    s
}

/// One row per policy.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "policy,offered,rejected,dropped,served,failed,unfinished,goodput,wait_p95,wasted,tripped_ticks\n",
    );
    for r in &o.policies {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            r.policy.name(),
            r.offered,
            r.rejected,
            r.dropped,
            r.served,
            r.failed,
            r.unfinished,
            r.goodput,
            r.wait_p95,
            r.wasted,
            r.tripped_ticks
        ));
    }
    s
}
