//! The article's qualitative claims about the Routing Lab (§4.2), each checked over
//! 100 seeds at the defaults with the pass ratio the issue states. A claim that
//! fails names the seeds that broke it.

use lblab_tests::{pass_ratio, routing_at, SEEDS};
use sim_core::labs::routing::{Config, Outcome, RuleOutcome};
use sim_core::routing::RuleKind;

fn get(o: &Outcome, r: RuleKind) -> &RuleOutcome {
    o.rule(r).expect("every rule runs")
}

fn outcomes(cfg: &Config) -> Vec<(u64, Outcome)> {
    SEEDS.map(|s| (s, routing_at(cfg, s))).collect()
}

fn check(name: &str, outcomes: &[(u64, Outcome)], needed: f64, claim: impl Fn(&Outcome) -> bool) {
    let (ratio, failed) = pass_ratio(outcomes, claim);
    println!("claim {name}: held in {:.0}% of seeds", ratio * 100.0);
    assert!(
        ratio >= needed,
        "claim {name} held in {:.0}% of seeds, needs {:.0}%; failed seeds: {failed:?}",
        ratio * 100.0,
        needed * 100.0
    );
}

#[test]
fn claims_at_the_defaults() {
    use RuleKind::*;
    let all = outcomes(&Config::default());
    check("(a) round robin's assignment gap is 0", &all, 1.0, |o| {
        get(o, RoundRobin).assignment_gap == 0
    });
    check(
        "(b) least outstanding beats round robin on TTFT P95",
        &all,
        0.8,
        |o| get(o, LeastOutstanding).ttft_p95 < get(o, RoundRobin).ttft_p95,
    );
    check(
        "(c) random has a worse TTFT P95 than round robin",
        &all,
        0.8,
        |o| get(o, Random).ttft_p95 > get(o, RoundRobin).ttft_p95,
    );
    check(
        "(d) least KV: lowest SLO attainment, gap above LO, P2C, PA",
        &all,
        0.8,
        |o| {
            let kv = get(o, LeastKv);
            let lowest = RuleKind::ALL
                .iter()
                .filter(|&&r| r != LeastKv)
                .all(|&r| kv.slo_attainment < get(o, r).slo_attainment);
            let gap = [LeastOutstanding, PowerOfTwo, PrefixAware]
                .iter()
                .all(|&r| kv.assignment_gap > get(o, r).assignment_gap);
            lowest && gap
        },
    );
    check(
        "(e) prefix-aware has the highest cache-hit share",
        &all,
        1.0,
        |o| {
            let pa = get(o, PrefixAware).cache_hit_share;
            RuleKind::ALL
                .iter()
                .filter(|&&r| r != PrefixAware)
                .all(|&r| pa > get(o, r).cache_hit_share)
        },
    );
}

#[test]
fn claims_at_low_load() {
    use RuleKind::*;
    let low = Config {
        rate: 0.05,
        ..Config::default()
    };
    let all = outcomes(&low);
    check(
        "(f) load rules converge at λ = 0.05; prefix-aware lower",
        &all,
        0.8,
        |o| {
            let p: Vec<f64> = [LeastOutstanding, PowerOfTwo, RoundRobin]
                .iter()
                .map(|&r| get(o, r).ttft_p95)
                .collect();
            let (lo, hi) = p
                .iter()
                .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
            let close = hi <= lo * 1.25;
            let pa = get(o, PrefixAware).ttft_p95;
            close && p.iter().all(|&x| pa < x)
        },
    );
}
