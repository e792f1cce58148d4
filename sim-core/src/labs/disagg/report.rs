//! The disaggregation lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Crossover, Outcome, Setup};
use crate::choice::Choice;

/// Where the split is ahead, in words: from the crossover, and until the
/// length where it falls behind again when it does within the sweep.
pub fn crossover_text(c: Crossover, until: Option<f64>) -> String {
    let from = match c {
        Crossover::At(tokens) => format!("from about {tokens:.0} prompt tokens"),
        Crossover::Below => String::from("already at 256 prompt tokens"),
        Crossover::Never => return String::from("nowhere up to 32,768 prompt tokens"),
    };
    match until {
        Some(t) => format!("{from} until about {t:.0}"),
        None => format!("{from} up to 32,768"),
    }
}

/// The setups at the configured prompt; with `detail`, the sweep.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Disaggregation: {} engines of {} × {} serving {}, {} prefill + {} decode when split; {} req/s, prompts of {} tokens ({:.0}% shared, {} prefixes), outputs of {}; link {} GB/s + {} ms; decode router {}\n",
        c.prefill + c.decode,
        c.tp,
        c.gpu.title(),
        c.model.title(),
        c.prefill,
        c.decode,
        c.rate,
        c.prompt,
        c.shared * 100.0,
        c.groups,
        c.output,
        c.bandwidth,
        c.hop,
        c.decode_router.name()
    );
    s.push_str(&format!(
        "\n{:<12} {:>9} {:>9} {:>9} {:>9} {:>10} {:>6} {:>9} {:>7} {:>9}\n",
        "setup",
        "TTFT P50",
        "TTFT P95",
        "TPOT P50",
        "TPOT P95",
        "latency",
        "local",
        "transfer",
        "cached",
        "tok/s/GPU"
    ));
    for r in &o.runs {
        s.push_str(&format!(
            "{:<12} {:>9.1} {:>9.1} {:>9.2} {:>9.2} {:>10.0} {:>5.0}% {:>9.1} {:>6.0}% {:>9.0}\n",
            r.setup.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.tpot_p50,
            r.tpot_p95,
            r.e2e,
            r.local * 100.0,
            r.transfer,
            r.cached * 100.0,
            r.throughput
        ));
    }
    s.push_str(&format!(
        "\nDisaggregation's mean latency beats colocation {}.\n",
        crossover_text(o.crossover, o.until)
    ));
    if detail {
        s.push_str("\nMean latency (ms) by mean prompt length:\n");
        s.push_str(&format!("{:>7}", "prompt"));
        for setup in Setup::ALL {
            s.push_str(&format!(" {:>12}", setup.name()));
        }
        s.push('\n');
        for p in &o.sweep {
            s.push_str(&format!("{:>7}", p.prompt));
            for x in &p.e2e {
                s.push_str(&format!(" {x:>12.0}"));
            }
            s.push('\n');
        }
    }
    s
}

/// One row per setup and prompt length of the sweep, then the configured prompt's table.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from("prompt,setup,latency_ms,ttft_ms,tpot_ms\n");
    for p in &o.sweep {
        for (i, setup) in Setup::ALL.iter().enumerate() {
            s.push_str(&format!(
                "{},{},{},{},{}\n",
                p.prompt,
                setup.name(),
                p.e2e[i],
                p.ttft[i],
                p.tpot[i]
            ));
        }
    }
    s
}
