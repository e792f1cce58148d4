//! `lblab bench`: wall-clock medians of the routing simulation against its
//! speed targets (native release build on the 2-core machine). Targets live
//! here, not in timed tests:
//! - all rules at the defaults: < 2 ms;
//! - 100,000 requests on 16 replicas at the default per-replica load, all
//!   rules: < 2 s.
//!
//! It prints the profile it was built with (from `build.rs`), so a figure is
//! never quoted from a debug or size-optimised build by mistake; `--check`
//! exits non-zero when a target is missed.

use std::time::Instant;

use sim_core::labs::routing::{self, Config};
use sim_core::params::Configurable;
use sim_core::routing::RuleKind;

use crate::args::{self, Flag, Takes};

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// One benchmark: what it runs, its median, its target.
struct Mark {
    name: String,
    median_ms: f64,
    target_ms: f64,
}

impl Mark {
    fn met(&self) -> bool {
        self.median_ms < self.target_ms
    }
}

/// Entry point of `lblab bench`.
pub fn main(rest: &[String]) -> Result<(), String> {
    let flags = [
        Flag::new(
            "quick",
            Takes::Nothing,
            "Fewer repetitions (for smoke tests)",
        ),
        Flag::new(
            "check",
            Takes::Nothing,
            "Exit with status 1 when a median misses its target",
        ),
        Flag::new(
            "scale",
            Takes::Value,
            "Multiply every target by this factor (default 1; e.g. 0.000001 shows what a miss looks like)",
        ),
    ];
    let Some(parsed) = args::parse(rest, &flags)? else {
        print!(
            "{}",
            args::help(
                "Usage: lblab bench [--quick] [--check]",
                &[("Flags", &flags)]
            )
        );
        return Ok(());
    };
    let quick = parsed.has("quick");
    let scale = match parsed.value("scale") {
        None => 1.0,
        Some(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| format!("--scale must be a positive number (got '{v}')"))?,
    };
    println!(
        "build: {} profile; sim-core at opt-level {}, lblab at opt-level {}; debug assertions {}",
        sim_core::BUILD_PROFILE,
        sim_core::BUILD_OPT_LEVEL,
        env!("LBLAB_OPT_LEVEL"),
        if cfg!(debug_assertions) { "on" } else { "off" }
    );
    if cfg!(debug_assertions) {
        println!("note: debug build; run `cargo run --release -p lblab -- bench` for real figures");
    }
    let rules = RuleKind::ALL.len();
    let defaults = Config::default();
    defaults.validate().map_err(|e| e.to_string())?;
    let small = median_ms(if quick { 5 } else { 101 }, || {
        std::hint::black_box(routing::run(&defaults).ok());
    });
    let per_replica = defaults.rate / f64::from(defaults.replicas);
    let big = Config {
        replicas: 16,
        requests: 100_000,
        rate: per_replica * 16.0,
        ..Config::default()
    };
    big.validate().map_err(|e| e.to_string())?;
    let large = median_ms(if quick { 1 } else { 5 }, || {
        std::hint::black_box(routing::run(&big).ok());
    });
    let marks = [
        Mark {
            name: format!("routing defaults, {rules} rules"),
            median_ms: small,
            target_ms: 2.0 * scale,
        },
        Mark {
            name: format!(
                "routing 100,000 requests, 16 replicas, λ = {:.2}, {rules} rules",
                big.rate
            ),
            median_ms: large,
            target_ms: 2000.0 * scale,
        },
    ];
    for m in &marks {
        println!(
            "{}: median {:.3} ms (target < {} ms) {}",
            m.name,
            m.median_ms,
            m.target_ms,
            if m.met() { "OK" } else { "MISSED" }
        );
    }
    let missed = marks.iter().filter(|m| !m.met()).count();
    if parsed.has("check") && missed > 0 {
        eprintln!("error: {missed} benchmark target(s) missed");
        std::process::exit(1);
    }
    if parsed.has("check") {
        println!("every target met");
    }
    Ok(())
}
