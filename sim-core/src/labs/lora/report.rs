//! The LoRA lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Moment, Outcome, Rule};
use crate::choice::Choice;

/// One line saying what `moment` was (replicas 1-based).
pub fn moment_text(m: &Moment) -> String {
    match *m {
        Moment::ColdCopy {
            replica,
            adapter,
            holder,
        } => format!(
            "replica {} stalls to fetch adapter {adapter} cold, though replica {} already holds it",
            replica + 1,
            holder + 1
        ),
        Moment::HotSpot {
            replica,
            waiting,
            least,
        } => format!(
            "hot spot: {waiting} requests wait on replica {} against {least} on the least busy replica",
            replica + 1
        ),
        Moment::Swap { replica } => format!(
            "first swap: replica {} pushes an adapter out of a slot to make room",
            replica + 1
        ),
    }
}

/// The rules compared, the prefix twin, and with `detail` the player's
/// key moments for the rules that recorded one.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let a = c.adapter_spec();
    let mut s = format!(
        "LoRA adapters: {} req/s for {} s over {} adapters (Zipf {}); {} replicas × {} sequences, {} adapter slots, {} in host memory; loads {} ms cold, {} ms from host; mixed batch +{}‰ per extra adapter; placement {} copies\n",
        c.rate,
        c.seconds,
        c.adapters,
        c.zipf,
        c.replicas,
        c.slots,
        c.lora_slots,
        c.host_adapters,
        a.load_cold_ticks * super::TICK_MS,
        a.load_host_ticks * super::TICK_MS,
        c.mixed_permille,
        c.copies,
    );
    s.push_str(&format!(
        "\n{:<12} {:>9} {:>9} {:>6} {:>6} {:>9} {:>8} {:>8} {:>8} {:>10}\n",
        "rule",
        "TTFT P50",
        "TTFT P95",
        "cold",
        "host",
        "swaps/min",
        "hottest",
        "loading",
        "goodput",
        "unfinished"
    ));
    for r in &o.runs {
        s.push_str(&format!(
            "{:<12} {:>9.0} {:>9.0} {:>6} {:>6} {:>9.1} {:>7.1}% {:>7.1}% {:>8.1} {:>10}\n",
            r.rule.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.cold_loads,
            r.host_loads,
            r.swaps_per_min,
            100.0 * r.hottest_share,
            100.0 * r.loading_share,
            r.goodput,
            r.unfinished
        ));
    }
    s.push_str(&format!(
        "\nThe same popularity on prompt prefixes, no adapters, prefix-aware routing: hottest replica {:.1}% of requests, TTFT P95 {:.0} ms",
        100.0 * o.twin.hottest_share,
        o.twin.ttft_p95
    ));
    if let Some(r) = o.run(Rule::Residency) {
        s.push_str(&format!(
            "; residency-only affinity on adapters: {:.1}%",
            100.0 * r.hottest_share
        ));
    }
    s.push_str(
        ".\nTimes in ms; goodput is requests a second with a first token within the objective.\n",
    );
    s.push_str(&tiers_text(o));
    if detail {
        for r in &o.runs {
            let Some(tl) = &r.timeline else { continue };
            s.push_str(&format!("\nKey moments, {}:\n", r.rule.name()));
            for (t, snap) in tl.iter().enumerate() {
                if let Some(m) = &snap.moment {
                    s.push_str(&format!("  tick {t}: {}\n", moment_text(m)));
                }
            }
        }
    }
    s
}

/// The cache-tier sweep: TTFT against the shared store's bandwidth.
fn tiers_text(o: &Outcome) -> String {
    let mut s = format!(
        "\nCache tiers: {}-token prompts sharing {}-token documents, {} documents fit a replica's accelerator cache, a store shared by the pool holds them all\n{:>12} {:>14} {:>14} {:>14} {:>12}\n",
        super::tiers::PROMPT,
        super::tiers::DOCUMENT,
        super::tiers::DEVICE_DOCUMENTS,
        "store GB/s",
        "prefix P95",
        "least-load P95",
        "tier-cost P95",
        "gap (mean)"
    );
    for p in &o.tiers {
        let gbps = if p.gbps > 0.0 {
            format!("{:.0}", p.gbps)
        } else {
            String::from("none")
        };
        s.push_str(&format!(
            "{:>12} {:>14.0} {:>14.0} {:>14.0} {:>12.0}\n",
            gbps,
            p.prefix_p95,
            p.least_p95,
            p.tier_p95,
            p.least_mean - p.prefix_mean
        ));
    }
    s.push_str("The gap is least load's mean TTFT minus prefix-aware's, ms.\n");
    s
}

/// One row per rule.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "rule,ttft_p50_ms,ttft_p95_ms,cold_loads,host_loads,swaps_per_min,hottest_share,loading_share,goodput_per_s,arrived,finished,unfinished\n",
    );
    for r in &o.runs {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.rule.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.cold_loads,
            r.host_loads,
            r.swaps_per_min,
            r.hottest_share,
            r.loading_share,
            r.goodput,
            r.arrived,
            r.finished,
            r.unfinished
        ));
    }
    s
}
