//! The prefix player as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{Outcome, PrefixReason, RouterRun};
use crate::choice::Choice;

fn threshold_text(t: Option<u32>) -> String {
    t.map_or(String::from("∞"), |t| t.to_string())
}

/// Both routers' totals; with `detail`, every step of each.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Prefix player: {} replicas, {}-slot LRU caches, threshold {}, {} requests\n\n",
        c.replicas,
        c.slots,
        threshold_text(c.threshold),
        o.trace.len()
    );
    s.push_str(&format!(
        "{:<14} {:>6} {:>15} {:>8}  assignments\n",
        "router", "hits", "prefill tokens", "escapes"
    ));
    for r in &o.routers {
        let a: Vec<String> = r.assignments.iter().map(u32::to_string).collect();
        s.push_str(&format!(
            "{:<14} {:>3}/{:<2} {:>15} {:>8}  {}\n",
            r.router.name(),
            r.hits,
            o.trace.len(),
            r.prefill_tokens,
            r.escapes,
            a.join(" / ")
        ));
    }
    s.push_str(&format!(
        "prefill reduction: {:.1}%\n",
        o.prefill_reduction * 100.0
    ));
    if detail {
        for r in &o.routers {
            s.push('\n');
            s.push_str(&steps(o, r));
        }
    }
    s
}

/// One router's steps as a text table (requests and replicas 1-based).
pub fn steps(o: &Outcome, r: &RouterRun) -> String {
    let mut s = format!("Steps: {}\n", r.router.name());
    s.push_str("req prefix prompt  → replica  hit  prefill  total   reason                        caches\n");
    for step in &r.steps {
        let req = o.trace[step.request as usize];
        let caches: Vec<String> = step
            .caches
            .iter()
            .map(|c| {
                let e: Vec<String> = c
                    .iter()
                    .map(|e| format!("P{}×{}", e.prefix, e.hits))
                    .collect();
                if e.is_empty() {
                    String::from("-")
                } else {
                    e.join("+")
                }
            })
            .collect();
        let reason = match step.reason {
            PrefixReason::AffinityDropped {
                holder,
                holder_load,
                least_load,
            } => format!(
                "dropped: R{} at {} vs {}",
                holder + 1,
                holder_load,
                least_load
            ),
            other => String::from(other.name()),
        };
        s.push_str(&format!(
            "R{:<2} P{:<5} {:>6}  → {:<7}  {:<4} {:>7} {:>6}   {:<29} {}\n",
            step.request + 1,
            req.prefix,
            req.prompt_tokens(),
            step.target + 1,
            if step.hit { "hit" } else { "miss" },
            step.prefill_tokens,
            step.cumulative_prefill,
            reason,
            caches.join(" | ")
        ));
    }
    s
}

/// One row per step of each router.
pub fn csv(o: &Outcome) -> String {
    let mut s =
        String::from("router,request,prefix,target,hit,reason,prefill_tokens,cumulative_prefill\n");
    for r in &o.routers {
        for step in &r.steps {
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{}\n",
                r.router.name(),
                step.request + 1,
                o.trace[step.request as usize].prefix,
                step.target + 1,
                step.hit,
                step.reason.name(),
                step.prefill_tokens,
                step.cumulative_prefill
            ));
        }
    }
    s
}
