//! Routers' own configurations in and out (article §14, `router-config`):
//! the article's four examples import to the settings the article
//! describes; every format survives import → export → import unchanged;
//! secrets never reach the settings or an export; malformed input gets a
//! clear error and never a panic, in bounded time.

use std::time::Instant;

use router_config::{export, import, ConfigError, FORMATS, MAX_BYTES};
use sim_core::labs::serve::{ConfigReport, Said};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/fixtures/router-config/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn value<'a>(r: &'a ConfigReport, key: &str) -> Option<&'a str> {
    r.pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn lines(r: &ConfigReport, said: Said) -> Vec<&str> {
    r.lines
        .iter()
        .filter(|(s, _)| *s == said)
        .map(|(_, l)| l.as_str())
        .collect()
}

/// Every setting of the report's lab as the lab reads it (defaults filled
/// in), the focus included: what two imports must agree on.
fn settings(r: &ConfigReport) -> Vec<(String, String)> {
    let entry = sim_core::labs::find(r.lab()).expect("lab");
    let pairs: Vec<(&str, &str)> = r
        .pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let mut all: Vec<(String, String)> = (entry.canonical)(&pairs)
        .expect("valid settings")
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let focus = entry.focus.expect("focus").key;
    all.push((focus.into(), value(r, focus).unwrap_or("").into()));
    all
}

#[test]
fn sglang_14_2_three_values_differ_from_the_launchers_defaults() {
    let r = import(&fixture("sglang-14-2.sh")).expect("imports");
    assert_eq!(r.lab(), "routing");
    assert!(r.format.contains("Python launcher"), "{}", r.format);
    let differs = lines(&r, Said::Differs);
    println!("§14.2 differs: {differs:#?}");
    assert_eq!(differs.len(), 3, "{differs:?}");
    for flag in [
        "--cache-threshold = 0.5 (default 0.3)",
        "--balance-abs-threshold = 32 (default 64)",
        "--eviction-interval-secs = 120 (default 60)",
    ] {
        assert!(
            differs.iter().any(|l| l.starts_with(flag)),
            "{flag} in {differs:?}"
        );
    }
    let restates = lines(&r, Said::Restates);
    assert!(
        restates
            .iter()
            .any(|l| l.starts_with("--balance-rel-threshold")),
        "{restates:?}"
    );
    assert!(
        restates.iter().any(|l| l.starts_with("--max-tree-size")),
        "{restates:?}"
    );
    for (k, v) in [
        ("rule", "sglang-cache-aware"),
        ("replicas", "2"),
        ("sglang-cache-threshold", "0.5"),
        ("sglang-abs-threshold", "32"),
        ("sglang-rel-threshold", "1.5"),
        ("sglang-eviction-interval", "1200"),
        ("sglang-max-tree", "67108864"),
    ] {
        assert_eq!(value(&r, k), Some(v), "{k}");
    }
}

#[test]
fn the_rust_binary_spells_the_eviction_flag_differently_and_defaults_to_120_s() {
    let r =
        import("sglang-router --worker-urls http://a:1 --eviction-interval 120").expect("imports");
    assert!(r.format.contains("Rust binary"));
    assert!(lines(&r, Said::Restates)
        .iter()
        .any(|l| l.starts_with("--eviction-interval = 120")));
    // The Python spelling given to the binary is named, never guessed at.
    let r = import("sglang-router --eviction-interval-secs 30").expect("imports");
    assert!(
        lines(&r, Said::NotModelled)
            .iter()
            .any(|l| l.contains("spells it --eviction-interval")),
        "{:?}",
        r.lines
    );
    assert_eq!(
        value(&r, "sglang-eviction-interval"),
        Some("1200"),
        "the binary's default stays"
    );
}

#[test]
fn inference_pool_14_1_runs_llm_ds_default_profile() {
    let r = import(&fixture("inference-pool-14-1.yaml")).expect("imports");
    assert_eq!(r.lab(), "routing");
    for (k, v) in [
        ("rule", "llm-d"),
        ("llmd-queue", "2"),
        ("llmd-kv", "2"),
        ("llmd-prefix", "3"),
        ("llmd-precise", "0"),
    ] {
        assert_eq!(value(&r, k), Some(v), "{k}");
    }
    assert!(lines(&r, Said::Differs).is_empty());
    assert!(lines(&r, Said::Note)
        .iter()
        .any(|l| l.contains("vllm-llama-pool")));
    assert!(
        !lines(&r, Said::NotModelled).is_empty(),
        "the route's plumbing is named"
    );
}

#[test]
fn an_endpoint_picker_config_sets_the_weights_and_names_what_the_lab_lacks() {
    let text = "apiVersion: llm-d.ai/v1alpha1\nkind: EndpointPickerConfig\nplugins:\n- type: queue-scorer\n- name: pfx\n  type: prefix-cache-scorer\n  parameters:\n    hashBlockSize: 64\n- type: session-affinity-scorer\n- type: max-score-picker\nschedulingProfiles:\n- name: default\n  plugins:\n  - pluginRef: queue-scorer\n  - pluginRef: pfx\n    weight: 5\n  - pluginRef: session-affinity-scorer\n    weight: 1\n  - pluginRef: max-score-picker\n";
    let r = import(text).expect("imports");
    for (k, v) in [
        ("llmd-queue", "1"),
        ("llmd-kv", "0"),
        ("llmd-prefix", "5"),
        ("llmd-precise", "0"),
    ] {
        assert_eq!(value(&r, k), Some(v), "{k}");
    }
    let named = lines(&r, Said::NotModelled).join("\n");
    assert!(named.contains("session-affinity-scorer"), "{named}");
    assert!(named.contains("hashBlockSize"), "{named}");
}

#[test]
fn litellm_14_3_two_regions_by_shuffle_with_pinning_one_click_away() {
    let text = fixture("litellm-14-3.yaml");
    let r = import(&text).expect("imports");
    assert_eq!(r.lab(), "providers");
    for (k, v) in [
        ("reserved", "0"),
        ("metered", "2"),
        ("regions", "2"),
        ("strategy", "shuffle"),
        ("retries", "2"),
    ] {
        assert_eq!(value(&r, k), Some(v), "{k}");
    }
    assert_eq!(
        lines(&r, Said::Secret).len(),
        2,
        "both api_key values named"
    );
    assert!(r
        .pairs
        .iter()
        .all(|(_, v)| !v.contains("environ") && !v.contains("AZURE")));
    assert_eq!(
        r.fixes,
        vec![(
            "Pin each conversation to one deployment (session affinity)".to_string(),
            vec![("strategy".to_string(), "sticky".to_string())]
        )]
    );
    let out = export("providers", &r.pairs, "litellm", "").expect("exports");
    assert!(
        !out.contains("AZURE_EASTUS2_KEY") && !out.contains("AZURE_SWEDEN_KEY"),
        "{out}"
    );
}

#[test]
fn apim_14_4_priority_pool_whose_failover_needs_a_breaker_that_counts_429() {
    let r = import(&fixture("apim-14-4.bicep")).expect("imports");
    assert_eq!(r.lab(), "providers");
    for (k, v) in [
        ("reserved", "1"),
        ("metered", "1"),
        ("strategy", "priority-pool"),
        ("breaker-429", "0"),
    ] {
        assert_eq!(value(&r, k), Some(v), "{k}");
    }
    assert!(
        r.fixes
            .iter()
            .any(|(_, p)| p.contains(&("breaker-429".into(), "1".into()))),
        "{:?}",
        r.fixes
    );
}

/// A spread of settings in each format's lab: what the exports start from.
fn starts(format: &str) -> Vec<Vec<(String, String)>> {
    let own = |v: &[(&str, &str)]| {
        v.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    match format {
        "sglang" | "sglang-gateway" => {
            for rule in [
                "sglang-cache-aware",
                "round-robin",
                "random",
                "power-of-two",
                "sglang-prefix-hash",
            ] {
                for (n, t, ev) in [("2", "0.5", "1200"), ("16", "0.05", "0"), ("1", "1", "37")] {
                    out.push(own(&[
                        ("rule", rule),
                        ("replicas", n),
                        ("sglang-cache-threshold", t),
                        ("sglang-eviction-interval", ev),
                        ("sglang-abs-threshold", "7"),
                    ]));
                }
            }
        }
        "llmd" => {
            for w in [
                ["2", "2", "3", "0"],
                ["1", "0", "0", "2.5"],
                ["0", "0", "10", "0"],
            ] {
                out.push(own(&[
                    ("rule", "llm-d"),
                    ("llmd-queue", w[0]),
                    ("llmd-kv", w[1]),
                    ("llmd-prefix", w[2]),
                    ("llmd-precise", w[3]),
                ]));
            }
        }
        "litellm" => {
            for s in ["shuffle", "usage", "latency", "least-busy", "cost"] {
                for (m, g, q) in [("1", "1", "1000"), ("2", "2", "6000"), ("4", "2", "17")] {
                    out.push(own(&[
                        ("strategy", s),
                        ("reserved", "0"),
                        ("metered", m),
                        ("regions", g),
                        ("quota-rpm", q),
                        ("retries", "3"),
                    ]));
                }
            }
        }
        _ => {
            for s in ["priority-pool", "round-robin", "sticky"] {
                for (res, m, b, ra) in [
                    ("1", "1", "0", "1"),
                    ("2", "3", "1", "0"),
                    ("0", "2", "1", "1"),
                ] {
                    out.push(own(&[
                        ("strategy", s),
                        ("reserved", res),
                        ("metered", m),
                        ("breaker-429", b),
                        ("retry-after", ra),
                        ("breaker-count", "3"),
                        ("trip-s", "90"),
                    ]));
                }
            }
        }
    }
    out
}

#[test]
fn every_format_round_trips_import_export_import() {
    for f in FORMATS {
        let mut trips = 0;
        for pairs in starts(f.id) {
            let text = export(f.lab, &pairs, f.id, "https://lab.example/")
                .unwrap_or_else(|e| panic!("{}: {e}", f.id));
            assert!(
                text.contains("LLM Load-Balancing Lab")
                    && text.contains("https://lab.example/?lab="),
                "{}: the head names the lab and the link",
                f.id
            );
            let first = import(&text)
                .unwrap_or_else(|e| panic!("{} reads its own export: {e}\n{text}", f.id));
            assert_eq!(first.lab(), f.lab);
            let again = export(f.lab, &first.pairs, f.id, "").expect("exports again");
            let second = import(&again).expect("imports again");
            assert_eq!(
                settings(&first),
                settings(&second),
                "{}: import → export → import\n{text}",
                f.id
            );
            trips += 1;
        }
        println!("{}: {trips} round trips", f.id);
        assert!(trips >= 3);
    }
}

#[test]
fn the_article_examples_round_trip_through_their_formats() {
    for (file, formats) in [
        ("sglang-14-2.sh", &["sglang", "sglang-gateway"][..]),
        ("inference-pool-14-1.yaml", &["llmd"]),
        ("litellm-14-3.yaml", &["litellm"]),
        ("apim-14-4.bicep", &["apim-bicep", "apim-arm"]),
    ] {
        let first = import(&fixture(file)).expect("imports");
        for f in formats {
            let text = export(first.lab(), &first.pairs, f, "")
                .unwrap_or_else(|e| panic!("{file} as {f}: {e}"));
            let second = import(&text).unwrap_or_else(|e| panic!("{file} as {f}: {e}\n{text}"));
            assert_eq!(settings(&first), settings(&second), "{file} as {f}\n{text}");
            // The export's link opens the lab on the same settings.
            let link = text
                .lines()
                .find_map(|l| l.split_once("Reproduce this run: "))
                .map(|(_, l)| l.trim_end_matches(['"', ',']))
                .expect("a link");
            let query = link.split_once('?').expect("a query").1;
            let pairs: Vec<(String, String)> = query
                .split('&')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert!(
                pairs.contains(&("lab".to_string(), first.lab().to_string())),
                "{link}"
            );
            let linked = ConfigReport {
                pairs: pairs.into_iter().filter(|(k, _)| k != "lab").collect(),
                ..second.clone()
            };
            assert_eq!(
                settings(&linked),
                settings(&first),
                "{file} as {f}: the link {link}"
            );
        }
    }
}

#[test]
fn exports_refuse_rules_a_format_cannot_say() {
    let e = export(
        "routing",
        &[("rule".into(), "dynamo-kv".into())],
        "sglang",
        "",
    )
    .unwrap_err();
    assert!(e.why.contains("no SGLang router policy"), "{e}");
    let e = export(
        "providers",
        &[("strategy".into(), "spillover".into())],
        "litellm",
        "",
    )
    .unwrap_err();
    assert!(e.why.contains("LiteLLM has no"), "{e}");
    let e = export("routing", &[], "litellm", "").unwrap_err();
    assert!(e.why.contains("providers lab"), "{e}");
}

/// A tiny deterministic generator for the mutations (xorshift).
struct Mix(u64);
impl Mix {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `text` with one random edit: a cut, a stray character, a line doubled or
/// dropped, an indent changed.
fn mutate(text: &str, mix: &mut Mix) -> String {
    const STRAY: &[&str] = &[
        "{", "}", "[", "]", ":", "'", "\"", "\\", "\n", " ", "#", ",", "=", "-", "&a", "*a", "!!",
        "\t", "--", "é", "9e999", "-1",
    ];
    let mut t = text.to_string();
    for _ in 0..1 + mix.below(3) {
        let mut at = mix.below(t.len() + 1);
        while !t.is_char_boundary(at) {
            at -= 1;
        }
        match mix.below(5) {
            0 => t.truncate(at),
            1 => t.insert_str(at, STRAY[mix.below(STRAY.len())]),
            2 => {
                let lines: Vec<&str> = t.lines().collect();
                let i = mix.below(lines.len());
                let mut v = lines.clone();
                if mix.below(2) == 0 {
                    v.insert(i, lines.get(i).copied().unwrap_or(""));
                } else if !v.is_empty() {
                    v.remove(i.min(v.len() - 1));
                }
                t = v.join("\n");
            }
            3 => t.insert_str(at, "  "),
            _ => {
                let end = (at + 1 + mix.below(8)).min(t.len());
                let mut end = end;
                while !t.is_char_boundary(end) {
                    end += 1;
                }
                t.replace_range(at..end, "");
            }
        }
    }
    t
}

/// Errors are one clear line, and those of a parse carry their line.
fn clear(e: &ConfigError) {
    let s = e.to_string();
    assert!(
        !s.trim().is_empty() && s.len() < 400 && !s.contains('\n'),
        "unclear error: {s:?}"
    );
    if let Some(l) = e.line {
        assert!(l >= 1);
    }
}

#[test]
fn malformed_input_gets_a_clear_error_never_a_panic() {
    let mut seeds: Vec<String> = [
        "sglang-14-2.sh",
        "inference-pool-14-1.yaml",
        "litellm-14-3.yaml",
        "apim-14-4.bicep",
    ]
    .iter()
    .map(|f| fixture(f))
    .collect();
    for f in FORMATS {
        for pairs in starts(f.id).into_iter().take(2) {
            seeds.push(export(f.lab, &pairs, f.id, "").expect("exports"));
        }
    }
    let mut mix = Mix(0x9e37_79b9_7f4a_7c15);
    let (mut read, mut refused, mut lined, mut slowest) = (0, 0, 0, 0.0f64);
    for round in 0..3000 {
        let seed = &seeds[round % seeds.len()];
        let text = mutate(seed, &mut mix);
        let start = Instant::now();
        match import(&text) {
            Ok(r) => {
                read += 1;
                assert!(!r.pairs.is_empty());
            }
            Err(e) => {
                clear(&e);
                refused += 1;
                lined += usize::from(e.line.is_some());
            }
        }
        slowest = slowest.max(start.elapsed().as_secs_f64());
    }
    println!(
        "mutated inputs: {read} read, {refused} refused ({lined} with a line); slowest {:.1} ms",
        slowest * 1e3
    );
    assert!(
        refused > 100 && read > 100,
        "the mutations reach both outcomes"
    );
    assert!(lined > 50, "parse errors name their line");
}

#[test]
fn hostile_sizes_and_nesting_are_refused_quickly() {
    let huge = "a: 1\n".repeat(MAX_BYTES / 4);
    let deep_yaml = format!("model_list: {}1{}", "[".repeat(5000), "]".repeat(5000));
    let deep_json = format!("{}1{}", "[".repeat(30_000), "]".repeat(30_000));
    let deep_bicep = format!("resource p 'x' = {}\n", "{ a: ".repeat(10_000));
    let aliases = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\nkind: X\n";
    let many_words = format!(
        "python -m sglang_router.launch_router --worker-urls {}",
        "http://w:1 ".repeat(3000)
    );
    for (what, text) in [
        ("huge", huge),
        ("deep YAML", deep_yaml),
        ("deep JSON", deep_json),
        ("deep Bicep", deep_bicep),
        ("YAML aliases", aliases.to_string()),
        ("many words", many_words),
        ("binary", "\u{0}\u{1}\u{7f}".repeat(100)),
    ] {
        let start = Instant::now();
        let got = import(&text);
        println!(
            "{what}: {:?} in {:.1} ms",
            got.as_ref().map(|_| "read").map_err(|e| e.to_string()),
            start.elapsed().as_secs_f64() * 1e3
        );
        let e = got.expect_err(what);
        clear(&e);
    }
}

#[test]
fn a_configuration_for_another_lab_says_which() {
    let r = import(&fixture("litellm-14-3.yaml")).expect("imports");
    assert_eq!(r.lab(), "providers");
    let r = import(&fixture("sglang-14-2.sh")).expect("imports");
    assert_eq!(r.lab(), "routing");
    let e = import("just some words").unwrap_err();
    assert!(e.why.contains("not a configuration the lab reads"), "{e}");
}
