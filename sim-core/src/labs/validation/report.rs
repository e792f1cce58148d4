//! A validation in words: one [`FigureRow`] per published figure (the
//! simulated median and range beside it), then the [`Judged`] lines with
//! their verdicts. [`text`] sets them out for the CLI and the golden file;
//! the web page's validation view puts the same rows in a table.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
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
pub fn fig(x: f64) -> String {
    if x >= 100.0 {
        format!("{:.0}", x)
    } else if x >= 10.0 {
        format!("{:.1}", x)
    } else {
        format!("{:.3}", x)
    }
}

/// One published figure beside the lab's, as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureRow {
    /// The source's policy and what is measured ("random · TTFT p90").
    pub figure: String,
    /// The lab's rule standing for the policy.
    pub rule: &'static str,
    /// The published figure, with its unit.
    pub published: String,
    /// The seed median and range, with its unit.
    pub simulated: String,
    /// Simulated median over published.
    pub ratio: String,
    /// Whether the median ranks where the source puts it.
    pub in_order: bool,
}

/// The rank column's words for a figure: whether its median ranks among
/// the scenario's policies where the source's figure does. About the rank
/// only: a figure 20× the published one can still rank as the source's
/// does, so the words never say the figure is "as published".
pub fn rank_verdict(in_order: bool) -> &'static str {
    if in_order {
        "same rank as the source"
    } else {
        "RANK DIFFERS from the source"
    }
}

/// Every figure of `v`, throughput then TTFT for each policy (with no
/// seeds, [`super::summarise`] of nothing, only the published figures).
pub fn figure_rows(v: &Validation) -> Vec<FigureRow> {
    let s = &v.scenario;
    let mut out = Vec::new();
    for r in &v.rows {
        let p = &r.published;
        for (what, unit, published, spread, in_order) in [
            (
                s.throughput.unit(),
                "",
                p.throughput,
                r.throughput,
                r.throughput_in_order,
            ),
            (s.ttft.name(), " s", p.ttft_s, r.ttft, r.ttft_in_order),
        ] {
            // With no seeds run yet (the page's first view), the published
            // figure alone.
            let measured = !v.seeds.is_empty();
            out.push(FigureRow {
                figure: format!("{} · {what}", p.policy),
                rule: p.rule.name(),
                published: format!("{}{unit}", fig(published)),
                simulated: if measured {
                    format!(
                        "{}{unit} [{}–{}]",
                        fig(spread.median),
                        fig(spread.min),
                        fig(spread.max)
                    )
                } else {
                    String::from("…")
                },
                ratio: if measured {
                    format!("{}×", fig(spread.median / published))
                } else {
                    String::new()
                },
                in_order,
            });
        }
    }
    out
}

/// One judged line: what is compared, and whether it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The line, without its verdict.
    pub what: String,
    /// Its verdict.
    pub holds: bool,
}

/// The four judged lines of `v`: the two rank orders over seeds, the two
/// headline ratios at the median.
pub fn judged(v: &Validation) -> [Judged; 4] {
    let s = &v.scenario;
    let n = v.seeds.len();
    let need = libm::ceil(ORDER_PASS * n as f64) as usize;
    let (a, b) = s.headline;
    let (pa, pb) = (&s.published[a].policy, &s.published[b].policy);
    [
        Judged {
            what: format!(
                "rank order by throughput: {}/{n} seeds (need {need})",
                v.throughput_order
            ),
            holds: v.throughput_order_holds(),
        },
        Judged {
            what: format!(
                "rank order by {}: {}/{n} seeds (need {need})",
                s.ttft.name(),
                v.ttft_order
            ),
            holds: v.ttft_order_holds(),
        },
        Judged {
            what: format!(
                "throughput {pa} / {pb}: published {}×, simulated {}× [{}–{}] (within {}×)",
                fig(v.published_throughput_ratio()),
                fig(v.throughput_ratio.median),
                fig(v.throughput_ratio.min),
                fig(v.throughput_ratio.max),
                THROUGHPUT_FACTOR,
            ),
            holds: v.throughput_ratio_holds(),
        },
        Judged {
            what: format!(
                "{} {pb} / {pa}: published {}×, simulated {}× [{}–{}] (within {}×)",
                s.ttft.name(),
                fig(v.published_ttft_ratio()),
                fig(v.ttft_ratio.median),
                fig(v.ttft_ratio.min),
                fig(v.ttft_ratio.max),
                TTFT_FACTOR,
            ),
            holds: v.ttft_ratio_holds(),
        },
    ]
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
    for r in figure_rows(v) {
        let _ = writeln!(
            out,
            "{:<50} {:<20} {:>10} {:>26}  {:>13}  {}",
            r.figure,
            r.rule,
            r.published,
            r.simulated,
            r.ratio,
            rank_verdict(r.in_order),
        );
    }
    for j in judged(v) {
        let _ = writeln!(out, "{}  {}", j.what, verdict(j.holds));
    }
    let _ = writeln!(out, "modelling gaps:");
    for g in s.gaps {
        let _ = writeln!(out, "  - {g}");
    }
    out
}
