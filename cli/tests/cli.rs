//! The `lblab` binary as a user meets it: JSON shape, text table golden, errors.

use std::path::Path;
use std::process::Command;

fn lblab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lblab"))
        .args(args)
        .output()
        .expect("lblab runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Compare with a checked-in golden file; on mismatch write `<name>-changed.txt`
/// beside it for review and fail.
fn golden(name: &str, actual: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let path = dir.join(format!("{name}.txt"));
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let changed = dir.join(format!("{name}-changed.txt"));
        std::fs::write(&changed, actual).expect("write -changed file");
        panic!(
            "{name} differs from its golden; review {} and copy it over if intended",
            changed.display()
        );
    }
}

#[test]
fn routing_json_has_the_documented_keys() {
    let (code, out, err) = lblab(&["routing", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let rules = v["rules"].as_array().expect("rules array");
    assert_eq!(rules.len(), 6);
    for r in rules {
        for key in [
            "rule",
            "ttft_p50",
            "ttft_p95",
            "e2e_p95",
            "slo_attainment",
            "cache_hit_share",
            "assignment_gap",
            "output_throughput",
        ] {
            assert!(!r[key].is_null(), "missing {key}");
        }
        let share = r["slo_attainment"].as_f64().expect("number");
        assert!((0.0..=1.0).contains(&share));
        let replicas = r["replicas"].as_array().expect("replicas array");
        assert_eq!(replicas.len(), 4);
        for x in replicas {
            for key in ["assigned", "completed", "utilization"] {
                assert!(x[key].is_number(), "missing replica {key}");
            }
        }
    }
    assert_eq!(rules[1]["rule"], "round-robin");
}

#[test]
fn one_rule_and_flags_are_honoured() {
    let (code, out, _) = lblab(&[
        "routing",
        "--rule",
        "least-kv",
        "--replicas",
        "3",
        "--rate=0.1",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["rules"].as_array().map(Vec::len), Some(1));
    assert_eq!(v["rules"][0]["rule"], "least-kv");
    assert_eq!(v["config"]["replicas"], 3);
    assert_eq!(v["config"]["rate"], 0.1);
}

#[test]
fn default_table_matches_golden() {
    let (code, out, _) = lblab(&["routing"]);
    assert_eq!(code, 0);
    golden("routing_default", &out);
}

#[test]
fn bad_input_is_one_line_naming_the_flag_and_range() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["routing", "--replicas", "0"],
            "--replicas must be a number between 1 and 64",
        ),
        (
            &["routing", "--rate", "-1"],
            "--rate must be a number between 0.001 and 4",
        ),
        (
            &["routing", "--rate", "abc"],
            "--rate must be a number between 0.001 and 4 (got 'abc')",
        ),
        (
            &["routing", "--prompt-cv", "5"],
            "--prompt-cv must be a number between 0 and 3",
        ),
        (
            &["routing", "--long-share", "1.2"],
            "--long-share must be a number between 0 and 1",
        ),
        (
            &["routing", "--mean-prompt", "12.5"],
            "--mean-prompt must be a number between 32 and 8192",
        ),
        (
            &["routing", "--rule", "fastest"],
            "--rule must be one of random, round-robin",
        ),
        (
            &["routing", "--seed", "-3"],
            "--seed must be a whole number",
        ),
        (&["routing", "--frobnicate"], "unknown flag '--frobnicate'"),
        (&["routing", "--rate"], "--rate needs a value"),
        (&["nonsense"], "unknown command 'nonsense'"),
    ];
    for (args, want) in cases {
        let (code, out, err) = lblab(args);
        assert_ne!(code, 0, "{args:?} should fail");
        assert!(out.is_empty(), "{args:?} printed to stdout: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: got {err:?}, want {want:?}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn help_lists_every_flag_with_default_and_range() {
    let (code, out, _) = lblab(&["routing", "--help"]);
    assert_eq!(code, 0);
    for flag in [
        "--replicas",
        "--rate",
        "--mean-prompt",
        "--prompt-cv",
        "--long-share",
        "--requests",
        "--seed",
        "--rule",
        "--json",
    ] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} missing"));
        if flag != "--json" && flag != "--rule" {
            assert!(line.contains("default") && line.contains("range"), "{line}");
        }
    }
}

#[test]
fn herding_json_has_the_documented_keys() {
    let (code, out, err) = lblab(&["herding", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let rules = v["rules"].as_array().expect("rules array");
    let names: Vec<&str> = rules.iter().filter_map(|r| r["rule"].as_str()).collect();
    assert_eq!(
        names,
        [
            "stale-least-outstanding",
            "own-dispatches",
            "two-choices",
            "both"
        ]
    );
    for r in rules {
        for key in ["peak_skew", "mean_skew", "oscillation", "pile_up_share"] {
            assert!(r[key].is_number(), "missing {key}");
        }
        assert_eq!(r["timeline"]["ticks"].as_array().map(Vec::len), Some(90));
    }
}

#[test]
fn herding_timeline_matches_golden() {
    let (code, out, _) = lblab(&["herding", "--rule", "stale-least-outstanding", "--timeline"]);
    assert_eq!(code, 0);
    golden("herding_timeline_default", &out);
}

#[test]
fn herding_bad_input_is_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["herding", "--routers", "0"],
            "--routers must be a number between 1 and 16",
        ),
        (
            &["herding", "--scrape-interval", "abc"],
            "--scrape-interval must be a number between 1 and 100",
        ),
        (
            &["herding", "--arrival-rate", "-2"],
            "--arrival-rate must be a number between 0.1 and 20",
        ),
        (
            &["herding", "--rule", "p3c"],
            "--rule must be one of stale-least-outstanding",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = lblab(args);
        assert_ne!(code, 0);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
    }
}

#[test]
fn prefix_json_and_golden_steps() {
    let (code, out, err) = lblab(&["prefix", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let routers = v["routers"].as_array().expect("routers array");
    assert_eq!(routers[0]["router"], "load");
    assert_eq!(routers[1]["router"], "prefix-aware");
    for r in routers {
        for key in ["hits", "prefill_tokens", "escapes"] {
            assert!(r[key].is_number(), "missing {key}");
        }
        assert_eq!(r["assignments"].as_array().map(Vec::len), Some(3));
        assert_eq!(r["steps"].as_array().map(Vec::len), Some(12));
    }
    assert_eq!(routers[0]["prefill_tokens"], 29180);
    assert_eq!(routers[1]["prefill_tokens"], 21180);
    let (code, out, _) = lblab(&["prefix", "--steps"]);
    assert_eq!(code, 0);
    golden("prefix_steps_default", &out);
    let (code, out, _) = lblab(&["prefix", "--threshold", "inf", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["routers"][1]["assignments"], serde_json::json!([8, 2, 2]));
}

#[test]
fn prefix_bad_input_is_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["prefix", "--threshold", "-1"],
            "--threshold must be a whole number between 0 and 1000, or inf",
        ),
        (
            &["prefix", "--replicas", "9"],
            "--replicas must be a number between 2 and 6",
        ),
        (
            &["prefix", "--slots", "x"],
            "--slots must be a number between 1 and 4",
        ),
        (
            &["prefix", "--trace", "1,9"],
            "--trace prefix ids must be between 1 and 6",
        ),
        (
            &["prefix", "--trace", "banana"],
            "--trace must be default, random",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = lblab(args);
        assert_ne!(code, 0, "{args:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn batching_json_and_golden_iterations() {
    let (code, out, err) = lblab(&["batching", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let modes = v["modes"].as_array().expect("modes array");
    let names: Vec<&str> = modes.iter().filter_map(|m| m["mode"].as_str()).collect();
    assert_eq!(names, ["static", "continuous", "chunked"]);
    let iters: Vec<u64> = modes
        .iter()
        .filter_map(|m| m["iterations"].as_u64())
        .collect();
    assert_eq!(iters, [25, 19, 14]);
    for m in modes {
        assert!(m["zero_output_iterations"].is_number());
        let occ = m["slot_occupancy"].as_f64().expect("number");
        assert!((0.0..=1.0).contains(&occ));
        assert_eq!(
            m["iterations_detail"].as_array().map(Vec::len),
            m["iterations"].as_u64().map(|x| x as usize)
        );
    }
    let (code, out, _) = lblab(&["batching", "--detail"]);
    assert_eq!(code, 0);
    golden("batching_iterations_default", &out);
    let (code, _, err) = lblab(&["batching", "--mode", "turbo"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--mode must be one of static, continuous, chunked, all"),
        "{err}"
    );
    let (code, _, err) = lblab(&["batching", "--slots", "0"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--slots must be a number between 1 and 8"),
        "{err}"
    );
}

#[test]
fn queueing_commands_print_the_documented_json() {
    let json = |args: &[&str]| -> serde_json::Value {
        let (code, out, err) = lblab(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_str(&out).expect("valid JSON")
    };
    let v = json(&["knee", "--json"]);
    let curves = v["curves"].as_array().expect("curves");
    let usable: Vec<f64> = curves[..3]
        .iter()
        .filter_map(|c| c["usable_utilization"].as_f64())
        .collect();
    assert!(
        (usable[0] - 6.0 / 7.0).abs() < 1e-12
            && (usable[1] - 0.75).abs() < 1e-12
            && (usable[2] - 6.0 / 11.0).abs() < 1e-12
    );
    assert!(curves.iter().all(|c| c["cv2"].is_number()));
    assert_eq!(json(&["retries", "--json"])["upstream_calls"], 144);
    assert_eq!(
        json(&["retries", "--attempts", "2,2", "--json"])["upstream_calls"],
        4
    );
    let h = json(&["hedging", "--json"]);
    for s in h["strategies"].as_array().expect("strategies") {
        for key in ["p50", "p95", "p99", "extra_load"] {
            assert!(s[key].is_number(), "{key}");
        }
    }
    let c = json(&["cascade", "--escalate", "0.1", "--json"]);
    assert!((c["cv2"].as_f64().unwrap_or(0.0) - 1.0 / (1.0 + 10f64.ln()).powi(2)).abs() < 1e-12);
    assert!((c["mean_ratio"].as_f64().unwrap_or(0.0) - (1.0 + 10f64.ln())).abs() < 1e-12);
    let l = json(&["little", "--json"]);
    assert_eq!(l["l_max"], 39);
    assert!((l["lambda_max"].as_f64().unwrap_or(0.0) - 39.0 / 125.0).abs() < 1e-12);
    for (args, want) in [
        (
            &["knee", "--wait", "0"][..],
            "--wait must be a number between 0.1 and 50",
        ),
        (
            &["retries", "--attempts", "3,x"][..],
            "--attempts must be 1–8 comma-separated",
        ),
        (
            &["hedging", "--hedge-at", "100"][..],
            "--hedge-at must be a number between 50 and 99.9",
        ),
        (
            &["cascade", "--escalate", "2"][..],
            "--escalate must be a number between 0.0001 and 1",
        ),
        (
            &["little", "--prompt", "2.5"][..],
            "--prompt must be a whole number between 1 and 1000000",
        ),
        (
            &["knee", "--mean", "0"][..],
            "--mean must be a number between 0.01 and 1000",
        ),
        (
            &["hedging", "--ttft-share", "1"][..],
            "--ttft-share must be a number between 0.05 and 0.95",
        ),
        (
            &["retries", "--incident-failure", "-1"][..],
            "--incident-failure must be a number between 0 and 1",
        ),
    ] {
        let (code, _, err) = lblab(args);
        assert_ne!(code, 0);
        assert_eq!(err.lines().count(), 1);
        assert!(err.contains(want), "{err}");
    }
}
