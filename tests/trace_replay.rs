//! Replaying real traces under every selection rule, with the engine sized for
//! their long prompts: the committed excerpt (first 2,000 requests of the
//! Mooncake conversation trace) always, and the full file when it is at hand.

use lblab_tests::{excerpt, full_trace, skipped};
use sim_core::choice::Choice;
use sim_core::labs::routing::{run_rules_on, Config, Outcome};
use sim_core::routing::RuleKind;
use sim_core::workload::trace::ImportOptions;
use sim_core::workload::Workload;

fn config() -> Config {
    Config::for_traces()
}

/// Read a Mooncake file with one tick = 100 ms of the trace's clock.
fn read(path: &std::path::Path, limit: u32) -> Workload {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let options = ImportOptions {
        limit,
        ..ImportOptions::default()
    };
    let (workload, report) = options.import(&text, None).expect("the trace parses");
    assert_eq!(report.malformed, 0, "{:?}", report.problems);
    workload
}

fn print_table(o: &Outcome) {
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
    }
}

#[test]
fn mooncake_conversations_replay_under_every_rule() {
    let workload = read(&excerpt("mooncake_conversation_first2000.jsonl"), 2000);
    assert_eq!(workload.requests.len(), 2000);
    assert!(workload
        .requests
        .iter()
        .all(|r| r.blocks.len() as u32 == r.prompt_tokens.div_ceil(512)));
    let o = run_rules_on(&config(), &workload, RuleKind::ALL).expect("valid");
    print_table(&o);
    for r in &o.rules {
        assert_eq!(r.completed, 2000, "{:?} left work unfinished", r.rule);
        // No rule can reuse more than an infinite shared cache could.
        assert!(
            r.cache_hit_share <= o.trace.reuse_bound + 1e-12,
            "{:?}",
            r.rule
        );
    }
    let share = |k| o.rule(k).expect("ran").cache_hit_share;
    // Every conversation turn starts with shared block 0 and repeats its history:
    // following the cache must reuse more of it than dealing blindly.
    assert!(share(RuleKind::PrefixAware) > 1.5 * share(RuleKind::RoundRobin));
    assert!(share(RuleKind::PrefixAware) > 1.5 * share(RuleKind::Random));
    // The article's least-KV mechanism shows on real traffic too: the gauge that
    // cannot see queues has the lowest SLO attainment of all the rules.
    let slo = |k| o.rule(k).expect("ran").slo_attainment;
    assert!(RuleKind::ALL
        .iter()
        .filter(|&&k| k != RuleKind::LeastKv)
        .all(|&k| slo(RuleKind::LeastKv) < slo(k)));
    let again = run_rules_on(&config(), &workload, &[RuleKind::PrefixAware]).expect("valid");
    assert_eq!(
        again.rules[0],
        *o.rule(RuleKind::PrefixAware).expect("ran"),
        "replays are deterministic"
    );
}

#[test]
fn the_trace_summary_describes_the_file_not_the_generator() {
    let workload = read(&excerpt("mooncake_conversation_first2000.jsonl"), 2000);
    let s = workload.stats();
    assert_eq!(s.requests, 2000);
    assert_eq!(s.block_tokens, 512);
    // The excerpt spans 669 s of the trace clock: 6,690 ticks of 100 ms.
    assert_eq!((s.first_arrival, s.last_arrival), (0, 6690));
    assert!((s.rate - 1999.0 / 6690.0).abs() < 1e-12);
    // Long prompts, as the source describes (mean about 12k tokens).
    assert!(
        s.prompt.mean > 5_000.0 && s.prompt.max > 50_000,
        "{:?}",
        s.prompt
    );
    assert!(s.reuse_bound > 0.0 && s.reuse_bound < 1.0);
}

#[test]
fn the_full_mooncake_conversation_trace_replays_when_present() {
    let Some(path) = full_trace("mooncake_conversation_trace.jsonl") else {
        skipped("mooncake_conversation_trace.jsonl not found (set LBLAB_TRACES to its directory)");
        return;
    };
    let workload = read(&path, 200_000);
    assert_eq!(workload.requests.len(), 12_031);
    let s = workload.stats();
    // The published statistics of the full file: 288,500 blocks, 36.6% repeats.
    let blocks: usize = workload.requests.iter().map(|r| r.blocks.len()).sum();
    assert_eq!(blocks, 288_500);
    assert!((s.reuse_bound - 0.366).abs() < 0.001, "{}", s.reuse_bound);
    let cfg = Config {
        replicas: 16,
        ..config()
    };
    let o = run_rules_on(&cfg, &workload, RuleKind::ALL).expect("valid");
    print_table(&o);
    for r in &o.rules {
        assert_eq!(r.completed, 12_031, "{:?}", r.rule);
        assert!(r.cache_hit_share <= s.reuse_bound + 1e-12, "{:?}", r.rule);
    }
}

/// Every turn after a recovered conversation's first extends an earlier
/// turn of it: that turn's last whole block is in the later prompt (the
/// link `Workload::sessions` follows, checked here from the outside; a
/// conversation may branch, as when a user edits a message). A request that
/// extends no earlier one starts a conversation of its own.
fn check_conversations(w: &Workload) -> (u32, f64) {
    let s = w.sessions();
    assert_eq!(s.of.len(), w.requests.len());
    let mut links: Vec<Vec<u32>> = vec![Vec::new(); s.count as usize];
    let mut turns = vec![0u32; s.count as usize];
    for (i, (r, &c)) in w.requests.iter().zip(&s.of).enumerate() {
        let c = c as usize;
        if turns[c] > 0 {
            assert!(
                links[c].iter().any(|b| r.blocks.contains(b)),
                "request {i} extends no earlier turn of conversation {c}"
            );
        }
        turns[c] += 1;
        let whole = (r.prompt_tokens / w.block_tokens) as usize;
        if whole > 0 {
            links[c].push(r.blocks[whole - 1]);
        }
        assert!(s.shared_blocks[i] as usize <= r.blocks.len());
    }
    assert!(turns
        .iter()
        .all(|&t| (1..=sim_core::workload::sessions::MAX_TURNS).contains(&t)));
    (s.count, w.requests.len() as f64 / f64::from(s.count))
}

#[test]
fn conversations_recovered_from_the_excerpt_extend_their_earlier_turns() {
    let w = read(&excerpt("mooncake_conversation_first2000.jsonl"), 2000);
    let (count, turns) = check_conversations(&w);
    println!("excerpt: {count} conversations, {turns:.2} turns each");
    // Every request starts with the same block, yet they are not one
    // conversation; some do continue one.
    assert_eq!(count, 1590);
}

#[test]
fn conversations_recovered_from_the_full_trace_when_present() {
    let Some(path) = full_trace("mooncake_conversation_trace.jsonl") else {
        skipped("mooncake_conversation_trace.jsonl not found (set LBLAB_TRACES to its directory)");
        return;
    };
    let w = read(&path, 200_000);
    let (count, turns) = check_conversations(&w);
    println!("full trace: {count} conversations, {turns:.2} turns each");
    assert!(count > 1000 && count < 12_031, "{count}");
}

/// The page sizes the engines when a trace is loaded with each lab's own
/// keys: every key must be one of the lab's parameters and every value in
/// range (an unknown key would be dropped without a word).
#[test]
fn each_lab_that_replays_traces_sizes_its_engines_with_its_own_keys() {
    let labs: Vec<_> = sim_core::labs::LABS
        .iter()
        .filter(|l| l.replays_traces)
        .collect();
    assert!(
        labs.len() >= 3,
        "routing, goodput and evaluate replay traces"
    );
    for lab in labs {
        let keys: Vec<&str> = (lab.params)().iter().map(|p| p.key).collect();
        for (k, _) in lab.trace_settings {
            assert!(keys.contains(k), "{}: {k} is not a parameter", lab.info.id);
        }
        // The page applies them one at a time, refusing any that leaves the
        // settings inconsistent, so every prefix must hold on its own.
        for n in 1..=lab.trace_settings.len() {
            (lab.canonical)(&lab.trace_settings[..n])
                .unwrap_or_else(|e| panic!("{} after {n} settings: {e}", lab.info.id));
        }
    }
}
