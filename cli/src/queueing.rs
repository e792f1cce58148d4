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
        flag(
            "mean",
            true,
            "Mean service time of the simulation, seconds (default 2, range 0.01–1000)",
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
    if let Some(v) = p.value("mean") {
        cfg.service_mean = number("mean", v, 0.01, 1000.0)?;
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
            "KV capacity, blocks (default 20000, range 1–10000000)",
        ),
        flag(
            "block-tokens",
            true,
            "Tokens per KV block (default 16, range 1–1024)",
        ),
        flag(
            "prompt",
            true,
            "Prompt tokens per request (default 8000, range 1–1000000)",
        ),
        flag(
            "output",
            true,
            "Output tokens per request (default 100, range 1–100000)",
        ),
        flag(
            "prefill-rate",
            true,
            "Prompt tokens prefilled per tick (default 320, range 1–100000)",
        ),
        flag(
            "cache-hit",
            true,
            "Share of prompt tokens from cache (default 0.75, range 0–1)",
        ),
        flag("seed", true, "Seed of the check (default 1)"),
        flag("json", false, "Print the outcome as JSON"),
    ];
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab little [flags]", &flags));
        return Ok(());
    };
    let mut cfg = little::Config::default();
    let whole = |name: &str, hi: f64| -> Result<Option<u32>, String> {
        p.value(name)
            .map(|v| {
                number(name, v, 1.0, hi).and_then(|x| {
                    if x.fract() == 0.0 {
                        Ok(x as u32)
                    } else {
                        Err(format!(
                            "--{name} must be a whole number between 1 and {} (got '{v}')",
                            args::num(hi)
                        ))
                    }
                })
            })
            .transpose()
    };
    if let Some(x) = whole("kv-blocks", 10_000_000.0)? {
        cfg.kv_blocks = x;
    }
    if let Some(x) = whole("block-tokens", 1024.0)? {
        cfg.block_tokens = x;
    }
    if let Some(x) = whole("prompt", 1_000_000.0)? {
        cfg.prompt_tokens = x;
    }
    if let Some(x) = whole("output", 100_000.0)? {
        cfg.output_tokens = x;
    }
    if let Some(x) = whole("prefill-rate", 100_000.0)? {
        cfg.prefill_rate = x;
    }
    if let Some(v) = p.value("cache-hit") {
        cfg.cache_hit = number("cache-hit", v, 0.0, 1.0)?;
    }
    if let Some(v) = p.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    let o = little::run(&cfg).map_err(|e| e.to_string())?;
    emit(p.switch("json"), &o, || {
        format!(
            "Lmax = {} sequences ({} blocks each); W = {:.1} prefill + {} decode = {:.1} ticks → λmax = {:.4} requests/tick\nwith {:.0}% of the prompt cached: W = {:.1} ticks → λmax = {:.4} requests/tick (+{:.1}%)\nseeded check (exponential outputs): {:.4} requests/tick over {} sequences, mean W {:.1} ticks\n",
            o.l_max,
            o.blocks_per_sequence,
            o.prefill_ticks,
            cfg.output_tokens,
            o.residency,
            o.lambda_max,
            cfg.cache_hit * 100.0,
            o.residency_cached,
            o.lambda_max_cached,
            (o.lambda_max_cached / o.lambda_max - 1.0) * 100.0,
            o.check.throughput,
            o.check.sequences,
            o.check.mean_residency
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
        flag(
            "incident-failure",
            true,
            "Failure probability of an upstream call during the incident (default 0.99, range 0–1)",
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
    if let Some(v) = p.value("incident-failure") {
        cfg.incident_failure = number("incident-failure", v, 0.0, 1.0)?;
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
        flag(
            "slow-share",
            true,
            "Share of requests in the slow tail (default 0.05, range 0–0.5)",
        ),
        flag(
            "slow-factor",
            true,
            "How many times slower a slow request is (default 5, range 1–50)",
        ),
        flag(
            "ttft-share",
            true,
            "Share of a request's latency before its first token (default 0.3, range 0.05–0.95)",
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
    if let Some(v) = p.value("slow-share") {
        cfg.slow_share = number("slow-share", v, 0.0, 0.5)?;
    }
    if let Some(v) = p.value("slow-factor") {
        cfg.slow_factor = number("slow-factor", v, 1.0, 50.0)?;
    }
    if let Some(v) = p.value("ttft-share") {
        cfg.ttft_share = number("ttft-share", v, 0.05, 0.95)?;
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
        flag("seed", true, "Seed of the sampled check (default 1)"),
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
    let seed = match p.value("seed") {
        Some(v) => args::seed(v)?,
        None => 1,
    };
    let o = cascade::cascade(q, cascade::SAMPLES, seed).map_err(|e| e.to_string())?;
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
