//! The providers lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Moment, MomentKind, Outcome};
use crate::choice::Choice;

/// One line saying what `moment` was, deployments called by `names`
/// (regions 1-based).
pub fn moment_text(m: &Moment, names: &[String]) -> String {
    let name = |d: u8| crate::providers::gateway::name_of(names, d);
    let (from, to, n) = (m.from, m.to, m.figure);
    match m.kind {
        MomentKind::Spill => format!(
            "first spill: {} answered {n} and the call went on to {}",
            name(from),
            name(to)
        ),
        MomentKind::Trip => format!(
            "{} is taken out of rotation for {:.1} s",
            name(from),
            f64::from(n) / 1000.0
        ),
        MomentKind::Refused => format!(
            "first 429 to reach a client: {} refused the call and the router had nowhere else to send it",
            name(from)
        ),
        MomentKind::RegionMiss => format!(
            "conversation {} moves from region {} to region {} and computes {} tokens of its history again",
            m.conv,
            from + 1,
            to + 1,
            crate::params::thousands(u64::from(n))
        ),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// The strategies compared, the sweep, and with `detail` each recorded
/// run's key moments.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "Providers: {} req/s for {} s; {} reserved ({} tokens/min, ${}/h) and {} metered ({} tokens/min, {} req/min) deployment(s) in {} region(s); cache key {}, entries {} s, writes {}×, reads {}× of ${}/M input\n",
        c.rate,
        c.seconds,
        c.reserved,
        c.ptu_tpm,
        c.ptu_hourly,
        c.metered,
        c.quota_tpm,
        c.quota_rpm,
        c.regions,
        c.cache_key.name(),
        c.ttl_s,
        c.write_x,
        c.read_x,
        c.input_price,
    );
    s.push_str(&format!("Deployments: {}\n", o.names.join(", ")));
    s.push_str(&format!(
        "\n{:<14} {:>8} {:>7} {:>7} {:>7} {:>7} {:>5} {:>6} {:>7} {:>7} {:>7} {:>6} {:>6}\n",
        "strategy",
        "$/1k",
        "hits",
        "split",
        "moved",
        "spill",
        "429s",
        "failed",
        "P50",
        "P95",
        "P99",
        "stops",
        "served"
    ));
    for r in &o.runs {
        s.push_str(&format!(
            "{:<14} {:>8.3} {:>7} {:>7} {:>7} {:>7} {:>5} {:>6} {:>7.0} {:>7.0} {:>7.0} {:>6} {:>6}\n",
            r.strategy.name(),
            r.cost_per_1k,
            pct(r.hit_share),
            pct(r.split_share),
            pct(r.moved_share),
            pct(r.spill_share),
            r.client_429,
            r.failed,
            r.ttft[0],
            r.ttft[1],
            r.ttft[2],
            r.budget_stops,
            r.served,
        ));
    }
    s.push_str("$/1k is the bill per 1,000 calls (reserved hours and metered tokens); hits the share of prompt tokens read from the provider's cache; split the conversations served in two regions; moved the follow-up turns sent to another region; spill the calls served by metered capacity; TTFT in ms from the first send.\n");
    if !o.sweep.is_empty() {
        s.push_str(&format!(
            "\nLoad sweep (no incident, {} s a point): spillover against equal weights\n{:>6} {:>7} {:>7} {:>12} {:>12} {:>10}\n",
            super::SWEEP_S.min(c.seconds),
            "load",
            "req/s",
            "spill",
            "spill $/1k",
            "equal $/1k",
            "429s"
        ));
        for p in &o.sweep {
            s.push_str(&format!(
                "{:>5.0}% {:>7.2} {:>7} {:>12.3} {:>12.3} {:>5}/{:<4}\n",
                100.0 * p.load,
                p.rate,
                pct(p.spill_share),
                p.spill_cost,
                p.shuffle_cost,
                p.client_429[0],
                p.client_429[1],
            ));
        }
        s.push_str("Load is the offered tokens over the reserved capacity; 429s are spillover's / equal weights'.\n");
    }
    if detail {
        for r in &o.runs {
            let Some(tl) = &r.timeline else { continue };
            s.push_str(&format!("\nKey moments, {}:\n", r.strategy.name()));
            for (t, snap) in tl.iter().enumerate() {
                if let Some(m) = &snap.moment {
                    s.push_str(&format!("  tick {t}: {}\n", moment_text(m, &o.names)));
                }
            }
        }
    }
    s
}

/// One row per strategy.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "strategy,cost_per_1k,cost,hit_share,split_share,moved_share,spill_share,client_429,failed,ttft_p50_ms,ttft_p95_ms,ttft_p99_ms,budget_stops,deferred,requests,served,unfinished\n",
    );
    for r in &o.runs {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.strategy.name(),
            r.cost_per_1k,
            r.cost,
            r.hit_share,
            r.split_share,
            r.moved_share,
            r.spill_share,
            r.client_429,
            r.failed,
            r.ttft[0],
            r.ttft[1],
            r.ttft[2],
            r.budget_stops,
            r.deferred,
            r.requests,
            r.served,
            r.unfinished
        ));
    }
    s
}
