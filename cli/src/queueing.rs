//! `lblab knee | little | retries | hedging | cascade`: the queueing and overload
//! explorables (article §1.2–1.3, §9.1–9.2, §10.2).

use serde::Serialize;
use sim_core::labs::queueing::{cascade, hedging, knee, little, retries};

use crate::args::{self, Flag};

fn flag(name: &'static str, takes_value: bool, help: &str) -> Flag {
    Flag {
        name,
        takes_value,
        help: help.into(),
    }
}

fn number(flag: &str, v: &str, lo: f64, hi: f64) -> Result<f64, String> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && (lo..=hi).contains(x))
        .ok_or_else(|| {
            format!(
                "--{flag} must be a number between {} and {} (got '{v}')",
                args::num(lo),
                args::num(hi)
            )
        })
}

fn emit<T: Serialize>(json: bool, value: &T, text: impl FnOnce() -> String) -> Result<(), String> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(value).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", text());
    }
    Ok(())
}

/// `lblab knee`.
pub fn knee_main(rest: &[String]) -> Result<(), String> {
    let flags = [
        flag(
            "wait",
            true,
            "Tolerable wait, in service times (default 3, range 0.1–50)",
        ),
        flag("cv2", true, "Your service-time CV² (default 2, range 0–16)"),
        flag(
            "ca2",
            true,
            "Inter-arrival CV² for Kingman's curve (default 1, range 0–16)",
        ),
        flag(
            "simulate",
            false,
            "Add the discrete-event single-server simulation",
        ),
        flag("seed", true, "Seed of the simulation (default 1)"),
        flag("json", false, "Print the outcome as JSON"),
    ];
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab knee [flags]", &flags));
        return Ok(());
    };
    let mut cfg = knee::Config::default();
    if let Some(v) = p.value("wait") {
        cfg.wait = number("wait", v, 0.1, 50.0)?;
    }
    if let Some(v) = p.value("cv2") {
        cfg.cv2 = number("cv2", v, 0.0, 16.0)?;
    }
    if let Some(v) = p.value("ca2") {
        cfg.ca2 = number("ca2", v, 0.0, 16.0)?;
    }
    if let Some(v) = p.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    cfg.simulate = p.switch("simulate");
    let o = knee::run(&cfg).map_err(|e| e.to_string())?;
    emit(p.switch("json"), &o, || {
        let mut s = format!(
            "Usable utilisation at a tolerable wait of {} service times:\n",
            cfg.wait
        );
        let names = [
            "deterministic (M/D/1)",
            "exponential (M/M/1)",
            "heavy tail",
            "your CV²",
            "Kingman, your Ca² and CV²",
        ];
        for (c, n) in o.curves.iter().zip(names) {
            s += &format!(
                "  {n:<28} Ca² {:<5} Cs² {:<5} ρ = {:.2}\n",
                c.ca2, c.cv2, c.usable_utilization
            );
        }
        for p in &o.simulated {
            s += &format!(
                "  simulated ρ {:.1}: wait {:.3} ± {:.3} service times (formula {:.3})\n",
                p.rho, p.mean_wait, p.band, p.formula
            );
        }
        s
    })
}

/// `lblab little`.
pub fn little_main(rest: &[String]) -> Result<(), String> {
    let flags = [
        flag(
            "kv-blocks",
            true,
            "KV capacity, blocks (default 1000, range 1–10000000)",
        ),
        flag(
            "tokens",
            true,
            "Tokens per resident sequence (default 1100, range 1–1000000)",
        ),
        flag(
            "prefill-ticks",
            true,
            "Prefill residency without cache hits, ticks (default 3, range 0–10000)",
        ),
        flag(
            "decode-ticks",
            true,
            "Decode residency, ticks (default 130, range 1–100000)",
        ),
        flag(
            "cache-hit",
            true,
            "Share of prompt tokens from cache (default 0.4, range 0–1)",
        ),
        flag("json", false, "Print the outcome as JSON"),
    ];
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab little [flags]", &flags));
        return Ok(());
    };
    let mut cfg = little::Config::default();
    if let Some(v) = p.value("kv-blocks") {
        cfg.kv_blocks = number("kv-blocks", v, 1.0, 10_000_000.0)? as u32;
    }
    if let Some(v) = p.value("tokens") {
        cfg.tokens_per_sequence = number("tokens", v, 1.0, 1_000_000.0)? as u32;
    }
    if let Some(v) = p.value("prefill-ticks") {
        cfg.prefill_ticks = number("prefill-ticks", v, 0.0, 10_000.0)?;
    }
    if let Some(v) = p.value("decode-ticks") {
        cfg.decode_ticks = number("decode-ticks", v, 1.0, 100_000.0)?;
    }
    if let Some(v) = p.value("cache-hit") {
        cfg.cache_hit = number("cache-hit", v, 0.0, 1.0)?;
    }
    let o = little::run(&cfg).map_err(|e| e.to_string())?;
    emit(p.switch("json"), &o, || {
        format!(
            "Lmax = {} sequences; W = {:.1} ticks → λmax = {:.4} requests/tick\nwith {:.0}% of the prompt cached: W = {:.1} ticks → λmax = {:.4} requests/tick\n",
            o.l_max,
            o.residency,
            o.lambda_max,
            cfg.cache_hit * 100.0,
            o.residency_cached,
            o.lambda_max_cached
        )
    })
}

/// `lblab retries`.
pub fn retries_main(rest: &[String]) -> Result<(), String> {
    let flags = [
        flag(
            "attempts",
            true,
            "Attempts per layer, top first (default 3,4,4,3; 1–10 each, 1–8 layers)",
        ),
        flag(
            "budget",
            true,
            "Retries per step as a share of successes (default 0.1, range 0–1)",
        ),
        flag("seed", true, "Seed (default 1)"),
        flag("json", false, "Print the outcome as JSON"),
    ];
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab retries [flags]", &flags));
        return Ok(());
    };
    let mut cfg = retries::Config::default();
    if let Some(v) = p.value("attempts") {
        let bad = || {
            format!(
                "--attempts must be 1–8 comma-separated whole numbers between 1 and 10 (got '{v}')"
            )
        };
        let a: Vec<u32> = v
            .split(',')
            .map(|x| x.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        if a.is_empty() || a.len() > 8 || a.iter().any(|&x| !(1..=10).contains(&x)) {
            return Err(bad());
        }
        cfg.attempts = a;
    }
    if let Some(v) = p.value("budget") {
        cfg.budget = number("budget", v, 0.0, 1.0)?;
    }
    if let Some(v) = p.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    let o = retries::run(&cfg).map_err(|e| e.to_string())?;
    emit(p.switch("json"), &o, || {
        let products: Vec<String> = o.running_product.iter().map(|x| format!("×{x}")).collect();
        let w = cfg.incident_start as usize..(cfg.incident_start + cfg.incident_length) as usize;
        let peak = |s: &[f64]| s[w.clone()].iter().copied().fold(0.0, f64::max);
        format!(
            "Attempts {:?}: running product {} → up to {} upstream calls per user action\nPeak calls per action during the incident: every layer {:.1}, one layer {:.2}, one layer with a {:.0}% budget {:.3}\n",
            cfg.attempts,
            products.join(" "),
            o.upstream_calls,
            peak(&o.every_layer),
            peak(&o.one_layer),
            cfg.budget * 100.0,
            peak(&o.budgeted)
        )
    })
}

/// `lblab hedging`.
pub fn hedging_main(rest: &[String]) -> Result<(), String> {
    let flags = [
        flag(
            "hedge-at",
            true,
            "Percentile after which to hedge (default 95, range 50–99.9)",
        ),
        flag("seed", true, "Seed (default 1)"),
        flag("json", false, "Print the outcome as JSON"),
    ];
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab hedging [flags]", &flags));
        return Ok(());
    };
    let mut cfg = hedging::Config::default();
    if let Some(v) = p.value("hedge-at") {
        cfg.hedge_at = number("hedge-at", v, 50.0, 99.9)?;
    }
    if let Some(v) = p.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    let o = hedging::run(&cfg).map_err(|e| e.to_string())?;
    emit(p.switch("json"), &o, || {
        let mut s = format!(
            "Hedge after P{} = {:.0} ms\n{:<18} {:>7} {:>7} {:>7} {:>10} {:>10}\n",
            cfg.hedge_at, o.threshold, "strategy", "p50", "p95", "p99", "extra load", "extra work"
        );
        for x in &o.strategies {
            s += &format!(
                "{:<18} {:>7.0} {:>7.0} {:>7.0} {:>9.1}% {:>9.1}%\n",
                x.strategy,
                x.p50,
                x.p95,
                x.p99,
                x.extra_load * 100.0,
                x.extra_work * 100.0
            );
        }
        s
    })
}

/// `lblab cascade`.
pub fn cascade_main(rest: &[String]) -> Result<(), String> {
    let flags = [
        flag(
            "escalate",
            true,
            "Share of requests escalated (default 0.1, range 0.0001–1)",
        ),
        flag("json", false, "Print the outcome as JSON"),
    ];
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab cascade [flags]", &flags));
        return Ok(());
    };
    let q = match p.value("escalate") {
        Some(v) => number("escalate", v, 0.0001, 1.0)?,
        None => 0.1,
    };
    let o = cascade::cascade(q, 1_000_000, 1).map_err(|e| e.to_string())?;
    emit(p.switch("json"), &o, || {
        format!(
            "Escalating the slowest {:.1}% of an exponential workload: C² {:.3} (from 1), mean ×{:.2}; sampled C² {:.3}, mean ×{:.2}\nThe escalated stream is a state-dependent thinning of the arrivals: no longer Poisson.\n",
            q * 100.0,
            o.cv2,
            o.mean_ratio,
            o.sampled.0,
            o.sampled.1
        )
    })
}
