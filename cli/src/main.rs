//! `lblab`: run the LLM Load-Balancing Lab's simulations from a terminal.
//!
//! Every lab in the registry (`sim_core::labs::LABS`) is a subcommand with the
//! same shape: its parameters as flags, a readable table by default, the lab's
//! `Outcome` as JSON with `--json` (the same JSON the web page computes in
//! wasm). Bad input prints one line naming the flag and its valid range, and
//! exits with status 2.

mod args;
mod bench;
mod corners;
mod lab;
mod threads;
mod validate;

use std::process::ExitCode;

use sim_core::labs::{self, LABS};

/// The command list, generated from the registry.
fn usage() -> String {
    let mut s = String::from(
        "lblab — LLM Load-Balancing Lab simulations\n\nUsage: lblab <command> [flags]\n\nLabs:\n",
    );
    for l in LABS {
        s.push_str(&format!(
            "  {:<9} {} ({})\n",
            l.info.id, l.info.summary, l.info.section
        ));
    }
    s.push_str(
        "\nOther commands:\n  labs      List the labs and their parameters (--json for the whole registry)\n  bench     Time the routing simulation against its targets (--check fails on a miss)\n  validate  The Routing Lab against published deployments: figures, rank orders, verdicts\n  help      Show this text; `lblab <command> --help` shows a command's flags\n",
    );
    s
}

/// `lblab labs [--json]`: the registry, for people and for the browser tests.
fn list(rest: &[String]) -> Result<(), String> {
    let flags = [args::Flag::new(
        "json",
        args::Takes::Nothing,
        "Print every lab with its parameters and focus as JSON",
    )];
    let Some(parsed) = args::parse(rest, &flags)? else {
        print!(
            "{}",
            args::help("Usage: lblab labs [--json]", &[("Flags", &flags)])
        );
        return Ok(());
    };
    if parsed.has("json") {
        let all: Vec<serde_json::Value> = LABS
            .iter()
            .map(|l| {
                let params: Vec<serde_json::Value> = (l.params)()
                    .iter()
                    .map(|p| {
                        serde_json::json!({
                            "key": p.key,
                            "label": p.label,
                            "default": p.default,
                            "shape": format!("{:?}", p.shape),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "id": l.info.id,
                    "title": l.info.title,
                    "section": l.info.section,
                    "player": l.info.player,
                    "focus": l.focus.map(|f| serde_json::json!({
                        "key": f.key,
                        "default": (f.default)(),
                        "options": (f.options)().iter().map(|o| o.name).collect::<Vec<_>>(),
                    })),
                    "params": params,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&all).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        for l in LABS {
            let keys: Vec<&str> = (l.params)().iter().map(|p| p.key).collect();
            println!(
                "{:<9} {:<22} {:<6} {}",
                l.info.id,
                l.info.title,
                l.info.section,
                keys.join(" ")
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    // Arguments are read as the OS gives them: one that is not UTF-8 is a
    // usage error, not a panic.
    let mut argv: Vec<String> = Vec::new();
    for (i, a) in std::env::args_os().skip(1).enumerate() {
        match a.into_string() {
            Ok(s) => argv.push(s),
            Err(raw) => {
                eprintln!(
                    "error: argument {} is not valid UTF-8 ('{}')",
                    i + 1,
                    sim_core::params::shown(&raw.to_string_lossy())
                );
                return ExitCode::from(2);
            }
        }
    }
    let (cmd, rest) = match argv.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            eprint!("{}", usage());
            return ExitCode::from(2);
        }
    };
    let result = match cmd {
        "labs" => list(rest),
        "bench" => bench::main(rest),
        "validate" => validate::main(rest),
        "help" | "--help" | "-h" => {
            print!("{}", usage());
            Ok(())
        }
        id => match (labs::find(id), labs::text(id)) {
            (Some(entry), Some(text)) => lab::main(entry, text, rest),
            _ => Err(format!(
                "unknown command '{}' (see lblab help)",
                sim_core::params::shown(id)
            )),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(line) => {
            eprintln!("error: {line}");
            ExitCode::from(2)
        }
    }
}
