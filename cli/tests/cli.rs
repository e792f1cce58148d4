//! The `lblab` binary as a user meets it: every registered lab as a
//! subcommand, its golden output, JSON shape, parameter round trips, errors.

use std::path::Path;
use std::process::Command;

use sim_core::labs::LABS;
use sim_core::routing::RuleKind;

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
/// beside it for review and return its path.
fn golden(name: &str, actual: &str) -> Option<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden");
    let path = dir.join(format!("{name}.txt"));
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    let changed = dir.join(format!("{name}-changed.txt"));
    std::fs::write(&changed, actual).expect("write -changed file");
    Some(changed.display().to_string())
}

#[test]
fn routing_json_has_the_documented_keys() {
    let (code, out, err) = lblab(&["routing", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let rules = v["rules"].as_array().expect("rules array");
    assert_eq!(rules.len(), RuleKind::ALL.len());
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
            "tpot_mean",
            "tpot_p95",
            "itl_mean",
            "tokens_per_chunk",
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

/// Every registered lab is a subcommand, and its default report with detail is
/// a checked-in golden file named after the lab (`tests/golden/<id>.txt`).
#[test]
fn every_lab_has_a_golden_report() {
    assert!(!LABS.is_empty());
    let mut changed = Vec::new();
    for lab in LABS {
        let (code, out, err) = lblab(&[lab.info.id, "--detail"]);
        assert_eq!(code, 0, "{}: {err}", lab.info.id);
        assert!(!out.trim().is_empty(), "{}", lab.info.id);
        changed.extend(golden(lab.info.id, &out));
    }
    // Milliseconds mode has goldens of its own (`<id>-ms.txt`).
    for id in ["routing", "goodput"] {
        let (code, out, err) = lblab(&[id, "--gpu", "h100", "--model", "llama-3.1-8b", "--detail"]);
        assert_eq!(code, 0, "{id}: {err}");
        changed.extend(golden(&format!("{id}-ms"), &out));
    }
    assert!(
        changed.is_empty(),
        "outputs differ from their goldens; review these and copy each over its golden if intended:\n{}",
        changed.join("\n")
    );
}

/// Each parameter of every lab, at every sample value (range ends, a middle
/// value, each option, text examples), goes through the CLI parser and comes
/// back as exactly the configuration the parameter table builds.
#[test]
fn every_parameter_round_trips_through_the_cli() {
    let mut checked = 0;
    for lab in LABS {
        for spec in (lab.params)() {
            for value in spec.samples() {
                let flag = format!("--{}={value}", spec.key);
                let (code, out, err) = lblab(&[lab.info.id, &flag, "--config"]);
                let pairs = [(spec.key, value.as_str())];
                if let Err(e) = (lab.canonical)(&pairs) {
                    // In range but against another parameter's default (the
                    // longest prompt below the shortest): both reject it alike.
                    assert_ne!(code, 0, "{} {flag}", lab.info.id);
                    assert_eq!(err.trim_end(), format!("error: --{e}"));
                    continue;
                }
                assert_eq!(code, 0, "{} {flag}: {err}", lab.info.id);
                let text = sim_core::labs::text(lab.info.id).expect("every lab has a text side");
                let want = (text.config_json)(&pairs).expect("a sample is valid");
                assert_eq!(out.trim_end(), want, "{} {flag}", lab.info.id);
                // And the value reads back unchanged through the table.
                let back = (lab.canonical)(&pairs).expect("valid");
                let got = back.iter().find(|(k, _)| *k == spec.key).map(|(_, v)| v);
                assert_eq!(got, Some(&value), "{} {}", lab.info.id, spec.key);
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} values checked");
}

/// `--help` lists every parameter of every lab with its default and range.
#[test]
fn help_lists_every_parameter_with_default_and_range() {
    for lab in LABS {
        let (code, out, _) = lblab(&[lab.info.id, "--help"]);
        assert_eq!(code, 0);
        for spec in (lab.params)() {
            let flag = format!("--{}", spec.key);
            let line = out
                .lines()
                .find(|l| {
                    l.trim_start().starts_with(&format!("{flag} "))
                        || l.trim_start().starts_with(&format!("{flag}["))
                })
                .unwrap_or_else(|| panic!("{}: {flag} missing", lab.info.id));
            assert!(
                line.contains(&format!("default {}", spec.default)),
                "{line}"
            );
        }
        if let Some(focus) = lab.focus {
            assert!(out.contains(&format!("--{}", focus.key)));
        }
        for flag in ["--json", "--detail", "--csv", "--config"] {
            assert!(out.contains(flag), "{}: {flag}", lab.info.id);
        }
    }
}

/// `lblab help` and `lblab labs` list exactly the registry.
#[test]
fn the_command_list_is_the_registry() {
    let (code, out, _) = lblab(&["help"]);
    assert_eq!(code, 0);
    let (_, list, _) = lblab(&["labs", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&list).expect("valid JSON");
    let ids: Vec<&str> = v
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|l| l["id"].as_str())
        .collect();
    let registry: Vec<&str> = LABS.iter().map(|l| l.info.id).collect();
    assert_eq!(ids, registry);
    for id in registry {
        assert!(out.contains(&format!("  {id} ")), "{id} missing from help");
    }
}

#[test]
fn csv_has_a_header_and_one_row_per_item() {
    let (code, out, _) = lblab(&["routing", "--csv"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("rule,ttft_p50,ttft_p95"));
    assert_eq!(lines.len(), 1 + RuleKind::ALL.len());
    // Fields outside quotes, as RFC 4180 counts them.
    let fields = |line: &str| {
        let mut quoted = false;
        1 + line
            .chars()
            .filter(|&c| {
                if c == '"' {
                    quoted = !quoted;
                }
                c == ',' && !quoted
            })
            .count()
    };
    for lab in LABS {
        let (code, out, err) = lblab(&[lab.info.id, "--csv"]);
        assert_eq!(code, 0, "{err}");
        let mut lines = out.lines();
        let cols = fields(lines.next().expect("header"));
        assert!(lines.all(|l| fields(l) == cols), "{}: {out}", lab.info.id);
    }
}

#[test]
fn a_replayed_trace_prints_its_own_summary() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets/traces/mooncake_conversation_first2000.jsonl");
    let trace = trace.to_string_lossy();
    let (code, out, err) = lblab(&[
        "routing",
        "--trace",
        &trace,
        "--trace-limit",
        "500",
        "--replicas",
        "8",
        "--slots",
        "16",
        "--prefill-budget",
        "8192",
        "--kv-blocks",
        "40000",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Routing Lab replaying a trace on 8 replicas"),
        "{out}"
    );
    assert!(out.contains("Trace: 500 requests"), "{out}");
    assert!(
        out.contains("Prompts: mean") && out.contains("Outputs: mean"),
        "{out}"
    );
    assert!(out.contains("reuse bound, 512-token blocks"), "{out}");
    // Nothing of the generator's defaults.
    assert!(
        !out.contains("λ = 0.2") && !out.contains("Generated prompts"),
        "{out}"
    );
    let (code, _, err) = lblab(&["herding", "--trace", &trace]);
    assert_ne!(code, 0);
    assert!(err.contains("unknown flag '--trace'"), "{err}");
}

/// The evaluate lab on a bundled trace: its conversations are recovered
/// from the prefix chains, the report leads with the trace's own figures,
/// and the whole report is a golden (`tests/golden/evaluate-trace.txt`).
#[test]
fn evaluate_replays_a_trace_with_its_statistics() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets/traces/mooncake_conversation_first2000.jsonl");
    let trace = trace.to_string_lossy();
    // The settings the page applies when a trace is loaded.
    let mut args = vec!["evaluate", "--trace", &trace];
    let flags: Vec<String> = sim_core::labs::evaluate::TRACE_SETTINGS
        .iter()
        .map(|(k, _)| format!("--{k}"))
        .collect();
    for ((_, v), flag) in sim_core::labs::evaluate::TRACE_SETTINGS.iter().zip(&flags) {
        args.extend([flag.as_str(), v]);
    }
    let (code, out, err) = lblab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("a replayed trace"), "{out}");
    assert!(out.contains("trace: 2,000 requests"), "{out}");
    assert!(
        out.contains("reuse bound 28.9% of prompt blocks (512-token blocks)"),
        "{out}"
    );
    assert!(
        out.contains("conversations recovered from its prefix chains"),
        "{out}"
    );
    assert!(!out.contains("note: the trace's last request"), "{out}");
    if let Some(changed) = golden("evaluate-trace", &out) {
        panic!("output differs from its golden; review {changed}");
    }
    // A trace too short for the window says so.
    let (code, out, err) = lblab(&[&args[..3], &["--warm", "7000", "--outage-at", "0"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: the trace's last request arrives at tick"),
        "{out}"
    );
}

#[test]
fn bad_input_is_one_line_naming_the_flag_and_range() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["routing", "--replicas", "0"],
            "--replicas must be a whole number between 1 and 16",
        ),
        (
            &["routing", "--rate", "-1"],
            "--rate must be a number between 0.01 and 2",
        ),
        (
            &["routing", "--rate", "abc"],
            "--rate must be a number between 0.01 and 2 (got 'abc')",
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
            "--mean-prompt must be a whole number between 64 and 8192",
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
        (
            &["routing", "--prompt-min", "900", "--prompt-max", "800"],
            "--prompt-max must be at least prompt-min (got '800')",
        ),
        (&["routing", "--json", "--json=1"], "--json takes no value"),
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
fn herding_bad_input_is_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["herding", "--routers", "0"],
            "--routers must be a whole number between 1 and 16",
        ),
        (
            &["herding", "--scrape-interval", "abc"],
            "--scrape-interval must be a whole number between 1 and 50",
        ),
        (
            &["herding", "--arrival-rate", "-2"],
            "--arrival-rate must be a number between 0.1 and 10",
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
            "--threshold must be a whole number between 0 and 10, or inf",
        ),
        (
            &["prefix", "--replicas", "9"],
            "--replicas must be a whole number between 2 and 6",
        ),
        (
            &["prefix", "--slots", "x"],
            "--slots must be a whole number between 1 and 4",
        ),
        (
            &["prefix", "--trace", "1,9"],
            "--trace must be default, random, or 1–40 prefix ids from 1 to 6 separated by commas (got '1,9')",
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
    let (code, _, err) = lblab(&["batching", "--mode", "turbo"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--mode must be one of static, continuous, chunked, all"),
        "{err}"
    );
    let (code, _, err) = lblab(&["batching", "--slots", "0"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--slots must be a whole number between 1 and 8"),
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
            "--wait must be a number between 0.5 and 20",
        ),
        (
            &["retries", "--attempts", "3,x"][..],
            "--attempts must be 1–8 comma-separated whole numbers between 1 and 10",
        ),
        (
            &["hedging", "--hedge-at", "100"][..],
            "--hedge-at must be a number between 50 and 99.9",
        ),
        (
            &["cascade", "--escalate", "2"][..],
            "--escalate must be a number between 0.01 and 1",
        ),
        (
            &["little", "--prompt", "2.5"][..],
            "--prompt must be a whole number between 100 and 64000",
        ),
        (
            &["knee", "--mean", "0"][..],
            "--mean must be a number between 0.1 and 30",
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

#[test]
fn bench_check_fails_when_a_target_is_missed() {
    // With targets shrunk a millionfold every median misses: status 1.
    let (code, out, err) = lblab(&["bench", "--quick", "--check", "--scale", "0.000001"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("MISSED") && err.contains("target(s) missed"),
        "{out}{err}"
    );
    assert!(
        out.starts_with("build: "),
        "the profile is printed first: {out}"
    );
    let (code, _, err) = lblab(&["bench", "--scale", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--scale must be a positive number"), "{err}");
}

/// EMBEDDING.md documents every lab's URL keys: each parameter and focus key of
/// the registry appears in that lab's row of the control-keys table.
#[test]
fn the_embedding_guide_lists_every_url_key() {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../EMBEDDING.md"))
            .expect("EMBEDDING.md");
    for lab in LABS {
        let row = guide
            .lines()
            .find(|l| l.starts_with(&format!("| `{}` |", lab.info.id)))
            .unwrap_or_else(|| panic!("no row for {}", lab.info.id));
        let mut keys: Vec<&str> = (lab.params)().iter().map(|p| p.key).collect();
        keys.extend(lab.focus.map(|f| f.key));
        for key in keys {
            assert!(
                row.contains(&format!("`{key}`")),
                "{}: `{key}` missing from EMBEDDING.md",
                lab.info.id
            );
        }
    }
}

/// One scheduler alone records its timeline, so `--detail` lists its key
/// moments: strict priority's preemption is in the golden file.
#[test]
fn fairness_one_scheduler_lists_its_key_moments() {
    let (code, out, err) = lblab(&["fairness", "--scheduler=priority", "--detail"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("chat preempted a long prompts sequence"),
        "{out}"
    );
    if let Some(changed) = golden("fairness-priority", &out) {
        panic!("output differs from its golden; review {changed}");
    }
    let (code, out, _) = lblab(&["fairness", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let runs = v["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 5);
    assert!(runs.iter().all(|r| r["timeline"].is_null()));
    assert_eq!(runs[4]["tenants"].as_array().map(Vec::len), Some(4));
}

/// `lblab validate`: each scenario's link and command, a row per published
/// figure with a verdict, and one line for a bad flag.
#[test]
fn validate_prints_links_rows_and_verdicts() {
    let (code, out, _) = lblab(&["validate", "--links"]);
    assert_eq!(code, 0);
    let ids = [
        "[llm-d]",
        "[llm-d-pipeline]",
        "[smg]",
        "[smg-tiers]",
        "[kubeai]",
    ];
    for id in ids {
        assert!(out.contains(id), "{id} listed: {out}");
    }
    assert_eq!(out.matches("?lab=routing&gpu=").count(), ids.len(), "{out}");
    assert_eq!(
        out.matches("lblab routing --gpu=").count(),
        ids.len(),
        "{out}"
    );

    let (code, out, _) = lblab(&["validate", "--scenario=kubeai", "--seeds=2"]);
    assert_eq!(code, 0);
    // Three policies, a throughput and a TTFT row each, then four judged lines.
    assert_eq!(out.matches(" · req/s ").count(), 3, "{out}");
    assert_eq!(out.matches(" · TTFT mean ").count(), 3, "{out}");
    assert_eq!(
        out.lines()
            .filter(|l| l.ends_with("holds") || l.ends_with("FAILS"))
            .count(),
        4,
        "{out}"
    );
    assert!(out.contains("modelling gaps:"));

    for bad in [["validate", "--scenario=nope"], ["validate", "--seeds=0"]] {
        let (code, _, err) = lblab(&bad);
        assert_eq!(code, 2, "{bad:?}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
