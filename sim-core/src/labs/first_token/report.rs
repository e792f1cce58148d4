//! The first-token lab as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;

use super::{Moment, Outcome, RecoveryRun, Then};
use crate::choice::Choice;

/// The strategies compared; with `detail`, where each one's failures fell.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let mut s = format!(
        "The first token: {} conversations ({}/s for {} s, {} turns on average); {} replicas × {} slots, routing {}{}; {}; replica 1 fails {:.0}% of attempts, replica 2 is {}× slower, the others fail {:.1}%\n",
        o.conversations,
        c.rate,
        c.seconds,
        c.turns,
        c.replicas,
        c.slots,
        c.route.name(),
        if c.route == super::Route::Pool {
            format!(" ({} for high effort)", c.pool)
        } else {
            String::new()
        },
        if c.reasoning {
            format!(
                "reasoning: {}/{}/{} hidden tokens at low/medium/high effort ({:.0}% medium, {:.0}% high, {:.0}% of turns change effort)",
                c.low,
                c.medium,
                c.high,
                100.0 * c.medium_share,
                100.0 * c.high_share,
                100.0 * c.vary
            )
        } else {
            String::from("a plain model (no hidden tokens)")
        },
        100.0 * c.faulty,
        c.slow,
        100.0 * c.fail
    );
    if c.hedge_until == super::HedgeUntil::End {
        s.push_str("Hedges race to the end of the answer: both copies decode on, and the slower is cancelled when one finishes.\n");
    }
    s.push_str(&format!(
        "\n{:<8} {:>9} {:>8} {:>8} {:>9} {:>8} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6}\n",
        "strategy",
        "TTFVT P50",
        "P95",
        "P99",
        "inter P95",
        "errors",
        "broken",
        "resumed",
        "hedges",
        "hedge %",
        "waste",
        "cache"
    ));
    for r in &o.runs {
        s.push_str(&format!(
            "{:<8} {:>9.0} {:>8.0} {:>8.0} {:>9.0} {:>8} {:>7} {:>7} {:>7} {:>6.1}% {:>5.1}% {:>5.1}%\n",
            r.recovery.name(),
            r.ttfvt_p50,
            r.ttfvt_p95,
            r.ttfvt_p99,
            r.interactive_p95,
            r.errors,
            r.broken,
            r.resumed,
            r.hedges,
            100.0 * r.hedge_share,
            100.0 * r.wasted_share,
            100.0 * r.cache_share
        ));
    }
    if detail {
        s.push_str("\nwhere failures fell (attempts) and what became of the requests\n");
        for r in &o.runs {
            s.push_str(&detail_line(r));
        }
        for r in o.runs.iter().filter(|r| !r.timeline.is_empty()) {
            s.push_str(&format!(
                "\nkey moments of {} (the player's lanes)\n",
                r.recovery.name()
            ));
            for (t, f) in r.timeline.iter().enumerate() {
                if let Some(m) = &f.moment {
                    let at = (t as u64 + 1) * super::FRAME_MS;
                    s.push_str(&format!(
                        "  {:>8.2} s  {}\n",
                        at as f64 / 1000.0,
                        moment_text(m)
                    ));
                }
            }
        }
    }
    s
}

/// A key moment in one line.
pub fn moment_text(m: &Moment) -> String {
    match *m {
        Moment::Failed {
            req,
            replica,
            hidden,
            shown,
            then,
        } => format!(
            "request {} fails on replica {} after {hidden} hidden and {shown} shown tokens: {}",
            req + 1,
            replica + 1,
            match then {
                Then::Retry => "retried elsewhere, unseen",
                Then::Twin => "its hedge twin runs on",
                Then::Error => "an error",
                Then::Broken => "a broken stream",
                Then::Resume => "resumed from the text shown",
            }
        ),
        Moment::Hedged {
            req,
            replica,
            waited_ms,
            shown,
        } => format!(
            "request {} hedged to replica {} after {:.2} s, {shown} tokens shown",
            req + 1,
            replica + 1,
            waited_ms as f64 / 1000.0
        ),
        Moment::HedgeWon {
            req,
            replica,
            wasted,
        } => format!(
            "request {}'s hedge copy on replica {} shows a token first; the other had made {wasted}",
            req + 1,
            replica + 1
        ),
    }
}

/// One strategy's failures before and after the first visible token.
fn detail_line(r: &RecoveryRun) -> String {
    format!(
        "  {:<8} {} before the first visible token ({} requests recovered unseen, {} retries), {} after it; {} of {} requests answered, {} open{}\n",
        r.recovery.name(),
        r.failures_before,
        r.recovered,
        r.retries,
        r.failures_after,
        r.done,
        r.requests,
        r.open,
        if r.hedges > 0 {
            format!("; a hedge's cancelled copy cost {:.2} of an answer", r.hedge_cost)
        } else {
            String::new()
        }
    )
}

/// One row per strategy.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from(
        "recovery,requests,done,open,ttfvt_p50,ttfvt_p95,ttfvt_p99,interactive_p95,errors,broken,resumed,recovered,failures_before,failures_after,hedges,retries,hedge_share,hedge_cost,wasted_share,cache_share\n",
    );
    for r in &o.runs {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.recovery.name(),
            r.requests,
            r.done,
            r.open,
            r.ttfvt_p50,
            r.ttfvt_p95,
            r.ttfvt_p99,
            r.interactive_p95,
            r.errors,
            r.broken,
            r.resumed,
            r.recovered,
            r.failures_before,
            r.failures_after,
            r.hedges,
            r.retries,
            r.hedge_share,
            r.hedge_cost,
            r.wasted_share,
            r.cache_share
        ));
    }
    s
}
