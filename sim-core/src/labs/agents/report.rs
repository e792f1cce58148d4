//! The agent-sessions lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{KeyRun, Moment, Outcome};
use crate::choice::Choice;

/// One line saying what `moment` was.
pub fn moment_text(m: &Moment) -> String {
    match *m {
        Moment::Burst {
            session,
            children,
            sent,
            replicas,
            busiest,
            took,
            waiting,
            free,
        } => format!(
            "session {} fans out to {children} subagents ({sent} sent, {} held): {took} to replica {} ({replicas} used), {waiting} wait there, {free} slots free elsewhere",
            session + 1,
            children - sent,
            busiest + 1
        ),
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| String::from("-"), |x| format!("{:.1}", x))
}

/// The keys compared; with `detail`, each key's sessions by kind and its
/// key moments.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Agent sessions: {} sessions/s for {} s, fan-out {}, cap {}; {} replicas × {} slots, balance {}; {} system prompts of {} tokens; prefill {} tok/s, {} ms/token, tool {} s, cache {} tokens\n",
        c.rate,
        c.seconds,
        c.fanout,
        if c.cap == 0 { String::from("none") } else { format!("{}", c.cap) },
        c.replicas,
        c.slots,
        c.balance,
        c.prompts,
        c.system,
        c.prefill,
        c.tpot,
        c.tool,
        c.cache
    );
    s.push_str(&format!(
        "\n{:<13} {:>8} {:>7} {:>11} {:>11} {:>8} {:>8} {:>10} {:>6} {:>6} {:>6}\n",
        "key",
        "sessions",
        "calls",
        "session P50",
        "session P95",
        "TTFT P50",
        "TTFT P95",
        "others P95",
        "cache",
        "burst",
        "worst"
    ));
    for r in &o.runs {
        s.push_str(&format!(
            "{:<13} {:>8} {:>7} {:>11.1} {:>11.1} {:>8.2} {:>8.2} {:>10.2} {:>5.1}% {:>6.1} {:>6}\n",
            r.key.name(),
            r.sessions,
            r.calls,
            r.session_p50,
            r.session_p95,
            r.ttft_p50,
            r.ttft_p95,
            r.others_p95,
            100.0 * r.cache_share,
            r.burst_queue,
            r.worst_queue
        ));
    }
    if detail {
        for r in &o.runs {
            s.push_str(&key_detail(r));
        }
    }
    s
}

/// A key's sessions by kind, and its key moments.
fn key_detail(r: &KeyRun) -> String {
    let mut s = format!(
        "\n{}: sessions by kind (completion seconds)\n",
        r.key.title()
    );
    for k in &r.kinds {
        s.push_str(&format!(
            "  {:<12} {:>5} sessions {:>6} calls  P50 {:>7}  P95 {:>7}\n",
            k.kind.name(),
            k.sessions,
            k.calls,
            opt(k.p50),
            opt(k.p95)
        ));
    }
    s.push_str("  key moments:\n");
    let mut any = false;
    for (i, snap) in r.timeline.iter().enumerate() {
        if let Some(m) = &snap.moment {
            s.push_str(&format!(
                "  {:>7.1} s: {}\n",
                i as f64 * super::FRAME_MS as f64 / 1000.0,
                moment_text(m)
            ));
            any = true;
        }
    }
    if !any {
        s.push_str("  none\n");
    }
    s
}

/// One row per key.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "key,sessions,calls,finished,unfinished,session_p50,session_p95,ttft_p50,ttft_p95,others_p95,cache_share,burst_queue,worst_queue\n",
    );
    for r in &o.runs {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.key.name(),
            r.sessions,
            r.calls,
            r.finished,
            r.unfinished,
            r.session_p50,
            r.session_p95,
            r.ttft_p50,
            r.ttft_p95,
            r.others_p95,
            r.cache_share,
            r.burst_queue,
            r.worst_queue
        ));
    }
    s
}
