//! The prefix-affinity player reproduces the article's §6.1 figures exactly.

use sim_core::labs::prefix::{
    self, Config, Outcome, PrefixReason, RouterKind, RouterRun, TraceChoice,
};

fn run(cfg: &Config) -> Outcome {
    prefix::run(cfg).expect("valid")
}

fn router(o: &Outcome, kind: RouterKind) -> &RouterRun {
    o.routers
        .iter()
        .find(|r| r.router == kind)
        .expect("both routers run")
}

#[test]
fn default_scenario_matches_the_article() {
    let o = run(&Config::default());
    assert_eq!(o.trace.len(), 12);
    assert_eq!(
        o.trace.iter().filter(|r| r.prefix == 1).count(),
        8,
        "P1 on 8 of 12"
    );
    assert!(o
        .trace
        .iter()
        .filter(|r| r.prefix == 1)
        .all(|r| (r.prefix_tokens, r.suffix_tokens) == (4000, 180)));
    let (load, aware) = (
        router(&o, RouterKind::Load),
        router(&o, RouterKind::PrefixAware),
    );
    // R1 is P1 (4,180 tokens) and both routers send it to replica 1 as a miss.
    assert_eq!(o.trace[0].prefix, 1);
    assert_eq!(o.trace[0].prompt_tokens(), 4180);
    for r in [load, aware] {
        assert_eq!(r.steps[0].target, 0);
        assert!(!r.steps[0].hit);
        assert_eq!(r.steps[0].prefill_tokens, 4180);
    }
    assert_eq!(aware.steps[0].reason, PrefixReason::FirstSight);
    assert_eq!(load.hits, 4, "load-only hits 4 of 12");
    assert_eq!(aware.hits, 6, "prefix-aware hits 6 of 12");
    assert_eq!(load.prefill_tokens, 29_180);
    assert_eq!(aware.prefill_tokens, 21_180);
    assert_eq!(format!("{:.1}", o.prefill_reduction * 100.0), "27.4");
    // Exactly two requests take the escape hatch, and both miss.
    let escaped: Vec<_> = aware
        .steps
        .iter()
        .filter(|s| matches!(s.reason, PrefixReason::AffinityDropped { .. }))
        .collect();
    assert_eq!(escaped.len(), 2);
    assert_eq!(aware.escapes, 2);
    assert!(escaped.iter().all(|s| !s.hit));
    assert_eq!(load.escapes, 0);
}

#[test]
fn infinite_threshold_piles_p1_onto_one_replica() {
    let o = run(&Config {
        threshold: None,
        ..Config::default()
    });
    let aware = router(&o, RouterKind::PrefixAware);
    assert_eq!(aware.assignments, [8, 2, 2]);
    assert!(aware.hits > 6, "hits {} should exceed 6", aware.hits);
    assert_eq!(aware.escapes, 0);
}

#[test]
fn hits_rise_with_the_threshold() {
    let hits = |t| {
        router(
            &run(&Config {
                threshold: t,
                ..Config::default()
            }),
            RouterKind::PrefixAware,
        )
        .hits
    };
    let (h0, h2, hinf) = (hits(Some(0)), hits(Some(2)), hits(None));
    assert!(hinf >= h2 && h2 >= h0, "∞ {hinf}, 2 {h2}, 0 {h0}");
    // The sweep in the outcome agrees with separate runs.
    let o = run(&Config::default());
    assert_eq!(o.sweep.len(), 12);
    assert_eq!(o.sweep[0].hits, h0);
    assert_eq!(o.sweep[2].hits, h2);
    assert_eq!(o.sweep[11].hits, hinf);
    assert_eq!(o.sweep[11].threshold, None);
    assert_eq!(o.sweep[11].assignment_gap, 6);
}

#[test]
fn every_step_is_consistent() {
    for cfg in [
        Config::default(),
        Config {
            trace: TraceChoice::Random,
            seed: 7,
            replicas: 4,
            slots: 2,
            ..Config::default()
        },
        Config {
            trace: TraceChoice::Custom(vec![1, 1, 2, 2, 3, 1, 6]),
            ..Config::default()
        },
    ] {
        let o = run(&cfg);
        for r in &o.routers {
            let mut total = 0u64;
            for (i, s) in r.steps.iter().enumerate() {
                let req = o.trace[i];
                let expected = if s.hit {
                    req.suffix_tokens
                } else {
                    req.prompt_tokens()
                };
                assert_eq!(s.prefill_tokens, expected);
                total += u64::from(expected);
                assert_eq!(s.cumulative_prefill, total);
                assert_eq!(s.assignments.iter().sum::<u32>() as usize, i + 1);
                assert!(s.caches.iter().all(|c| c.len() <= cfg.slots as usize));
                assert!(s.caches[s.target as usize]
                    .iter()
                    .any(|e| e.prefix == req.prefix));
            }
            assert_eq!(r.prefill_tokens, total);
            let hit_entries: u32 = r
                .steps
                .last()
                .map_or(0, |s| s.caches.iter().flatten().map(|e| e.hits).sum());
            assert!(hit_entries <= r.hits);
        }
    }
}

#[test]
fn bad_config_is_a_typed_error() {
    let err = prefix::run(&Config {
        replicas: 9,
        ..Config::default()
    })
    .expect_err("invalid");
    assert_eq!(err.key, "replicas");
    let err = prefix::run(&Config {
        trace: TraceChoice::Custom(vec![1, 7]),
        ..Config::default()
    })
    .expect_err("invalid");
    assert_eq!(err.key, "trace");
    assert_eq!(err.given, "1,7");
    let err = prefix::run(&Config {
        trace: TraceChoice::Custom(vec![]),
        ..Config::default()
    })
    .expect_err("invalid");
    assert_eq!(err.key, "trace");
    assert!(err.to_string().contains("1–40 prefix ids"), "{err}");
}
