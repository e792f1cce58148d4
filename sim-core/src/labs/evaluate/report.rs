//! The evaluate lab's text report, its CSV, and the plain-words verdict on
//! each design ("what this measured").

use alloc::format;
use alloc::string::String;

use super::{Design, DesignRun, Outcome, Warmth};
use crate::choice::Choice;
use crate::params::thousands;

/// `x` with one decimal and its sign.
fn signed(x: f64) -> String {
    format!("{x:+.1}")
}

/// What `d` measured, in a few sentences: whether its verdict agrees with
/// the truth (`truth`, the new rule's mean TTFT minus the current's on the
/// whole pool; `whole_history` the new rule's history share there), and
/// why not when it does not.
pub fn verdict(d: &DesignRun, truth: f64, whole_history: f64) -> String {
    let right = d.measured != 0.0 && (d.measured > 0.0) == (truth > 0.0);
    let size = if truth != 0.0 {
        d.measured / truth
    } else {
        0.0
    };
    let mut s = if right {
        format!(
            "Right sign: it measured {} ticks against a true {}, {:.0}% of the real effect.",
            signed(d.measured),
            signed(truth),
            100.0 * size
        )
    } else {
        format!(
            "Wrong verdict: it measured {} ticks where the truth is {}; more traffic would only make it surer of the wrong answer.",
            signed(d.measured),
            signed(truth)
        )
    };
    let (h, whole) = (100.0 * d.canary.history_share, 100.0 * whole_history);
    let why = match d.design {
        Design::Request => format!(
            " Only {} of {} consecutive pairs ({:.2}%) had both turns on the new rule, so almost none of the locality it would create is its own: the history it found ({h:.0}% of its conversations' own tokens cached, against {whole:.0}% running the whole pool) was left on shared replicas by the current rule's traffic, which also sets the load it sees.",
            thousands(d.both.into()),
            thousands(d.pairs.into()),
            100.0 * f64::from(d.both) / f64::from(d.pairs.max(1)),
        ),
        Design::Session => format!(
            " Whole conversations stay with the new rule ({h:.0}% of their history cached, against {whole:.0}% running the whole pool), but it shares replicas with the current rule, whose traffic sets their load and fills or evicts their caches."
        ),
        Design::Split => format!(
            " Each rule owns half the replicas, so neither touches the other's caches ({h:.0}% of the history cached, against {whole:.0}% on the whole pool); but each half pools fewer replicas, and a smaller pool queues more at the same load."
        ),
        Design::Shadow => format!(
            " The copies run on a shadow pool sized for the canary share, which users never see ({h:.0}% of the history cached, against {whole:.0}% on the whole pool); a pool that small queues more at the same load and leaves the rule few replicas to choose from, so it measures the pool as much as the rule."
        ),
    };
    s.push_str(&why);
    match d.needed {
        Some(n) => s.push_str(&format!(
            " To see the sign at 95% confidence it needs about {} requests in all.",
            thousands(n)
        )),
        None => s.push_str(" No number of requests fixes a wrong sign."),
    }
    s
}

/// A replayed trace: what the import kept, its own statistics (as the
/// Routing Lab prints them), and the conversations found in it.
fn replay(r: &super::Replay) -> String {
    let t = &r.stats;
    format!(
        "{}\ntrace: {} requests, {:.3} per tick, inter-arrival CV {:.2}; prompts p50 {:.0} / p99 {:.0} tokens, outputs p50 {:.0} / p99 {:.0}; reuse bound {:.1}% of prompt blocks ({}-token blocks); {} conversations recovered from its prefix chains ({:.2} turns each)\n",
        r.import.summary(),
        thousands(t.requests.into()),
        t.rate,
        t.interarrival_cv,
        t.prompt.p50,
        t.prompt.p99,
        t.output.p50,
        t.output.p99,
        100.0 * t.reuse_bound,
        t.block_tokens,
        thousands(r.conversations.into()),
        f64::from(t.requests) / f64::from(r.conversations.max(1))
    )
}

/// The report `lblab evaluate` prints.
pub fn text(o: &Outcome, detail: bool) -> String {
    let c = &o.config;
    let traffic = match &o.replay {
        Some(_) => String::from("a replayed trace"),
        None => format!("{:.3} conversations per tick", c.rate),
    };
    let mut s = format!(
        "Evaluating {} against {} (current) on {} replicas, {traffic}, canary {:.0}%\n",
        c.candidate.title(),
        c.current.title(),
        c.replicas,
        100.0 * c.canary
    );
    if let Some(r) = &o.replay {
        s.push_str(&replay(r));
        if let Some(short) = &r.shortfall {
            s.push_str(&format!("note: {short}\n"));
        }
    }
    s.push_str(&format!(
        "truth (whole pool, warmed): current mean TTFT {:.1}, new {:.1} ticks: effect {} ticks; cache {:.1}% against {:.1}%, history {:.1}% against {:.1}%\n",
        o.current.mean,
        o.candidate.mean,
        signed(o.truth),
        100.0 * o.current.cache_share,
        100.0 * o.candidate.cache_share,
        100.0 * o.current.history_share,
        100.0 * o.candidate.history_share
    ));
    s.push_str(&format!(
        "a per-request canary holds both of two consecutive turns in {} of {} hash-bucket pairs ({:.2}%)\n\n",
        thousands(o.pair_odds.0),
        thousands(o.pair_odds.1),
        100.0 * o.pair_odds.0 as f64 / o.pair_odds.1.max(1) as f64
    ));
    s.push_str("design               measured  history new  history cur  pairs both   needed\n");
    for d in &o.designs {
        s.push_str(&format!(
            "{:<20} {:>8}  {:>10.1}%  {:>10.1}%  {:>6} {:>4} {:>8}\n",
            d.design.name(),
            signed(d.measured),
            100.0 * d.canary.history_share,
            100.0 * d.control.history_share,
            d.pairs,
            d.both,
            d.needed.map_or("never".into(), |n| format!("{n}"))
        ));
    }
    s.push_str("\ntails (ticks)        arm      P50    P95    P99    max\n");
    for d in &o.designs {
        for (arm, a) in [("current", &d.control), ("new", &d.canary)] {
            s.push_str(&format!(
                "{:<20} {:<7} {:>6.0} {:>6.0} {:>6.0} {:>6.0}\n",
                d.design.name(),
                arm,
                a.p50,
                a.p95,
                a.p99,
                a.max
            ));
        }
    }
    s.push_str("\nwarm-up    current  new     gap (new faster by)\n");
    for w in &o.warmth {
        let name = match w.warmth {
            Warmth::Cold => "cold",
            Warmth::Warm => "warm",
            Warmth::Over => "over-warm",
        };
        s.push_str(&format!(
            "{:<10} {:>7.1} {:>7.1} {:>7.1}\n",
            name, w.current.mean, w.candidate.mean, w.gap
        ));
    }
    curves(o, &mut s);
    if detail {
        for d in &o.designs {
            s.push_str(&format!("\n{}: {}\n", d.design.title(), d.verdict));
        }
    }
    s
}

/// The load curves, the ramp's knee and the outage, for [`text`].
fn curves(o: &Outcome, s: &mut String) {
    let c = &o.config;
    s.push_str("\nload   clients  open: offered goodput within   closed: offered goodput within\n");
    for p in &o.loads {
        s.push_str(&format!(
            "{:>4.2}x {:>7}  {:>13.3} {:>7.3} {:>5.0}%   {:>15.3} {:>7.3} {:>5.0}%\n",
            p.scale,
            p.clients,
            p.open.offered,
            p.open.goodput,
            100.0 * p.open.within,
            p.closed.offered,
            p.closed.goodput,
            100.0 * p.closed.within
        ));
    }
    let knee = o.ramp.iter().find(|p| p.goodput < 0.95 * p.offered);
    s.push_str(&match knee {
        Some(p) => format!(
            "linear ramp {:.2}x to {:.2}x: goodput first falls under 95% of the offered load at {:.2}x ({:.3} of {:.3} per tick)\n",
            o.config.peak / 5.0,
            o.config.peak,
            p.scale,
            p.goodput,
            p.offered
        ),
        None => format!(
            "linear ramp {:.2}x to {:.2}x: goodput keeps within 5% of the offered load throughout\n",
            o.config.peak / 5.0,
            o.config.peak
        ),
    });
    if let Some(u) = &o.outage {
        s.push_str(&format!(
            "\nsemantic cache: {:.0}% of requests answered, {:.1}% of them wrong; down ticks {}–{}\n",
            100.0 * u.hit,
            100.0 * u.wrong,
            c.outage_at,
            c.outage_at + c.outage_for
        ));
        s.push_str(&format!(
            "below 90% of the pool's own goodput ({:.3}/tick): {} ticks without the limit, {} with it ({} refused)\n",
            u.baseline,
            u.below_unlimited,
            u.below_limited,
            u.refused
        ));
        s.push_str(&format!(
            "TTFT P95 of the requests reaching the pool during the outage: {:.0} ticks without the limit, {:.0} with it\n",
            u.p95_unlimited, u.p95_limited
        ));
    }
}

/// One row per design and arm.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from("design,arm,rule,requests,mean,p50,p95,p99,max,cache_share,within,measured,truth,pairs,both,needed\n");
    for d in &o.designs {
        for (arm, a) in [("current", &d.control), ("new", &d.canary)] {
            s.push_str(&format!(
                "{},{},{},{},{:.2},{:.1},{:.1},{:.1},{:.1},{:.4},{:.4},{:.2},{:.2},{},{},{}\n",
                d.design.name(),
                arm,
                a.rule.name(),
                a.requests,
                a.mean,
                a.p50,
                a.p95,
                a.p99,
                a.max,
                a.cache_share,
                a.within,
                d.measured,
                o.truth,
                d.pairs,
                d.both,
                d.needed.map_or(String::new(), |n| format!("{n}"))
            ));
        }
    }
    s
}
