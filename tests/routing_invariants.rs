//! Invariants of the Routing Lab that must hold for any config and seed.

use sim_core::labs::routing::{self, Config};
use sim_core::params::Configurable;
use sim_core::routing::RuleKind;

fn configs() -> Vec<Config> {
    let d = Config::default();
    vec![
        d.clone(),
        Config {
            rate: 0.05,
            ..d.clone()
        },
        Config {
            rate: 1.5,
            replicas: 3,
            requests: 300,
            ..d.clone()
        },
        Config {
            replicas: 1,
            requests: 50,
            burstiness: 0.2,
            ..d.clone()
        },
        Config {
            replicas: 16,
            requests: 333,
            prompt_cv: 2.5,
            long_share: 0.9,
            ..d.clone()
        },
        Config {
            kv_blocks: 40,
            slots: 4,
            ..d.clone()
        },
        Config {
            prefix_pool: 0,
            cache_tokens: 0,
            ..d.clone()
        },
        heterogeneous(),
    ]
}

/// Mixed speeds, a replica joining mid-run under slow start, counterfactuals on.
fn heterogeneous() -> Config {
    let mut c = Config {
        replicas: 3,
        speeds: vec![2.0, 0.5, 1.0],
        scale_up_at: 200,
        counterfactuals: true,
        ..Config::default()
    };
    c.rules.envoy_least_request.slow_start_window = 100;
    c
}

#[test]
fn every_request_is_completed_or_reported_outstanding() {
    for cfg in configs() {
        let o = routing::run(&cfg).expect("valid");
        assert_eq!(o.trace.requests, cfg.requests);
        for r in &o.rules {
            assert_eq!(r.completed + r.outstanding, cfg.requests, "{:?}", r.rule);
            assert_eq!(
                r.outstanding, 0,
                "{:?} left work unfinished at {cfg:?}",
                r.rule
            );
            let assigned: u32 = r.replicas.iter().map(|x| x.assigned).sum();
            let completed: u32 = r.replicas.iter().map(|x| x.completed).sum();
            assert_eq!(assigned, cfg.requests);
            assert_eq!(completed, r.completed);
            assert_eq!(r.decisions.len() as u32, cfg.requests);
            assert!((0.0..=1.0).contains(&r.slo_attainment));
            assert!((0.0..=1.0).contains(&r.cache_hit_share));
            for x in &r.replicas {
                assert!(x.prefill_share <= x.utilization && x.utilization <= 1.0);
            }
        }
    }
}

#[test]
fn a_tick_cap_reports_unfinished_work_as_outstanding() {
    let cfg = Config {
        max_ticks: 300,
        rate: 2.0,
        ..Config::default()
    };
    let o = routing::run(&cfg).expect("valid");
    for r in &o.rules {
        assert!(
            r.outstanding > 0,
            "{:?} should not finish in 300 ticks",
            r.rule
        );
        assert_eq!(r.completed + r.outstanding, cfg.requests);
    }
}

#[test]
fn kv_pressure_preempts_and_still_finishes() {
    let cfg = Config {
        kv_blocks: 120,
        rate: 0.5,
        ..Config::default()
    };
    let o = routing::run(&cfg).expect("valid");
    assert!(
        o.rules.iter().any(|r| r.preemptions > 0),
        "120 blocks should force preemption"
    );
    assert!(o.rules.iter().all(|r| r.outstanding == 0));
}

#[test]
fn same_config_and_seed_give_identical_json() {
    for cfg in configs() {
        let a = serde_json::to_string(&routing::run(&cfg).expect("valid")).expect("json");
        let b = serde_json::to_string(&routing::run(&cfg).expect("valid")).expect("json");
        assert_eq!(a, b);
        let other = Config {
            seed: cfg.seed + 1,
            ..cfg.clone()
        };
        let c = serde_json::to_string(&routing::run(&other).expect("valid")).expect("json");
        assert_ne!(a, c, "a new seed must give a new trace");
    }
}

#[test]
fn the_newcomer_and_the_speeds_are_reported() {
    let o = routing::run(&heterogeneous()).expect("valid");
    for r in &o.rules {
        let speeds: Vec<f64> = r.replicas.iter().map(|x| x.speed).collect();
        let joined: Vec<u64> = r.replicas.iter().map(|x| x.joined_at).collect();
        assert_eq!(speeds, [2.0, 0.5, 1.0, 1.0], "{:?}", r.rule);
        assert_eq!(joined, [0, 0, 0, 200], "{:?}", r.rule);
        // Nothing can be sent to a replica before it exists.
        assert!(r.queue.series[3]
            .iter()
            .take(200 / r.queue.stride as usize)
            .all(|&q| q == 0));
    }
}

#[test]
fn counterfactuals_explain_without_changing_the_run() {
    let with = routing::run(&heterogeneous()).expect("valid");
    let without = routing::run(&Config {
        counterfactuals: false,
        ..heterogeneous()
    })
    .expect("valid");
    for (a, b) in with.rules.iter().zip(&without.rules) {
        assert_eq!(
            a.decisions, b.decisions,
            "{:?}: asking others moved the run",
            a.rule
        );
        assert_eq!(a.ttft_p95, b.ttft_p95);
        assert!(b.counterfactuals.is_empty());
        assert_eq!(a.counterfactuals.len(), a.decisions.len());
        for (i, d) in a.counterfactuals.iter().enumerate() {
            assert_eq!(d.request as usize, i);
            assert_eq!(d.decision, a.decisions[i]);
            let others: Vec<RuleKind> = d.others.iter().map(|x| x.rule).collect();
            let expected: Vec<RuleKind> = RuleKind::ALL
                .iter()
                .copied()
                .filter(|&k| k != a.rule)
                .collect();
            assert_eq!(
                others, expected,
                "every other rule answers, in registry order"
            );
        }
    }
    // Shadows answer with their own reasons: least outstanding's is always a
    // least-loaded pick, whichever rule really ran.
    let lo = with.rule(RuleKind::RoundRobin).expect("ran");
    for d in &lo.counterfactuals {
        let alt = d
            .others
            .iter()
            .find(|x| x.rule == RuleKind::LeastOutstanding)
            .unwrap();
        assert!(matches!(
            alt.decision.reason,
            sim_core::routing::Reason::LeastLoaded { .. }
        ));
    }
}

#[test]
fn each_rule_sees_the_same_trace_whatever_else_runs() {
    let cfg = Config::default();
    let all = routing::run(&cfg).expect("valid");
    for &rule in RuleKind::ALL {
        let alone = routing::run_rules(&cfg, &[rule]).expect("valid");
        assert_eq!(alone.rules[0], *all.rule(rule).expect("ran"), "{rule:?}");
    }
}

#[test]
fn out_of_range_values_are_typed_errors_not_panics() {
    let bad = [
        (
            Config {
                replicas: 0,
                ..Config::default()
            },
            "replicas",
        ),
        (
            Config {
                rate: -1.0,
                ..Config::default()
            },
            "rate",
        ),
        (
            Config {
                rate: f64::NAN,
                ..Config::default()
            },
            "rate",
        ),
        (
            Config {
                prompt_cv: 3.5,
                ..Config::default()
            },
            "prompt-cv",
        ),
        (
            Config {
                long_share: 1.5,
                ..Config::default()
            },
            "long-share",
        ),
        (
            Config {
                prompt_min: 500,
                prompt_max: 100,
                ..Config::default()
            },
            "prompt-max",
        ),
        (
            Config {
                speeds: vec![8.0],
                ..Config::default()
            },
            "speeds",
        ),
    ];
    for (cfg, field) in bad {
        let err = routing::run(&cfg).expect_err("must be rejected");
        assert_eq!(err.key, field);
        assert!(err.to_string().contains(field));
    }
    assert!(Config::param("replicas").is_some());
    assert!(Config::param("nope").is_none());
}

#[test]
fn missing_json_keys_take_defaults() {
    let cfg: Config = serde_json::from_str(r#"{"replicas": 8, "rate": 0.4}"#).expect("parses");
    assert_eq!(cfg.replicas, 8);
    assert_eq!(cfg.mean_prompt, Config::default().mean_prompt);
}
