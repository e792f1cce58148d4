//! The herding lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{Outcome, RuleSummary};
use crate::choice::Choice;

/// The four rules compared; with `detail`, each rule's per-tick timeline.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Herding lab: {} replicas, {} routers, scrape every {} ticks ({}), {} ticks, λ = {} per tick, service {} ticks, seed {}\n\n",
        c.replicas,
        c.routers,
        c.scrape_interval,
        if c.stagger { "staggered" } else { "in phase" },
        c.ticks,
        c.arrival_rate,
        c.service_time,
        c.seed
    );
    s.push_str(&format!(
        "{:<26} {:>9} {:>9} {:>11} {:>8}\n",
        "rule", "peak skew", "mean skew", "oscillation", "pile-up"
    ));
    for r in &o.rules {
        s.push_str(&format!(
            "{:<26} {:>9} {:>9.2} {:>11.2} {:>7.0}%\n",
            r.rule.name(),
            r.peak_skew,
            r.mean_skew,
            r.oscillation,
            r.pile_up_share * 100.0
        ));
    }
    if detail {
        for r in &o.rules {
            s.push('\n');
            s.push_str(&timeline(r));
        }
    }
    s
}

/// One rule's per-tick timeline (replicas and routers 1-based).
pub fn timeline(r: &RuleSummary) -> String {
    let mut s = format!("Timeline: {}\n", r.rule.name());
    s.push_str(
        "tick arr skew outstanding (new)            scraped   dispatches (router→replica)\n",
    );
    for t in &r.timeline.ticks {
        let out: Vec<String> = t
            .outstanding
            .iter()
            .zip(&t.new)
            .map(|(o, n)| {
                if *n > 0 {
                    format!("{o}(+{n})")
                } else {
                    o.to_string()
                }
            })
            .collect();
        let scraped: Vec<String> = t
            .routers
            .iter()
            .enumerate()
            .filter(|(_, v)| v.scraped)
            .map(|(i, _)| format!("R{}", i + 1))
            .collect();
        let sends: Vec<String> = t
            .routers
            .iter()
            .enumerate()
            .flat_map(|(i, v)| {
                v.dispatched
                    .iter()
                    .map(move |d| format!("R{}→{}", i + 1, d + 1))
            })
            .collect();
        let line = format!(
            "{:>4} {:>3} {:>4} {:<30} {:<9} {}",
            t.tick,
            t.arrivals,
            t.skew,
            out.join(" "),
            if scraped.is_empty() {
                String::from("-")
            } else {
                scraped.join(",")
            },
            sends.join(" ")
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

/// One row per rule.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from("rule,peak_skew,mean_skew,oscillation,pile_up_share\n");
    for r in &o.rules {
        s.push_str(&format!(
            "{},{},{},{},{}\n",
            r.rule.name(),
            r.peak_skew,
            r.mean_skew,
            r.oscillation,
            r.pile_up_share
        ));
    }
    s
}
