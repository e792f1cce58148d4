//! `lblab herding`: the stale-signal herding lab (article §5.6).

use sim_core::labs::herding::{self, Config, HerdingRule, Outcome, RuleSummary};

use crate::args::{self, Flag};

/// Flags mapped onto config keys: (flag, key, what it is).
const KEYED: &[(&str, &str, &str)] = &[
    ("replicas", "replicas", "Replicas"),
    ("routers", "routers", "Independent routers"),
    (
        "scrape-interval",
        "scrape_interval",
        "Ticks between load scrapes",
    ),
    ("ticks", "ticks", "Ticks simulated"),
    (
        "arrival-rate",
        "arrival_rate",
        "Mean arrivals per tick (Poisson)",
    ),
    (
        "service-time",
        "service_time",
        "Ticks each request occupies its replica",
    ),
];

fn flags() -> Vec<Flag> {
    let mut out = args::keyed_flags(KEYED, &Config::default().bounds());
    let names: Vec<&str> = HerdingRule::ALL.iter().map(|r| r.name()).collect();
    out.extend([
        Flag {
            name: "stagger",
            takes_value: false,
            help: "Offset router k's scrapes by k·T/K (default: all in phase)".into(),
        },
        Flag {
            name: "rule",
            takes_value: true,
            help: format!(
                "One rule or all (default all; one of: {}, all)",
                names.join(", ")
            ),
        },
        Flag {
            name: "seed",
            takes_value: true,
            help: format!("Seed (default 1, range 0–{})", u64::MAX),
        },
        Flag {
            name: "timeline",
            takes_value: false,
            help: "Print the per-tick timeline of each rule run".into(),
        },
        Flag {
            name: "json",
            takes_value: false,
            help: "Print the outcome as JSON".into(),
        },
    ]);
    out
}

fn set(cfg: &mut Config, key: &str, v: &str) -> Result<(), ()> {
    let v = v.trim();
    match key {
        "replicas" => cfg.replicas = v.parse().map_err(|_| ())?,
        "routers" => cfg.routers = v.parse().map_err(|_| ())?,
        "scrape_interval" => cfg.scrape_interval = v.parse().map_err(|_| ())?,
        "ticks" => cfg.ticks = v.parse().map_err(|_| ())?,
        "arrival_rate" => {
            let x: f64 = v.parse().map_err(|_| ())?;
            if !x.is_finite() {
                return Err(());
            }
            cfg.arrival_rate = x;
        }
        "service_time" => cfg.service_time = v.parse().map_err(|_| ())?,
        _ => return Err(()),
    }
    Ok(())
}

/// Entry point of `lblab herding`.
pub fn main(rest: &[String]) -> Result<(), String> {
    let flags = flags();
    let Some(parsed) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab herding [flags]", &flags));
        return Ok(());
    };
    let mut cfg = Config::default();
    for &(flag, key, _) in KEYED {
        if let Some(v) = parsed.value(flag) {
            set(&mut cfg, key, v)
                .map_err(|_| args::range_message(flag, Config::range_of(key), v))?;
        }
    }
    cfg.stagger = parsed.switch("stagger");
    if let Some(v) = parsed.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    cfg.validate().map_err(|e| {
        args::range_message(&e.field.replace('_', "-"), Some((e.min, e.max)), &e.given)
    })?;
    let outcome = match parsed.value("rule") {
        None | Some("all") => herding::run(&cfg),
        Some(name) => {
            let rule = HerdingRule::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = HerdingRule::ALL.iter().map(|r| r.name()).collect();
                format!(
                    "--rule must be one of {}, all (got '{name}')",
                    names.join(", ")
                )
            })?;
            herding::run_rule(&cfg, rule)
        }
    }
    .map_err(|e| e.to_string())?;
    if parsed.switch("json") {
        println!(
            "{}",
            serde_json::to_string_pretty(&outcome).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", table(&outcome));
        if parsed.switch("timeline") {
            for r in &outcome.rules {
                print!("\n{}", timeline(r));
            }
        }
    }
    Ok(())
}

/// The four rules compared, as text.
pub fn table(o: &Outcome) -> String {
    let c = &o.config;
    let mut s = format!(
        "Herding lab: {} replicas, {} routers, scrape every {} ticks ({}), {} ticks, λ = {} per tick, service {} ticks, seed {}\n\n",
        c.replicas,
        c.routers,
        c.scrape_interval,
        if c.stagger { "staggered" } else { "in phase" },
        c.ticks,
        c.arrival_rate,
        c.service_time,
        c.seed
    );
    s.push_str(&format!(
        "{:<26} {:>9} {:>9} {:>11} {:>8}\n",
        "rule", "peak skew", "mean skew", "oscillation", "pile-up"
    ));
    for r in &o.rules {
        s.push_str(&format!(
            "{:<26} {:>9} {:>9.2} {:>11.2} {:>7.0}%\n",
            r.rule.name(),
            r.peak_skew,
            r.mean_skew,
            r.oscillation,
            r.pile_up_share * 100.0
        ));
    }
    s
}

/// One rule's per-tick timeline as a text table (replicas and routers 1-based).
pub fn timeline(r: &RuleSummary) -> String {
    let mut s = format!("Timeline: {}\n", r.rule.name());
    s.push_str(
        "tick arr skew outstanding (new)            scraped   dispatches (router→replica)\n",
    );
    for t in &r.timeline.ticks {
        let out: Vec<String> = t
            .outstanding
            .iter()
            .zip(&t.new)
            .map(|(o, n)| {
                if *n > 0 {
                    format!("{o}(+{n})")
                } else {
                    o.to_string()
                }
            })
            .collect();
        let scraped: Vec<String> = t
            .routers
            .iter()
            .enumerate()
            .filter(|(_, v)| v.scraped)
            .map(|(i, _)| format!("R{}", i + 1))
            .collect();
        let sends: Vec<String> = t
            .routers
            .iter()
            .enumerate()
            .flat_map(|(i, v)| {
                v.dispatched
                    .iter()
                    .map(move |d| format!("R{}→{}", i + 1, d + 1))
            })
            .collect();
        let line = format!(
            "{:>4} {:>3} {:>4} {:<30} {:<9} {}",
            t.tick,
            t.arrivals,
            t.skew,
            out.join(" "),
            if scraped.is_empty() {
                "-".to_string()
            } else {
                scraped.join(",")
            },
            sends.join(" ")
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}
