//! `lblab prefix`: the prefix-affinity player (article §6.1).

use sim_core::labs::prefix::{self, Config, Outcome, PrefixReason, RouterRun, TraceChoice};

use crate::args::{self, Flag};

fn flags() -> Vec<Flag> {
    vec![
        Flag {
            name: "threshold",
            takes_value: true,
            help: "Load gap affinity tolerates (default 2, range 0–1000, or inf)".into(),
        },
        Flag {
            name: "replicas",
            takes_value: true,
            help: "Replicas (default 3, range 2–6)".into(),
        },
        Flag {
            name: "slots",
            takes_value: true,
            help: "Prefixes each replica caches (default 1, range 1–4)".into(),
        },
        Flag {
            name: "trace",
            takes_value: true,
            help: "default, random, or prefix ids like 1,2,1,3 (default: default)".into(),
        },
        Flag {
            name: "seed",
            takes_value: true,
            help: format!("Seed of the random trace (default 1, range 0–{})", u64::MAX),
        },
        Flag {
            name: "steps",
            takes_value: false,
            help: "Print every step of both routers".into(),
        },
        Flag {
            name: "json",
            takes_value: false,
            help: "Print the outcome as JSON".into(),
        },
    ]
}

fn whole(flag: &str, key: &str, v: &str) -> Result<u32, String> {
    v.trim()
        .parse()
        .map_err(|_| args::range_message(flag, Config::range_of(key), v))
}

/// Entry point of `lblab prefix`.
pub fn main(rest: &[String]) -> Result<(), String> {
    let flags = flags();
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab prefix [flags]", &flags));
        return Ok(());
    };
    let mut cfg = Config::default();
    if let Some(v) = p.value("threshold") {
        cfg.threshold = match v.trim() {
            "inf" | "infinity" | "∞" => None,
            _ => Some(v.trim().parse().map_err(|_| {
                format!("--threshold must be a whole number between 0 and 1000, or inf (got '{v}')")
            })?),
        };
    }
    if let Some(v) = p.value("replicas") {
        cfg.replicas = whole("replicas", "replicas", v)?;
    }
    if let Some(v) = p.value("slots") {
        cfg.slots = whole("slots", "slots", v)?;
    }
    if let Some(v) = p.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    if let Some(v) = p.value("trace") {
        cfg.trace = match v.trim() {
            "default" => TraceChoice::Default,
            "random" => TraceChoice::Random,
            ids => TraceChoice::Custom(
                ids.split(',')
                    .map(|s| s.trim().trim_start_matches(['P', 'p']).parse::<u8>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("--trace must be default, random, or prefix ids 1–6 like 1,2,1 (got '{v}')"))?,
            ),
        };
    }
    cfg.validate().map_err(|e| match e.field {
        "prefix" => format!(
            "--trace prefix ids must be between 1 and 6 (got {})",
            e.given
        ),
        "requests" => format!(
            "--trace must list between 1 and 40 requests (got {})",
            e.given
        ),
        "threshold" => format!(
            "--threshold must be a whole number between 0 and 1000, or inf (got {})",
            e.given
        ),
        f => args::range_message(f, Some((e.min, e.max)), &e.given),
    })?;
    let o = prefix::run(&cfg).map_err(|e| e.to_string())?;
    if p.switch("json") {
        println!(
            "{}",
            serde_json::to_string_pretty(&o).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", summary(&o));
        if p.switch("steps") {
            for r in &o.routers {
                print!("\n{}", steps(&o, r));
            }
        }
    }
    Ok(())
}

fn threshold_text(t: Option<u32>) -> String {
    t.map_or("∞".into(), |t| t.to_string())
}

/// Both routers' totals as text.
pub fn summary(o: &Outcome) -> String {
    let c = &o.config;
    let mut s = format!(
        "Prefix player: {} replicas, {}-slot LRU caches, threshold {}, {} requests\n\n",
        c.replicas,
        c.slots,
        threshold_text(c.threshold),
        o.trace.len()
    );
    s.push_str(&format!(
        "{:<14} {:>6} {:>15} {:>8}  assignments\n",
        "router", "hits", "prefill tokens", "escapes"
    ));
    for r in &o.routers {
        let a: Vec<String> = r.assignments.iter().map(u32::to_string).collect();
        s.push_str(&format!(
            "{:<14} {:>3}/{:<2} {:>15} {:>8}  {}\n",
            r.router.name(),
            r.hits,
            o.trace.len(),
            r.prefill_tokens,
            r.escapes,
            a.join(" / ")
        ));
    }
    s.push_str(&format!(
        "prefill reduction: {:.1}%\n",
        o.prefill_reduction * 100.0
    ));
    s
}

/// One router's steps as a text table (requests and replicas 1-based).
pub fn steps(o: &Outcome, r: &RouterRun) -> String {
    let mut s = format!("Steps: {}\n", r.router.name());
    s.push_str("req prefix prompt  → replica  hit  prefill  total   reason                        caches\n");
    for step in &r.steps {
        let req = o.trace[step.request as usize];
        let caches: Vec<String> = step
            .caches
            .iter()
            .map(|c| {
                let e: Vec<String> = c
                    .iter()
                    .map(|e| format!("P{}×{}", e.prefix, e.hits))
                    .collect();
                if e.is_empty() {
                    "-".into()
                } else {
                    e.join("+")
                }
            })
            .collect();
        let reason = match step.reason {
            PrefixReason::AffinityDropped {
                holder,
                holder_load,
                least_load,
            } => {
                format!(
                    "dropped: R{} at {} vs {}",
                    holder + 1,
                    holder_load,
                    least_load
                )
            }
            other => other.name().into(),
        };
        s.push_str(&format!(
            "R{:<2} P{:<5} {:>6}  → {:<7}  {:<4} {:>7} {:>6}   {:<29} {}\n",
            step.request + 1,
            req.prefix,
            req.prompt_tokens(),
            step.target + 1,
            if step.hit { "hit" } else { "miss" },
            step.prefill_tokens,
            step.cumulative_prefill,
            reason,
            caches.join(" | ")
        ));
    }
    s
}
