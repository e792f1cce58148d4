//! `lblab`: run the LLM Load-Balancing Lab's simulations from a terminal.
//!
//! Every subcommand prints a readable table by default and the lab's `Outcome`
//! as JSON with `--json` (the same JSON the web page computes in wasm). Bad input
//! prints one line naming the flag and its valid range, and exits with status 2.

mod args;
mod batching;
mod bench;
mod herding;
mod prefix;
mod queueing;
mod routing;

use std::process::ExitCode;

const USAGE: &str = "\
lblab — LLM Load-Balancing Lab simulations

Usage: lblab <command> [flags]

Commands:
  routing   Replay one seeded trace under every selection rule (article §4.2)
  herding   Routers on stale load snapshots stampede; four fixes compared (§5.6)
  prefix    Two routers, one trace: prefix affinity against load balance (§6.1)
  batching  Static, continuous and chunked-prefill batching, iteration by iteration (§7.2)
  knee      Waiting time against utilisation: Pollaczek–Khinchine, Kingman, simulation (§1.2)
  little    Little's law sizing of one replica (§1.3)
  retries   Retry amplification across layers, and a retry budget (§9.1)
  hedging   Hedged requests: tail latency against extra load (§9.2)
  cascade   What escalating the slowest requests does to the large pool (§10.2)
  bench     Time the routing simulation (release builds)
  help      Show this text; `lblab <command> --help` shows a command's flags
";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = match argv.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match cmd {
        "routing" => routing::main(rest),
        "herding" => herding::main(rest),
        "prefix" => prefix::main(rest),
        "batching" => batching::main(rest),
        "knee" => queueing::knee_main(rest),
        "little" => queueing::little_main(rest),
        "retries" => queueing::retries_main(rest),
        "hedging" => queueing::hedging_main(rest),
        "cascade" => queueing::cascade_main(rest),
        "bench" => bench::main(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command '{other}' (see lblab help)")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(line) => {
            eprintln!("error: {line}");
            ExitCode::from(2)
        }
    }
}
