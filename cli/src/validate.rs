//! `lblab validate`: the Routing Lab against published deployments
//! (`sim_core::labs::validation`). For each scenario, one row per published
//! figure with the simulated seed median and range, then the rank orders and
//! headline ratios with a verdict each, and the scenario's modelling gaps.

use sim_core::labs::validation::{self, scenarios};

use crate::args::{self, Flag, Takes};

/// Run the command.
pub fn main(rest: &[String]) -> Result<(), String> {
    let flags = [
        Flag::new(
            "scenario",
            Takes::Value,
            "Only this scenario (llm-d, smg, kubeai)",
        ),
        Flag::new(
            "seeds",
            Takes::Value,
            "Seeds 1..N to run (1–100; default 20)",
        ),
        Flag::new(
            "links",
            Takes::Nothing,
            "Print each scenario's link and CLI command instead of running it",
        ),
    ];
    let Some(parsed) = args::parse(rest, &flags)? else {
        print!(
            "{}",
            args::help(
                "Usage: lblab validate [--scenario=ID] [--seeds=N] [--links]",
                &[("Flags", &flags)]
            )
        );
        return Ok(());
    };
    let seeds: u64 = match parsed.value("seeds") {
        None => 20,
        Some(s) => s
            .parse()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| {
                format!(
                    "--seeds must be 1–100, got '{}'",
                    sim_core::params::shown(s)
                )
            })?,
    };
    let chosen: Vec<&validation::Scenario> = match parsed.value("scenario") {
        None => scenarios::ALL.iter().collect(),
        Some(id) => vec![scenarios::ALL.iter().find(|s| s.id == id).ok_or_else(|| {
            let ids: Vec<&str> = scenarios::ALL.iter().map(|s| s.id).collect();
            format!(
                "--scenario must be one of {}, got '{}'",
                ids.join(", "),
                sim_core::params::shown(id)
            )
        })?],
    };
    if parsed.has("links") {
        for s in chosen {
            println!("{} [{}]\n  {}\n  {}", s.title, s.id, s.link(), s.command());
        }
        return Ok(());
    }
    let seeds: Vec<u64> = (1..=seeds).collect();
    let mut held = 0;
    for s in &chosen {
        let progress = |done: usize, of: usize| eprint!("\r{}: seed {done}/{of}", s.id);
        let v = validation::validate(s, &seeds, &progress).map_err(|e| e.to_string())?;
        eprintln!();
        held += usize::from(v.holds());
        println!("{}", validation::text(&v));
    }
    println!(
        "{held} of {} scenarios hold on every judged line",
        chosen.len()
    );
    Ok(())
}
