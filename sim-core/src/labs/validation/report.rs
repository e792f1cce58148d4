//! A validation as plain text: one row per published figure with the
//! simulated median and range, then the judged lines with their verdicts.

use alloc::format;
use alloc::string::String;
use core::fmt::Write;

use crate::choice::Choice;

use super::{Validation, ORDER_PASS, THROUGHPUT_FACTOR, TTFT_FACTOR};

fn verdict(ok: bool) -> &'static str {
    if ok {
        "holds"
    } else {
        "FAILS"
    }
}

/// Figures at a precision that suits their size.
fn fig(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    }
}

/// The validation of one scenario as text.
pub fn text(v: &Validation) -> String {
    let s = &v.scenario;
    let mut out = String::new();
    let n = v.seeds.len();
    let _ = writeln!(out, "{} [{}]", s.title, s.id);
    let _ = writeln!(out, "source: {}", s.source);
    let _ = writeln!(out, "link:   {}", s.link());
    let _ = writeln!(
        out,
        "seeds {}–{} ({n}); simulated = median [min–max]",
        v.seeds.first().copied().unwrap_or(0),
        v.seeds.last().copied().unwrap_or(0)
    );
    let _ = writeln!(
        out,
        "{:<50} {:<20} {:>10} {:>26}  {:>13}  rank at the median",
        "figure", "lab rule", "published", "simulated", "sim/published"
    );
    for r in &v.rows {
        let p = &r.published;
        for (what, published, spread, in_order) in [
            (
                s.throughput.unit(),
                p.throughput,
                r.throughput,
                r.throughput_in_order,
            ),
            (s.ttft.name(), p.ttft_s, r.ttft, r.ttft_in_order),
        ] {
            let unit = if what == s.ttft.name() { " s" } else { "" };
            let _ = writeln!(
                out,
                "{:<50} {:<20} {:>10} {:>26}  {:>13}  {}",
                format!("{} · {what}", p.policy),
                p.rule.name(),
                format!("{}{unit}", fig(published)),
                format!(
                    "{}{unit} [{}–{}]",
                    fig(spread.median),
                    fig(spread.min),
                    fig(spread.max)
                ),
                format!("{}×", fig(spread.median / published)),
                if in_order {
                    "as published"
                } else {
                    "OUT OF ORDER"
                },
            );
        }
    }
    let need = libm::ceil(ORDER_PASS * n as f64) as usize;
    let _ = writeln!(
        out,
        "rank order by throughput: {}/{n} seeds (need {need})  {}",
        v.throughput_order,
        verdict(v.throughput_order_holds())
    );
    let _ = writeln!(
        out,
        "rank order by {}: {}/{n} seeds (need {need})  {}",
        s.ttft.name(),
        v.ttft_order,
        verdict(v.ttft_order_holds())
    );
    let (a, b) = s.headline;
    let (pa, pb) = (&s.published[a].policy, &s.published[b].policy);
    let _ = writeln!(
        out,
        "throughput {pa} / {pb}: published {}×, simulated {}× [{}–{}] (within {THROUGHPUT_FACTOR}×)  {}",
        fig(v.published_throughput_ratio()),
        fig(v.throughput_ratio.median),
        fig(v.throughput_ratio.min),
        fig(v.throughput_ratio.max),
        verdict(v.throughput_ratio_holds())
    );
    let _ = writeln!(
        out,
        "{} {pb} / {pa}: published {}×, simulated {}× [{}–{}] (within {TTFT_FACTOR}×)  {}",
        s.ttft.name(),
        fig(v.published_ttft_ratio()),
        fig(v.ttft_ratio.median),
        fig(v.ttft_ratio.min),
        fig(v.ttft_ratio.max),
        verdict(v.ttft_ratio_holds())
    );
    let _ = writeln!(out, "modelling gaps:");
    for g in s.gaps {
        let _ = writeln!(out, "  - {g}");
    }
    out
}
