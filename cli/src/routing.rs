//! `lblab routing`: the Routing Lab from the command line.

use sim_core::labs::routing::{self, Config, Outcome};
use sim_core::routing::RuleKind;

use crate::args::{self, num, Flag};

/// Flags mapped onto config keys: (flag, config key, what it is).
const KEYED: &[(&str, &str, &str)] = &[
    ("replicas", "replicas", "Replicas in the pool"),
    ("rate", "rate", "Mean arrivals per tick (λ)"),
    ("mean-prompt", "mean_prompt", "Mean prompt length, tokens"),
    (
        "prompt-cv",
        "prompt_cv",
        "Coefficient of variation of prompt length",
    ),
    ("long-share", "long_share", "Share of long-output requests"),
    ("requests", "requests", "Requests in the trace"),
    (
        "burstiness",
        "burstiness",
        "Gamma shape of inter-arrivals (1 = Poisson)",
    ),
    ("slots", "slots", "Batch slots per replica"),
    ("slo-ttft", "slo_ttft", "TTFT objective, ticks"),
    (
        "cache-tokens",
        "cache_tokens",
        "Prefix-cache capacity per replica, tokens",
    ),
    (
        "prefill-budget",
        "prefill_budget",
        "Prompt tokens per prefill step",
    ),
    (
        "kv-blocks",
        "kv_blocks",
        "KV capacity per replica, blocks of 16 tokens",
    ),
];

fn flags() -> Vec<Flag> {
    let mut out = args::keyed_flags(KEYED, &Config::default().bounds());
    out.push(Flag {
        name: "seed",
        takes_value: true,
        help: format!(
            "Seed of every random stream (default {}, range 0–{})",
            Config::default().seed,
            u64::MAX
        ),
    });
    let names: Vec<&str> = RuleKind::ALL.iter().map(|r| r.name()).collect();
    out.push(Flag {
        name: "rule",
        takes_value: true,
        help: format!(
            "One rule or all (default all; one of: {}, all)",
            names.join(", ")
        ),
    });
    out.push(Flag {
        name: "trace",
        takes_value: true,
        help: "Replay a Mooncake-format JSONL trace instead of generating one".into(),
    });
    out.push(Flag {
        name: "ms-per-tick",
        takes_value: true,
        help: "With --trace: trace milliseconds per tick (default 100, range 1–100000)".into(),
    });
    out.push(Flag {
        name: "trace-limit",
        takes_value: true,
        help: "With --trace: read at most this many requests (default 200000, range 1–200000)"
            .into(),
    });
    out.push(Flag {
        name: "json",
        takes_value: false,
        help: "Print the outcome as JSON instead of a table".into(),
    });
    out
}

fn range_error(flag: &str, key: &str, given: &str) -> String {
    match Config::range_of(key) {
        Some((min, max)) => format!(
            "--{flag} must be a number between {} and {} (got '{given}')",
            num(min),
            num(max)
        ),
        None => format!("--{flag}: invalid value '{given}'"),
    }
}

fn set(cfg: &mut Config, key: &str, v: &str) -> Result<(), ()> {
    fn int<T: std::str::FromStr>(v: &str) -> Result<T, ()> {
        v.trim().parse().map_err(|_| ())
    }
    fn float(v: &str) -> Result<f64, ()> {
        let x: f64 = v.trim().parse().map_err(|_| ())?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(())
        }
    }
    match key {
        "replicas" => cfg.replicas = int(v)?,
        "rate" => cfg.rate = float(v)?,
        "mean_prompt" => cfg.mean_prompt = int(v)?,
        "prompt_cv" => cfg.prompt_cv = float(v)?,
        "long_share" => cfg.long_share = float(v)?,
        "requests" => cfg.requests = int(v)?,
        "burstiness" => cfg.burstiness = float(v)?,
        "slots" => cfg.slots = int(v)?,
        "slo_ttft" => cfg.slo_ttft = int(v)?,
        "cache_tokens" => cfg.cache_tokens = int(v)?,
        "prefill_budget" => cfg.prefill_budget = int(v)?,
        "kv_blocks" => cfg.kv_blocks = int(v)?,
        _ => return Err(()),
    }
    Ok(())
}

/// What `lblab routing` was asked to do.
pub struct RoutingArgs {
    /// The lab configuration.
    pub config: Config,
    /// Rules to run.
    pub rules: Vec<RuleKind>,
    /// Print JSON instead of a table.
    pub json: bool,
    /// A trace to replay instead of generating one: path, ms per tick, request limit.
    pub trace: Option<(String, u32, usize)>,
}

/// Build a config and rule list from command-line flags.
pub fn parse(rest: &[String]) -> Result<Option<RoutingArgs>, String> {
    let flags = flags();
    let Some(parsed) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab routing [flags]", &flags));
        return Ok(None);
    };
    let mut cfg = Config::default();
    for &(flag, key, _) in KEYED {
        if let Some(v) = parsed.value(flag) {
            set(&mut cfg, key, v).map_err(|_| range_error(flag, key, v))?;
        }
    }
    if let Some(v) = parsed.value("seed") {
        cfg.seed = v.trim().parse().map_err(|_| {
            format!(
                "--seed must be a whole number between 0 and {} (got '{v}')",
                u64::MAX
            )
        })?;
    }
    cfg.validate().map_err(|e| {
        let flag = e.field.replace('_', "-");
        format!(
            "--{flag} must be a number between {} and {} (got '{}')",
            num(e.min),
            num(e.max),
            e.given
        )
    })?;
    let rules = match parsed.value("rule") {
        None | Some("all") => RuleKind::ALL.to_vec(),
        Some(name) => vec![RuleKind::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = RuleKind::ALL.iter().map(|r| r.name()).collect();
            format!(
                "--rule must be one of {}, all (got '{name}')",
                names.join(", ")
            )
        })?],
    };
    let whole = |flag: &str, lo: u64, hi: u64, default: u64| -> Result<u64, String> {
        match parsed.value(flag) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|x| (lo..=hi).contains(x))
                .ok_or_else(|| {
                    format!("--{flag} must be a number between {lo} and {hi} (got '{v}')")
                }),
        }
    };
    let ms = whole("ms-per-tick", 1, 100_000, 100)? as u32;
    let limit = whole("trace-limit", 1, 200_000, 200_000)? as usize;
    let trace = parsed.value("trace").map(|p| (p.to_string(), ms, limit));
    Ok(Some(RoutingArgs {
        config: cfg,
        rules,
        json: parsed.switch("json"),
        trace,
    }))
}

/// Entry point of `lblab routing`.
pub fn main(rest: &[String]) -> Result<(), String> {
    let Some(RoutingArgs {
        config: cfg,
        rules,
        json,
        trace,
    }) = parse(rest)?
    else {
        return Ok(());
    };
    let outcome = match trace {
        None => routing::run_rules(&cfg, &rules).map_err(|e| e.to_string())?,
        Some((path, ms, limit)) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("--trace: cannot read {path}: {e}"))?;
            let workload = sim_core::workload::mooncake::parse(&text, ms, limit)
                .map_err(|e| format!("--trace: {e}"))?;
            routing::run_rules_on(&cfg, &workload, &rules)
        }
    };
    if json {
        let text = serde_json::to_string_pretty(&outcome).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print!("{}", table(&outcome));
    }
    Ok(())
}

/// The all-rules table as text.
pub fn table(o: &Outcome) -> String {
    let c = &o.config;
    let mut s = format!(
        "Routing Lab: {} replicas, {} requests, λ = {} per tick, mean prompt {} tokens (CV {}), {}% long, seed {}\n",
        c.replicas,
        c.requests,
        c.rate,
        c.mean_prompt,
        c.prompt_cv,
        num(c.long_share * 100.0),
        c.seed
    );
    s.push_str(&format!(
        "Generated prompts: min {} / max {} tokens. Times in ticks; SLO is TTFT ≤ {} ticks.\n\n",
        o.trace.prompt_min, o.trace.prompt_max, c.slo_ttft
    ));
    s.push_str(&format!(
        "{:<22} {:>9} {:>9} {:>9} {:>6} {:>7} {:>5} {:>11}\n",
        "rule", "TTFT p50", "TTFT p95", "E2E p95", "SLO", "cache", "gap", "tokens/tick"
    ));
    for r in &o.rules {
        s.push_str(&format!(
            "{:<22} {:>9.1} {:>9.1} {:>9.1} {:>5.0}% {:>6.0}% {:>5} {:>11.1}\n",
            r.rule.name(),
            r.ttft_p50,
            r.ttft_p95,
            r.e2e_p95,
            r.slo_attainment * 100.0,
            r.cache_hit_share * 100.0,
            r.assignment_gap,
            r.output_throughput
        ));
    }
    s
}
