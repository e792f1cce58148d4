//! `lblab bench`: wall-clock medians of the routing simulation. Speed targets live
//! here, not in timed tests (native release build on the 2-core machine):
//! all six rules at the defaults < 2 ms; 100,000 requests on 16 replicas at the
//! default per-replica load, all six rules, < 2 s.

use std::time::Instant;

use sim_core::labs::routing::{self, Config};

use crate::args::{self, Flag};

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

/// Entry point of `lblab bench`.
pub fn main(rest: &[String]) -> Result<(), String> {
    let flags = [Flag {
        name: "quick",
        takes_value: false,
        help: "Fewer repetitions (for smoke tests)".into(),
    }];
    let Some(parsed) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab bench [--quick]", &flags));
        return Ok(());
    };
    let quick = parsed.switch("quick");
    if cfg!(debug_assertions) {
        println!("note: debug build; run `cargo run --release -p lblab -- bench` for real figures");
    }
    let defaults = Config::default();
    defaults.validate().map_err(|e| e.to_string())?;
    let small = median_ms(if quick { 5 } else { 101 }, || {
        std::hint::black_box(routing::run(&defaults).ok());
    });
    let target_small = 2.0;
    println!(
        "routing defaults, six rules: median {small:.3} ms (target < {target_small} ms) {}",
        if small < target_small { "OK" } else { "SLOW" }
    );
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
    let target_large = 2000.0;
    println!(
        "routing 100,000 requests, 16 replicas, λ = {:.2}, six rules: median {large:.0} ms (target < {target_large} ms) {}",
        big.rate,
        if large < target_large { "OK" } else { "SLOW" }
    );
    Ok(())
}
