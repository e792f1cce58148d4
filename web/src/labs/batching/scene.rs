//! The batching player's motion scene and narration: the waiting queue on
//! the left, one row per batch slot in the middle (the request in it coloured
//! by what it did this iteration, its output tokens filling in beside it),
//! finished requests on the right.

use sim_core::choice::Choice;
use sim_core::labs::batching::{BatchEvent, BatchMoment, ModeRun, Outcome, SlotState};

use crate::ui::stage::Label;
use crate::ui::{Mark, Palette, Rect, Scene};

/// A stable id for request `label` (and token `j` of it, from 1).
fn id(label: &str, token: u64) -> u64 {
    // FNV-1a over the label: labels are short and unique within a trace.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (h & 0xffff_ffff_ffff_f000) | token.min(0xfff)
}

/// The narration of iteration `i` (0-based index) of `run`.
pub fn narrate(run: &ModeRun, i: usize) -> String {
    let Some(d) = run.iterations_detail.get(i) else {
        return String::new();
    };
    let mut out = format!(
        "Iteration {} ({}):",
        d.iteration,
        // ASCII: the titles are ours (Unicode case tables are bulky).
        run.mode.title().to_ascii_lowercase()
    );
    let mut said = Vec::new();
    for e in &d.events {
        said.push(match e {
            BatchEvent::Admitted { label, slot } => format!("{label} takes slot {}", slot + 1),
            BatchEvent::PrefillDone { label } => format!("{label} finishes its prefill"),
            BatchEvent::FirstToken { label } => format!("{label} emits its first token"),
            BatchEvent::Finished { label } => format!("{label} finishes and frees its slot"),
        });
    }
    let stalled: Vec<&str> = d
        .slots
        .iter()
        .filter_map(|s| match s {
            SlotState::Stalled { label } => Some(label.as_str()),
            _ => None,
        })
        .collect();
    if !stalled.is_empty() {
        said.push(format!(
            "{} wait{} for the prefill",
            stalled.join(", "),
            if stalled.len() == 1 { "s" } else { "" }
        ));
    }
    if said.is_empty() {
        out.push_str(" every sequence in a slot steps once.");
    } else {
        out.push(' ');
        out.push_str(&said.join("; "));
        out.push('.');
    }
    out.push_str(&format!(
        " {} token{} out.",
        d.output_tokens,
        if d.output_tokens == 1 { "" } else { "s" }
    ));
    match d.moment {
        Some(BatchMoment::IdleWhileWaiting { idle, waiting }) => out.push_str(&format!(
            " {idle} slot{} sit{} empty while {waiting} request{} wait{}: this mode admits only when it may.",
            if idle == 1 { "" } else { "s" },
            if idle == 1 { "s" } else { "" },
            if waiting == 1 { "" } else { "s" },
            if waiting == 1 { "s" } else { "" },
        )),
        Some(BatchMoment::ZeroOutput) => out.push_str(
            " Zero-output iteration: the slots are busy, yet no token comes out.",
        ),
        None => {
            // The same conditions, continuing from an earlier iteration.
            let idle = d.slots.iter().filter(|s| **s == SlotState::Idle).count();
            if idle > 0 && !d.waiting.is_empty() {
                out.push_str(" Slots still sit empty while requests wait.");
            } else if d.zero_output && idle < d.slots.len() {
                out.push_str(" Still no token out: the slots are busy with prefill.");
            }
        }
    }
    out
}

/// The scene of iteration `i` of `run`.
pub fn scene(o: &Outcome, run: &ModeRun, i: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let d = run.iterations_detail.get(i)?;
    let slots = d.slots.len();
    let row = 30.0;
    let top = 26.0;
    let queue_w = (width * 0.16).clamp(56.0, 120.0);
    let done_w = (width * 0.16).clamp(56.0, 120.0);
    let mid_x = 8.0 + queue_w + 8.0;
    let mid_w = width - 16.0 - queue_w - done_w - 16.0;
    let most_tokens = o.trace.iter().map(|r| r.output).max().unwrap_or(1).max(1);
    let mut scene = Scene {
        height: top + slots.max(2) as f64 * row + 12.0,
        ..Scene::default()
    };
    let heading = |x: f64, text: &str| Label {
        x,
        y: 10.0,
        text: text.to_string(),
        color: pal.muted.clone(),
        size: 11.0,
        bold: true,
        centre: false,
    };
    scene.labels.push(heading(8.0, "Waiting"));
    scene
        .labels
        .push(heading(mid_x, "Batch slots (tokens out so far)"));
    scene.labels.push(heading(width - 8.0 - done_w, "Finished"));
    let r = 9.0;
    let queue_at = |j: usize| {
        let per_row = ((queue_w - 4.0) / (2.0 * r + 4.0)).floor().max(1.0) as usize;
        (
            8.0 + r + 2.0 + (j % per_row) as f64 * (2.0 * r + 4.0),
            top + r + 2.0 + (j / per_row) as f64 * (2.0 * r + 4.0),
        )
    };
    for (j, label) in d.waiting.iter().enumerate() {
        let (x, y) = queue_at(j);
        scene
            .marks
            .push(request(label, x, y, r, &pal.waiting, None));
    }
    let done_at = |j: usize| {
        let per_row = ((done_w - 4.0) / (2.0 * r + 4.0)).floor().max(1.0) as usize;
        (
            width - 8.0 - done_w + r + 2.0 + (j % per_row) as f64 * (2.0 * r + 4.0),
            top + r + 2.0 + (j / per_row) as f64 * (2.0 * r + 4.0),
        )
    };
    for (j, label) in d.completed.iter().enumerate() {
        let (x, y) = done_at(j);
        scene.marks.push(request(label, x, y, r, &pal.done, None));
    }
    let token_w = ((mid_w - 2.0 * r - 20.0) / f64::from(most_tokens)).clamp(3.0, 14.0);
    for (k, s) in d.slots.iter().enumerate() {
        let y = top + k as f64 * row + row / 2.0;
        scene.rects.push(Rect {
            x: mid_x,
            y: y - row / 2.0 + 2.0,
            w: mid_w,
            h: row - 4.0,
            fill: Some(pal.panel.clone()),
            stroke: Some(pal.border.clone()),
            line: 1.0,
        });
        let (label, fill, ring) = match s {
            SlotState::Idle => {
                let waiting = !d.waiting.is_empty();
                scene.labels.push(Label {
                    x: mid_x + 8.0,
                    y,
                    text: if waiting {
                        "empty while requests wait".into()
                    } else {
                        "empty".into()
                    },
                    color: if waiting {
                        pal.warn.clone()
                    } else {
                        pal.muted.clone()
                    },
                    size: 11.0,
                    bold: waiting,
                    centre: false,
                });
                continue;
            }
            SlotState::Prefill { label } => (label, &pal.prefill, None),
            SlotState::Decode { label } => (label, &pal.decode, None),
            SlotState::Stalled { label } => (label, &pal.waiting, Some(pal.warn.clone())),
        };
        let x = mid_x + 6.0 + r;
        scene.marks.push(request(label, x, y, r, fill, ring));
        // Tokens this request has emitted up to now, one square each.
        let emitted = run.iterations_detail[..=i]
            .iter()
            .filter(|it| {
                it.slots
                    .iter()
                    .any(|st| matches!(st, SlotState::Decode { label: l } if l == label))
            })
            .count();
        for j in 0..emitted {
            scene.marks.push(Mark {
                part: None,
                id: id(label, j as u64 + 1),
                x: x + r + 8.0 + (j as f64 + 0.5) * token_w,
                y,
                r: (token_w / 2.0 - 1.0).clamp(1.0, 5.0),
                fill: pal.decode.clone(),
                ring: None,
                square: true,
                from: Some((x, y)),
                text: None,
            });
        }
    }
    Some(scene)
}

fn request(label: &str, x: f64, y: f64, r: f64, fill: &str, ring: Option<String>) -> Mark {
    Mark {
        part: None,
        id: id(label, 0),
        x,
        y,
        r,
        fill: fill.to_string(),
        ring,
        square: false,
        from: None,
        text: Some(label.to_string()),
    }
}
