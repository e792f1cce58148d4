//! Replaying a real trace: the first 2,000 requests of the Mooncake conversation
//! trace (read from `shared/traces/`, never copied into this repository) through
//! every selection rule, with the engine sized for its long prompts.

use lblab_tests::shared_trace;
use sim_core::labs::routing::{run_rules_on, Config};
use sim_core::routing::RuleKind;
use sim_core::workload::mooncake;

fn config() -> Config {
    Config {
        replicas: 8,
        prefill_budget: 8192,
        kv_blocks: 40_000,
        slots: 16,
        cache_tokens: 262_144,
        slo_ttft: 50,
        ..Config::default()
    }
}

#[test]
fn mooncake_conversations_replay_under_every_rule() {
    let path = shared_trace("mooncake_conversation_trace.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the replay test reads shared/traces/ beside the repo)",
            path.display()
        )
    });
    // One tick = 100 ms of the trace's clock.
    let workload = mooncake::parse(&text, 100, 2000).expect("the trace parses");
    assert_eq!(workload.requests.len(), 2000);
    assert!(workload
        .requests
        .iter()
        .all(|r| r.blocks.len() as u32 == r.prompt_tokens.div_ceil(512)));
    let o = run_rules_on(&config(), &workload, &RuleKind::ALL);
    for r in &o.rules {
        println!(
            "{:<18} TTFT p50 {:>6.1} p95 {:>7.1}  SLO {:>4.0}%  cache {:>4.1}%  gap {}",
            r.rule.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.slo_attainment * 100.0,
            r.cache_hit_share * 100.0,
            r.assignment_gap
        );
        assert_eq!(r.completed, 2000, "{:?} left work unfinished", r.rule);
    }
    let share = |k| o.rule(k).expect("ran").cache_hit_share;
    // Every conversation turn starts with shared block 0 and repeats its history:
    // following the cache must reuse more of it than dealing blindly.
    assert!(share(RuleKind::PrefixAware) > 1.5 * share(RuleKind::RoundRobin));
    assert!(share(RuleKind::PrefixAware) > 1.5 * share(RuleKind::Random));
    // The article's least-KV mechanism shows on real traffic too: the gauge that
    // cannot see queues has the lowest SLO attainment of the six.
    let slo = |k| o.rule(k).expect("ran").slo_attainment;
    assert!(RuleKind::ALL
        .iter()
        .filter(|&&k| k != RuleKind::LeastKv)
        .all(|&k| slo(RuleKind::LeastKv) < slo(k)));
    let again = run_rules_on(&config(), &workload, &[RuleKind::PrefixAware]);
    assert_eq!(
        again.rules[0],
        *o.rule(RuleKind::PrefixAware).expect("ran"),
        "replays are deterministic"
    );
}
