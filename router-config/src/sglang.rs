//! An SGLang router launch command, in and out (article §5.5 and §14.2).
//!
//! Two entry points spell two flags differently and disagree on one
//! default: the Python launcher (`python -m sglang_router.launch_router`,
//! `router_args.py`) takes `--eviction-interval-secs` and evicts every
//! 60 s by default; the Rust gateway binary (`main.rs`) takes
//! `--eviction-interval` and evicts every 120 s. Both default to a cache
//! threshold of 0.3, an absolute imbalance of 64, a relative one of 1.5 and
//! a tree of 2²⁶ = 67,108,864 per worker (article §5.5). The launcher also
//! accepts each flag with a `--router-` prefix, the spelling
//! `sglang.launch_server` passes through.
//!
//! Lab units: the lab's rule counts the eviction interval in ticks of
//! 100 ms (the trace replays' tick), so 60 s is 600 ticks.

use sim_core::labs::routing::Config;
use sim_core::labs::serve::{ConfigReport, Said};

use crate::report::Report;
use crate::{ConfigError, MAX_ITEMS};

/// Ticks of the lab's SGLang rule in one second of the router's.
const TICKS_PER_S: u64 = 10;

/// The router's policies the lab has a rule for: (policy, the lab's rule).
const POLICIES: &[(&str, &str)] = &[
    ("cache_aware", "sglang-cache-aware"),
    ("round_robin", "round-robin"),
    ("random", "random"),
    ("power_of_two", "power-of-two"),
    ("prefix_hash", "sglang-prefix-hash"),
];

/// A flag the lab reads: its Python spelling, its Rust one, the lab's key,
/// the Python launcher's default, the Rust binary's, and what raising it does.
struct Flag {
    python: &'static str,
    rust: &'static str,
    key: &'static str,
    py_default: &'static str,
    rs_default: &'static str,
    raise: &'static str,
    lower: &'static str,
}

const FLAGS: &[Flag] = &[
    Flag {
        python: "cache-threshold",
        rust: "cache-threshold",
        key: "sglang-cache-threshold",
        py_default: "0.3",
        rs_default: "0.3",
        raise: "affinity is more conservative: the tree's match must cover more of the prompt before the router follows it.",
        lower: "the router follows weaker matches of the tree.",
    },
    Flag {
        python: "balance-abs-threshold",
        rust: "balance-abs-threshold",
        key: "sglang-abs-threshold",
        py_default: "64",
        rs_default: "64",
        raise: "a larger load gap is tolerated before the router gives up affinity for the least loaded worker.",
        lower: "the router switches to load balancing sooner, at a smaller gap in outstanding requests.",
    },
    Flag {
        python: "balance-rel-threshold",
        rust: "balance-rel-threshold",
        key: "sglang-rel-threshold",
        py_default: "1.5",
        rs_default: "1.5",
        raise: "the busiest worker must be further ahead of the idlest before load balancing takes over.",
        lower: "load balancing takes over at a smaller ratio between the busiest and the idlest worker.",
    },
    Flag {
        python: "eviction-interval-secs",
        rust: "eviction-interval",
        key: "sglang-eviction-interval",
        py_default: "60",
        rs_default: "120",
        raise: "the router's tree is trimmed less often, so it remembers prefixes the engines may have evicted for longer.",
        lower: "the router's tree is trimmed more often, forgetting old prefixes sooner.",
    },
    Flag {
        python: "max-tree-size",
        rust: "max-tree-size",
        key: "sglang-max-tree",
        py_default: "67108864",
        rs_default: "67108864",
        raise: "each worker keeps more of the tree after an eviction.",
        lower: "each worker keeps less of the tree after an eviction, so matches are forgotten sooner.",
    },
];

/// Whether `code` (a configuration's first line of code) starts a launch command.
pub fn is_launch(code: &str) -> bool {
    let first = code.split_whitespace().next().unwrap_or("");
    first.starts_with("python")
        || first.contains("sglang")
        || first.contains("sgl-model-gateway")
        || first.starts_with("--")
        || code.contains("launch_router")
}

/// The command's words: comment lines dropped, line continuations joined,
/// then split as a POSIX shell would.
fn words(text: &str) -> Result<Vec<String>, ConfigError> {
    let joined: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| l.trim_end().trim_end_matches('\\'))
        .collect::<Vec<_>>()
        .join(" ");
    let words = shlex::split(&joined)
        .ok_or_else(|| ConfigError::new("a quote is not closed in the launch command"))?;
    if words.len() > 4 * MAX_ITEMS {
        return Err(ConfigError::new(format!(
            "the command has {} words; the lab reads at most {}",
            words.len(),
            4 * MAX_ITEMS
        )));
    }
    Ok(words)
}

/// One flag and the values after it (`--a=b` gives one value).
type Given = (String, Vec<String>);

/// The words before the first flag (the program) and each flag with its values.
fn flags(words: &[String]) -> Result<(Vec<String>, Vec<Given>), ConfigError> {
    let mut program = Vec::new();
    let mut given: Vec<Given> = Vec::new();
    for w in words {
        if let Some(flag) = w.strip_prefix("--") {
            let (name, value) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            given.push((name.to_string(), value.into_iter().collect()));
        } else if let Some(last) = given.last_mut() {
            last.1.push(w.clone());
        } else if w != "-m" {
            program.push(w.clone());
        }
    }
    Ok((program, given))
}

/// Read a launch command into the routing lab's settings.
pub fn import(text: &str) -> Result<ConfigReport, ConfigError> {
    let (program, given) = flags(&words(text)?)?;
    let joined = program.join(" ");
    let python = joined.contains("python") || joined.contains("launch_router");
    let rust = !python && !program.is_empty();
    let mut r = if rust {
        Report::new(
            "sglang-gateway",
            "SGLang gateway launch command (Rust binary)",
        )
    } else {
        Report::new("sglang", "SGLang router launch command (Python launcher)")
    };
    if program.is_empty() {
        r.say(Said::Note, "No program named before the flags: read as the Python launcher's, whose defaults differ from the Rust binary's only in the eviction interval (60 s against 120 s).");
    }
    // Every value the router would run with, its defaults first.
    r.set("rule", "sglang-cache-aware");
    for f in FLAGS {
        set_flag(&mut r, f, if rust { f.rs_default } else { f.py_default })?;
    }
    for (name, values) in &given {
        read_flag(&mut r, name, values, rust)?;
    }
    Ok(r.done())
}

/// Set the lab's key of flag `f` from the router's value `v`.
fn set_flag(r: &mut Report, f: &Flag, v: &str) -> Result<(), ConfigError> {
    let bad = || ConfigError::new(format!("--{} {v}: not a number", f.python));
    if f.key == "sglang-eviction-interval" {
        let secs: f64 = v.parse().map_err(|_| bad())?;
        if !(0.0..=100_000.0).contains(&secs) {
            return Err(ConfigError::new(format!(
                "--{} {v}: between 0 and 100000 seconds, please",
                f.python
            )));
        }
        r.set(f.key, (secs * TICKS_PER_S as f64).round() as u64);
    } else {
        v.parse::<f64>().map_err(|_| bad())?;
        r.set(f.key, v);
    }
    Ok(())
}

/// Read one flag of the command.
fn read_flag(r: &mut Report, name: &str, values: &[String], rust: bool) -> Result<(), ConfigError> {
    let bare = name
        .strip_prefix("router-")
        .filter(|_| !rust)
        .unwrap_or(name);
    let one = || -> Result<&str, ConfigError> {
        match values {
            [v] => Ok(v.as_str()),
            _ => Err(ConfigError::new(format!(
                "--{name} takes one value, got {}",
                values.len()
            ))),
        }
    };
    if bare == "worker-urls" {
        let n = values.len();
        if n == 0 {
            return Err(ConfigError::new("--worker-urls names no worker"));
        }
        r.set("replicas", n.min(16));
        let more = if n > 16 {
            " (the lab runs at most 16; the rest are left out)"
        } else {
            ""
        };
        r.say(
            Said::Note,
            format!(
                "--worker-urls: {n} workers, run as {} identical engines{more}.",
                n.min(16)
            ),
        );
        return Ok(());
    }
    if bare == "policy" {
        let p = one()?;
        match POLICIES.iter().find(|(policy, _)| *policy == p) {
            Some((_, rule)) => {
                r.set("rule", rule);
                r.stated(
                    "--policy",
                    p,
                    "cache_aware",
                    &format!("the lab runs its {rule} rule."),
                );
            }
            None => r.not_modelled(
                &format!("--policy {p}"),
                "the lab has no rule for it and runs SGLang cache-aware instead",
            ),
        }
        return Ok(());
    }
    let spelled = |f: &&Flag| {
        if rust {
            f.rust == bare
        } else {
            f.python == bare
        }
    };
    if let Some(f) = FLAGS.iter().find(spelled) {
        let v = one()?;
        set_flag(r, f, v)?;
        let default = if rust { f.rs_default } else { f.py_default };
        let (x, d) = (
            v.parse::<f64>().unwrap_or(0.0),
            default.parse::<f64>().unwrap_or(0.0),
        );
        r.stated(
            &format!("--{name}"),
            v,
            default,
            if x > d { f.raise } else { f.lower },
        );
        return Ok(());
    }
    // The other entry point's spelling is named, not guessed at.
    if let Some(f) = FLAGS.iter().find(|f| if rust { f.python == bare } else { f.rust == bare } && f.python != f.rust) {
        let (this, other) = if rust { ("Rust binary", f.rust) } else { ("Python launcher", f.python) };
        r.not_modelled(&format!("--{name}"), &format!("the {this} spells it --{other}; read as written, the router would refuse it"));
        return Ok(());
    }
    let shown = match values {
        [] => format!("--{name}"),
        _ => format!("--{name} {}", values.join(" ")),
    };
    r.not_modelled(&shown, "the lab's engines and network stand in for it");
    Ok(())
}

/// The routing lab's rule and SGLang settings as a launch command.
pub fn export(pairs: &[(&str, &str)], head: &str, rust: bool) -> Result<String, ConfigError> {
    let (config, rule): (Config, _) = crate::lab_settings("routing", pairs)?;
    let Some((policy, _)) = POLICIES.iter().find(|(_, r)| *r == rule) else {
        return Err(ConfigError::new(format!(
            "the rule '{}' has no SGLang router policy; pick SGLang cache-aware, SGLang prefix hash, round robin, random or power of two",
            sim_core::params::shown(rule)
        )));
    };
    let mut out = crate::commented(head, "#");
    out.push_str(if rust {
        "sglang-router \\\n"
    } else {
        "python -m sglang_router.launch_router \\\n"
    });
    let urls: Vec<String> = (1..=config.replicas)
        .map(|i| format!("http://worker{i}:8000"))
        .collect();
    let mut lines = vec![
        format!("--worker-urls {}", urls.join(" ")),
        format!("--policy {policy}"),
    ];
    if *policy == "cache_aware" {
        let s = &config.rules.sglang_cache_aware;
        let secs = s.eviction_interval.div_ceil(TICKS_PER_S);
        let values = [
            sim_core::params::real_text(s.cache_threshold),
            s.abs_threshold.to_string(),
            sim_core::params::real_text(s.rel_threshold),
            secs.to_string(),
            s.max_tree_tokens.to_string(),
        ];
        for (f, v) in FLAGS.iter().zip(values) {
            lines.push(format!("--{} {v}", if rust { f.rust } else { f.python }));
        }
    }
    let n = lines.len();
    for (i, l) in lines.into_iter().enumerate() {
        out.push_str(&format!("    {l}{}\n", if i + 1 < n { " \\" } else { "" }));
    }
    Ok(out)
}
