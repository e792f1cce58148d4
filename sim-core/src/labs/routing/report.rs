//! The Routing Lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Outcome, TraceSource};
use crate::choice::Choice;
use crate::params::number_text;

/// The comparison table, preceded by what was run; with `detail`, each rule's
/// replicas and decision reasons follow.
pub fn text(o: &Outcome, detail: bool) -> String {
    let mut s = header(o);
    settings(o, &mut s);
    rule_table(o, &mut s);
    if o.config.timing.in_ms() {
        decode_table(o, &mut s);
    }
    if detail {
        rule_details(o, &mut s);
    }
    s
}

/// The first lines: the generator's settings, or the replayed trace's own
/// statistics.
fn header(o: &Outcome) -> String {
    let c = &o.config;
    let t = &o.trace;
    let ms = c.timing.in_ms();
    let unit = c.timing.unit();
    // Throughput per tick, or per second when a tick is a millisecond.
    let per = c.timing.per_second();
    match o.source {
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
             Trace: {} requests over {unit} {}–{}, {:.3} per {}, inter-arrival CV {:.2}\n\
             Prompts: mean {:.0} tokens (CV {:.2}), p50 {:.0}, p99 {:.0}, max {}\n\
             Outputs: mean {:.1} tokens (CV {:.2}), p50 {:.0}, p99 {:.0}, max {}\n\
             Prompt blocks seen before (reuse bound, {}-token blocks): {:.1}%. Times in {unit}; SLO is TTFT ≤ {} {unit}.\n",
            c.replicas,
            c.slots,
            c.engine().kv_blocks,
            c.prefill_budget,
            t.requests,
            t.first_arrival,
            t.last_arrival,
            t.rate * per,
            if ms { "second" } else { "tick" },
            t.interarrival_cv,
            t.prompt.mean,
            t.prompt.cv,
            t.prompt.p50,
            t.prompt.p99,
            t.prompt.max,
            t.output.mean,
            t.output.cv,
            t.output.p50,
            t.output.p99,
            t.output.max,
            t.block_tokens,
            t.reuse_bound * 100.0,
            c.slo_ticks()
        ),
    }
}

/// The lines for settings away from the plain pool: a GPU preset, the
/// trace import, replica speeds, a replica joining late.
fn settings(o: &Outcome, s: &mut String) {
    let c = &o.config;
    let unit = c.timing.unit();
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
}

/// One row per rule: latency percentiles, SLO attainment, cache share,
/// assignment gap and throughput.
fn rule_table(o: &Outcome, s: &mut String) {
    let c = &o.config;
    let ms = c.timing.in_ms();
    let per = c.timing.per_second();
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
            "{:<22} {:>9.1} {:>9.1} {:>9.1} {:>5.0}% {:>6.0}% {:>5} {:>11.1}\n",
            r.rule.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.e2e_p95,
            r.slo_attainment * 100.0,
            r.cache_hit_share * 100.0,
            r.assignment_gap,
            r.output_throughput * per
        ));
    }
}

/// Milliseconds mode: per rule, TPOT and ITL as `vllm bench serve` reports
/// them, and the tokens a streamed chunk carried (above 1 only with
/// speculative decoding, where mean ITL parts from TPOT by that factor).
fn decode_table(o: &Outcome, s: &mut String) {
    s.push('\n');
    s.push_str(&format!(
        "{:<22} {:>9} {:>9} {:>9} {:>12}\n",
        "rule", "TPOT mean", "TPOT p95", "ITL mean", "tokens/chunk"
    ));
    for r in &o.rules {
        s.push_str(&format!(
            "{:<22} {:>9.2} {:>9.2} {:>9.2} {:>12.2}\n",
            r.rule.name(),
            r.tpot_mean,
            r.tpot_p95,
            r.itl_mean,
            r.tokens_per_chunk
        ));
    }
}

/// `--detail`: per rule, its replicas, its decisions' reasons and how often
/// the other rules would have agreed.
fn rule_details(o: &Outcome, s: &mut String) {
    let unit = o.config.timing.unit();
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
                "  {:<8} {:>5} {:>6} {:>8} {:>9} {:>10.2} {:>10.0}% {:>12.0}%\n",
                i + 1,
                number_text(rep.speed),
                rep.joined_at,
                rep.assigned,
                rep.completed,
                rep.mean_outstanding,
                rep.utilization * 100.0,
                rep.prefill_share * 100.0
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
            format!("{} {:.0}%", alt.rule.name(), same as f64 / total * 100.0)
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
            r.ttft_p50,
            r.ttft_p95,
            r.e2e_p95,
            r.slo_attainment,
            r.cache_hit_share,
            r.assignment_gap,
            r.output_throughput * per,
            r.completed,
            r.outstanding,
            r.preemptions
        ));
    }
    s
}
