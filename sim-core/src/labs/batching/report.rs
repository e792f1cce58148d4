//! The batching player as plain text (the CLI's output, the golden file) and CSV.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{ModeRun, Outcome, SlotState};
use crate::choice::Choice;

/// The modes compared, preceded by the trace; with `detail`, every iteration
/// of each mode.
pub fn text(o: &Outcome, detail: bool) -> String {
    let mut s = format!(
        "Batching player: {} slots, chunk budget {} ({} first), trace:",
        o.config.slots,
        o.config.chunk_budget,
        if o.config.prefill_first {
            "prefill"
        } else {
            "decode"
        }
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
    if detail {
        for m in &o.modes {
            s.push('\n');
            s.push_str(&iterations(m));
        }
    }
    s
}

fn slot_text(s: &SlotState) -> String {
    match s {
        SlotState::Idle => String::from("idle"),
        SlotState::Prefill { label } => format!("{label}·prefill"),
        SlotState::Decode { label } => format!("{label}·decode"),
        SlotState::Stalled { label } => format!("{label}·stalled"),
    }
}

/// One mode's iterations as a text table.
pub fn iterations(m: &ModeRun) -> String {
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

/// One row per mode.
pub fn csv(o: &Outcome) -> String {
    let mut s = String::from("mode,iterations,zero_output_iterations,slot_occupancy,mean_gap\n");
    for m in &o.modes {
        s.push_str(&format!(
            "{},{},{},{},{}\n",
            m.mode.name(),
            m.iterations,
            m.zero_output_iterations,
            m.slot_occupancy,
            m.mean_gap
        ));
    }
    s
}
