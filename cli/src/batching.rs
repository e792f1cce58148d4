//! `lblab batching`: the engine batching player (article §7.2).

use sim_core::labs::batching::{self, Config, Mode, ModeRun, Outcome, SlotState, TraceChoice};

use crate::args::{self, Flag};

fn flags() -> Vec<Flag> {
    vec![
        Flag {
            name: "mode",
            takes_value: true,
            help: "static, continuous, chunked or all (default all)".into(),
        },
        Flag {
            name: "slots",
            takes_value: true,
            help: "Batch slots (default 3, range 1–8)".into(),
        },
        Flag {
            name: "chunk-budget",
            takes_value: true,
            help: "Work units per chunked iteration (default 3, range 1–16)".into(),
        },
        Flag {
            name: "prefill-first",
            takes_value: false,
            help: "Chunked prefill: prefill chunks take the budget before decode".into(),
        },
        Flag {
            name: "trace",
            takes_value: true,
            help: "default or random (default: default)".into(),
        },
        Flag {
            name: "seed",
            takes_value: true,
            help: format!("Seed of the random trace (default 1, range 0–{})", u64::MAX),
        },
        Flag {
            name: "detail",
            takes_value: false,
            help: "Print every iteration of each mode".into(),
        },
        Flag {
            name: "json",
            takes_value: false,
            help: "Print the outcome as JSON".into(),
        },
    ]
}

fn whole(flag: &str, v: &str, lo: u32, hi: u32) -> Result<u32, String> {
    v.trim()
        .parse::<u32>()
        .ok()
        .filter(|x| (lo..=hi).contains(x))
        .ok_or_else(|| format!("--{flag} must be a number between {lo} and {hi} (got '{v}')"))
}

/// Entry point of `lblab batching`.
pub fn main(rest: &[String]) -> Result<(), String> {
    let flags = flags();
    let Some(p) = args::parse(rest, &flags)? else {
        print!("{}", args::help("Usage: lblab batching [flags]", &flags));
        return Ok(());
    };
    let mut cfg = Config::default();
    if let Some(v) = p.value("slots") {
        cfg.slots = whole("slots", v, 1, 8)?;
    }
    if let Some(v) = p.value("chunk-budget") {
        cfg.chunk_budget = whole("chunk-budget", v, 1, 16)?;
    }
    if let Some(v) = p.value("seed") {
        cfg.seed = args::seed(v)?;
    }
    cfg.prefill_first = p.switch("prefill-first");
    cfg.trace = match p.value("trace").map(str::trim) {
        None | Some("default") => TraceChoice::Default,
        Some("random") => TraceChoice::Random,
        Some(v) => return Err(format!("--trace must be default or random (got '{v}')")),
    };
    let modes = match p.value("mode").map(str::trim) {
        None | Some("all") => Mode::ALL.to_vec(),
        Some(name) => vec![Mode::from_name(name).ok_or_else(|| {
            format!("--mode must be one of static, continuous, chunked, all (got '{name}')")
        })?],
    };
    let o = batching::run(&cfg, &modes).map_err(|e| e.to_string())?;
    if p.switch("json") {
        println!(
            "{}",
            serde_json::to_string_pretty(&o).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", table(&o));
        if p.switch("detail") {
            for m in &o.modes {
                print!("\n{}", detail(&o, m));
            }
        }
    }
    Ok(())
}

/// The modes compared, as text.
pub fn table(o: &Outcome) -> String {
    let mut s = format!(
        "Batching player: {} slots, chunk budget {}, trace:",
        o.config.slots, o.config.chunk_budget
    );
    for r in &o.trace {
        s.push_str(&format!(
            " {}(arrives {}, prefill {}, output {})",
            r.label, r.arrival, r.prefill, r.output
        ));
    }
    s.push_str("\n\n");
    s.push_str(&format!(
        "{:<12} {:>10} {:>12} {:>10} {:>9}\n",
        "mode", "iterations", "zero-output", "occupancy", "mean gap"
    ));
    for m in &o.modes {
        s.push_str(&format!(
            "{:<12} {:>10} {:>12} {:>9.0}% {:>9.2}\n",
            m.mode.name(),
            m.iterations,
            m.zero_output_iterations,
            m.slot_occupancy * 100.0,
            m.mean_gap
        ));
    }
    s
}

fn slot_text(s: &SlotState) -> String {
    match s {
        SlotState::Idle => "idle".into(),
        SlotState::Prefill { label } => format!("{label}·prefill"),
        SlotState::Decode { label } => format!("{label}·decode"),
        SlotState::Stalled { label } => format!("{label}·stalled"),
    }
}

/// One mode's iterations as a text table.
pub fn detail(o: &Outcome, m: &ModeRun) -> String {
    let _ = o;
    let mut s = format!("Iterations: {}\n", m.mode.name());
    for d in &m.iterations_detail {
        let slots: Vec<String> = d.slots.iter().map(slot_text).collect();
        let line = format!(
            "{:>3}  {:<40} out {}{}  waiting [{}]  done [{}]",
            d.iteration,
            slots.join(" | "),
            d.output_tokens,
            if d.zero_output { " (zero)" } else { "" },
            d.waiting.join(" "),
            d.completed.join(" ")
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}
