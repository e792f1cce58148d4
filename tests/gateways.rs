//! Several copies of the gateway (issue 27, deliverable 1): each copy keeps
//! its own router state and sees a share of the traffic. What that does is
//! checked over seeds 1–100: SGLang's cache-aware router, whose prefix tree
//! is built from its own decisions, finds less of the cache as the copies
//! multiply (each tree hears of a quarter of the traffic with four), as
//! SGLang's gateway PR #1621 describes; rules that read the replicas' caches
//! themselves are not changed at all by the copies.

use sim_core::labs::routing::{self, Config, Outcome};
use sim_core::routing::RuleKind;

fn run(gateways: u32, seed: u64) -> Outcome {
    spread(gateways, false, seed)
}

/// `gateways` copies, reached in turn or at random.
fn spread(gateways: u32, random: bool, seed: u64) -> Outcome {
    routing::run(&Config {
        gateways,
        gateway_random: random,
        seed,
        ..Config::default()
    })
    .expect("valid")
}

/// Pass: SGLang cache-aware's cache-hit share with four gateways below its
/// share with one, in at least 90 of 100 seeds, whether requests reach the
/// copies in turn or at random.
#[test]
fn sglang_cache_aware_finds_less_cache_with_more_gateways() {
    for random in [false, true] {
        fewer_hits_with_four(random);
    }
}

fn fewer_hits_with_four(random: bool) {
    let mut held = 0;
    let (mut one, mut four) = (0.0, 0.0);
    for seed in 1..=100 {
        let share = |o: &Outcome| {
            o.rule(RuleKind::SglangCacheAware)
                .expect("runs")
                .cache_hit_share
        };
        let (a, b) = (share(&run(1, seed)), share(&spread(4, random, seed)));
        one += a / 100.0;
        four += b / 100.0;
        if b < a {
            held += 1;
        }
    }
    println!(
        "SGLang cache-aware: cache-hit share lower with 4 gateways ({}) than with 1 in {held}/100 seeds (means {:.1}% against {:.1}%)",
        if random { "random" } else { "in turn" },
        100.0 * four,
        100.0 * one
    );
    assert!(held >= 90, "{held}/100");
}

/// Rules that read each replica's cache or load, not state of their own,
/// give the same outcome whatever the number of gateways (every seed).
#[test]
fn rules_without_router_state_ignore_the_gateway_count() {
    for seed in 1..=20 {
        let (a, b, c) = (run(1, seed), run(8, seed), spread(8, true, seed));
        for rule in [
            RuleKind::LeastOutstanding,
            RuleKind::PrefixAware,
            RuleKind::SglangPrefixHash,
            RuleKind::DynamoKv,
            RuleKind::Random,
        ] {
            assert_eq!(a.rule(rule), b.rule(rule), "{rule:?}, seed {seed}");
            assert_eq!(
                a.rule(rule),
                c.rule(rule),
                "{rule:?}, seed {seed}, random spread"
            );
        }
    }
}
