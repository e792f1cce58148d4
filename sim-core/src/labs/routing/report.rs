//! The Routing Lab as plain text (the CLI's output, the golden file) and CSV.

use crate::decimal::{Fixed, Shortest};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Outcome, TraceSource};
use crate::choice::Choice;
use crate::params::number_text;

/// The comparison table, preceded by what was run; with `detail`, each rule's
/// replicas and decision reasons follow.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let t = &o.trace;
    let ms = c.timing.in_ms();
    let unit = c.timing.unit();
    // Throughput per tick, or per second when a tick is a millisecond.
    let per = c.timing.per_second();
    let mut s = match o.source {
        TraceSource::Generated => format!(
            "Routing Lab: {} replicas, {} requests, {}, mean prompt {} tokens (CV {}), {}% long, seed {}\n\
             Generated prompts: min {} / max {} tokens. Times in {unit}; SLO is TTFT ≤ {} {unit}.\n",
            c.replicas,
            c.requests,
            if ms {
                format!("{} requests/s", number_text(c.rps))
            } else {
                format!("λ = {} per tick", c.rate)
            },
            c.mean_prompt,
            c.prompt_cv,
            number_text(c.long_share * 100.0),
            c.seed,
            t.prompt.min,
            t.prompt.max,
            c.slo_ticks()
        ),
        TraceSource::Replayed => format!(
            "Routing Lab replaying a trace on {} replicas ({} slots, {} KV blocks, {} prompt tokens per prefill step)\n\
             Trace: {} requests over {unit} {}–{}, {} per {}, inter-arrival CV {}\n\
             Prompts: mean {} tokens (CV {}), p50 {}, p99 {}, max {}\n\
             Outputs: mean {} tokens (CV {}), p50 {}, p99 {}, max {}\n\
             Prompt blocks seen before (reuse bound, {}-token blocks): {}%. Times in {unit}; SLO is TTFT ≤ {} {unit}.\n",
            c.replicas,
            c.slots,
            c.engine().kv_blocks,
            c.prefill_budget,
            t.requests,
            t.first_arrival,
            t.last_arrival,
            Fixed(t.rate * per, 3),
            if ms { "second" } else { "tick" },
            Fixed(t.interarrival_cv, 2),
            Fixed(t.prompt.mean, 0),
            Fixed(t.prompt.cv, 2),
            Fixed(t.prompt.p50, 0),
            Fixed(t.prompt.p99, 0),
            t.prompt.max,
            Fixed(t.output.mean, 1),
            Fixed(t.output.cv, 2),
            Fixed(t.output.p50, 0),
            Fixed(t.output.p99, 0),
            t.output.max,
            t.block_tokens,
            Fixed(t.reuse_bound * 100.0, 1),
            c.slo_ticks()
        ),
    };
    if let Some(summary) = c.timing.summary(c.kv_block_tokens) {
        s.push_str(&format!("Preset: {summary}.\n"));
    }
    if let Some(import) = &o.import {
        s.push_str(&format!("Import: {}.\n", import.summary()));
    }
    if !c.speeds.is_empty() {
        let speeds: Vec<String> = (0..c.replicas as usize)
            .map(|i| number_text(c.speed(i)))
            .collect();
        s.push_str(&format!(
            "Replica speeds (iterations per tick): {}.\n",
            speeds.join(", ")
        ));
    }
    if c.scale_up_at > 0 {
        s.push_str(&format!(
            "One more replica (speed 1, empty cache) joins at {} {unit}.\n",
            c.scale_up_at
        ));
    }
    s.push('\n');
    s.push_str(&format!(
        "{:<22} {:>9} {:>9} {:>9} {:>6} {:>7} {:>5} {:>11}\n",
        "rule",
        "TTFT p50",
        "TTFT p95",
        "E2E p95",
        "SLO",
        "cache",
        "gap",
        if ms { "tokens/s" } else { "tokens/tick" }
    ));
    for r in &o.rules {
        s.push_str(&format!(
            "{:<22} {:>9} {:>9} {:>9} {:>5}% {:>6}% {:>5} {:>11}\n",
            r.rule.name(),
            Fixed(r.ttft_p50, 1),
            Fixed(r.ttft_p95, 1),
            Fixed(r.e2e_p95, 1),
            Fixed(r.slo_attainment * 100.0, 0),
            Fixed(r.cache_hit_share * 100.0, 0),
            r.assignment_gap,
            Fixed(r.output_throughput * per, 1)
        ));
    }
    if detail {
        for r in &o.rules {
            let origin = r.rule.origin();
            let credit = if origin.is_textbook() {
                String::new()
            } else {
                format!(" [{}]", origin.credit())
            };
            s.push_str(&format!(
                "\n{}{credit}: {} finished, {} outstanding, {} {unit}, {} preemptions\n",
                r.rule.name(),
                r.completed,
                r.outstanding,
                r.ticks,
                r.preemptions
            ));
            s.push_str(&format!(
                "  {:<8} {:>5} {:>6} {:>8} {:>9} {:>10} {:>11} {:>13}\n",
                "replica",
                "speed",
                "joined",
                "assigned",
                "completed",
                "mean queue",
                "utilisation",
                "prefill share"
            ));
            for (i, rep) in r.replicas.iter().enumerate() {
                s.push_str(&format!(
                    "  {:<8} {:>5} {:>6} {:>8} {:>9} {:>10} {:>10}% {:>12}%\n",
                    i + 1,
                    number_text(rep.speed),
                    rep.joined_at,
                    rep.assigned,
                    rep.completed,
                    Fixed(rep.mean_outstanding, 2),
                    Fixed(rep.utilization * 100.0, 0),
                    Fixed(rep.prefill_share * 100.0, 0)
                ));
            }
            let reasons: Vec<String> = r
                .reasons
                .iter()
                .map(|x| format!("{} {}", x.reason, x.count))
                .collect();
            s.push_str(&format!("  decisions: {}\n", reasons.join(", ")));
            if !r.counterfactuals.is_empty() {
                s.push_str(&format!(
                    "  other rules would have agreed: {}\n",
                    agreement(r)
                ));
            }
        }
    }
    s
}

/// How often each other rule would have made the same pick, from a rule's
/// counterfactuals: `least-outstanding 41%, …`.
fn agreement(r: &super::RuleOutcome) -> String {
    let total = r.counterfactuals.len().max(1) as f64;
    let Some(first) = r.counterfactuals.first() else {
        return String::new();
    };
    let parts: Vec<String> = first
        .others
        .iter()
        .enumerate()
        .map(|(k, alt)| {
            let same = r
                .counterfactuals
                .iter()
                .filter(|d| {
                    d.others
                        .get(k)
                        .is_some_and(|o| o.decision.replica == d.decision.replica)
                })
                .count();
            format!(
                "{} {}%",
                alt.rule.name(),
                Fixed(same as f64 / total * 100.0, 0)
            )
        })
        .collect();
    parts.join(", ")
}

/// One row per rule.
pub fn csv(o: &Outcome) -> String {
    // Milliseconds mode names its units in the header and gives
    // throughput per second; ticks keep the header of the article's lab.
    let ms = o.config.timing.in_ms();
    let mut s = String::from(if ms {
        "rule,ttft_p50_ms,ttft_p95_ms,e2e_p95_ms,slo_attainment,cache_hit_share,assignment_gap,output_tokens_per_s,completed,outstanding,preemptions\n"
    } else {
        "rule,ttft_p50,ttft_p95,e2e_p95,slo_attainment,cache_hit_share,assignment_gap,output_throughput,completed,outstanding,preemptions\n"
    });
    let per = o.config.timing.per_second();
    for r in &o.rules {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            r.rule.name(),
            Shortest(r.ttft_p50),
            Shortest(r.ttft_p95),
            Shortest(r.e2e_p95),
            Shortest(r.slo_attainment),
            Shortest(r.cache_hit_share),
            r.assignment_gap,
            Shortest(r.output_throughput * per),
            r.completed,
            r.outstanding,
            r.preemptions
        ));
    }
    s
}
