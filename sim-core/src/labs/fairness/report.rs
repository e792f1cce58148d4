//! The fairness lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Moment, Outcome, SchedulerRun, TENANTS};
use crate::choice::Choice;

fn tenant(t: u32) -> &'static str {
    TENANTS.get(t as usize).map_or("?", |s| s.name)
}

/// One line saying what `moment` was.
pub fn moment_text(m: &Moment) -> String {
    match *m {
        Moment::Overtake {
            picked,
            passed,
            older,
        } => format!(
            "{} served before {}, whose request had waited {older} iterations longer",
            tenant(picked),
            tenant(passed)
        ),
        Moment::Preemption { victim, by, lost } => format!(
            "{} preempted a {} sequence ({lost} tokens of work start over)",
            tenant(by),
            tenant(victim)
        ),
        Moment::PrefixMiss { since, tokens } => format!(
            "shared prompt evicted {since} iterations after its last hit: {tokens} tokens computed again"
        ),
    }
}

/// Per scheduler, per tenant: requests, GPU time, weighted service, TTFT and
/// cache; with `detail`, the recorded runs' key moments.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Fairness: {} tenants on one engine, {} slots, {} tokens per iteration, prefix cache {} tokens, VTC weights {} in / {} out, output token {} × a prompt token in GPU time, {} iterations\n",
        c.shapes().len(),
        c.slots,
        c.budget,
        c.cache,
        c.w_in,
        c.w_out,
        c.decode_cost,
        c.ticks
    );
    for r in &o.runs {
        s.push_str(&scheduler_table(r));
    }
    if detail {
        for r in o.runs.iter().filter(|r| r.timeline.is_some()) {
            s.push_str(&format!("\n{}: key moments\n", r.scheduler.title()));
            let mut any = false;
            for (t, snap) in r.steps().iter().enumerate() {
                if let Some(m) = &snap.moment {
                    s.push_str(&format!("  iteration {:>5}: {}\n", t + 1, moment_text(m)));
                    any = true;
                }
            }
            if !any {
                s.push_str("  none\n");
            }
        }
    }
    s
}

/// One scheduler's tenants.
fn scheduler_table(r: &SchedulerRun) -> String {
    let mut s = format!(
        "\n{} · cache share {:.1}%{}\n{:<14} {:>8} {:>9} {:>9} {:>11} {:>9} {:>7} {:>9}\n",
        r.scheduler.title(),
        100.0 * r.cache_share,
        r.first_preemption
            .map(|t| format!(" · first preemption at iteration {}", t + 1))
            .unwrap_or_default(),
        "tenant",
        "finished",
        "req share",
        "GPU share",
        "service/it",
        "TTFT P95",
        "cache",
        "preempted"
    );
    for (t, x) in r.tenants.iter().enumerate() {
        s.push_str(&format!(
            "{:<14} {:>8} {:>8.1}% {:>8.1}% {:>11.1} {:>9.0} {:>6.1}% {:>9}\n",
            tenant(t as u32),
            x.finished,
            100.0 * x.request_share,
            100.0 * x.gpu_share,
            x.service,
            x.ttft_p95,
            100.0 * x.cache_share,
            x.preempted
        ));
    }
    s
}

/// One row per scheduler and tenant.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "scheduler,tenant,finished,request_share,gpu_share,service_per_iteration,ttft_p95,cache_share,preempted\n",
    );
    for r in &o.runs {
        for (t, x) in r.tenants.iter().enumerate() {
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{},{}\n",
                r.scheduler.name(),
                tenant(t as u32),
                x.finished,
                x.request_share,
                x.gpu_share,
                x.service,
                x.ttft_p95,
                x.cache_share,
                x.preempted
            ));
        }
    }
    s
}
