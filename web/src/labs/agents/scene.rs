//! The agent-sessions player's motion scene and narration: the gateway on
//! top with the calls it holds for a cap, and one column per replica with a
//! cell per slot (a subagent's call in the accent colour, any other in the
//! replica's) and a bar and count of its queue above.

use sim_core::choice::Choice;
use sim_core::labs::agents::{Config, Key, KeyRun, Moment, Snapshot, FRAME_MS};

use crate::ui::scene::small_label as label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Place, Rect, Scene};

fn clock(step: usize) -> String {
    crate::ui::format::fixed(step as f64 * FRAME_MS as f64 / 1000.0, 1) + " s"
}

/// What step `t` of `run` means, in a few sentences.
pub fn narrate(run: &KeyRun, c: &Config, t: usize) -> String {
    let Some(s) = run.timeline.get(t) else {
        return String::new();
    };
    let running: u32 = s.pool.iter().map(|p| p.running).sum();
    let waiting: u32 = s.pool.iter().map(|p| p.waiting).sum();
    let mut out = format!(
        "At {}: {} sessions under way; {running} calls run in the replicas' batches and {waiting} wait in their queues.",
        clock(t),
        s.active
    );
    if s.held > 0 {
        out.push_str(&format!(
            " The gateway holds {} more for the per-session cap of {}.",
            s.held, c.cap
        ));
    }
    if let Some(m) = s.moment {
        out.push(' ');
        out.push_str(&moment_words(&m, run.key, c));
    }
    out
}

/// A key moment, explained.
fn moment_words(m: &Moment, key: Key, c: &Config) -> String {
    let Moment::Burst {
        session,
        children,
        sent,
        replicas,
        busiest,
        took,
        waiting,
        free,
    } = *m;
    let mut out = format!(
        "Key moment: session {} fans out to {children} subagents at once.",
        session + 1
    );
    if sent < children {
        out.push_str(&format!(
            " The cap lets {sent} go now and holds {} at the gateway until they finish.",
            children - sent
        ));
    }
    let why = match key {
        Key::Prefix => " They share the planner's prefix, and the prefix key sends every call with that prefix to the same replica.",
        Key::Bounded => " The load-bounded key sends them where the planner's prefix is cached until that replica is too far ahead of the least busy.",
        Key::Conversation => " Each subagent is a conversation of its own, so the hash scatters them and most miss the planner's cached context.",
        Key::Load => " Load alone decides, so they spread over the least busy replicas.",
    };
    if replicas == 1 {
        out.push_str(&format!(" All {took} go to replica {}.{why}", busiest + 1));
    } else {
        out.push_str(&format!(
            " They go to {replicas} replicas, at most {took} to replica {}.{why}",
            busiest + 1
        ));
    }
    if waiting > 0 {
        out.push_str(&format!(
            " {waiting} {} in its queue for one of its {} slots while {free} {} free on the other replicas.",
            if waiting == 1 { "call waits" } else { "calls wait" },
            c.slots,
            if free == 1 { "slot is" } else { "slots are" }
        ));
    } else {
        out.push_str(" Nothing waits: each replica had room.");
    }
    out
}

/// The scene of step `t` at `width` pixels.
pub fn scene(run: &KeyRun, c: &Config, t: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let s: &Snapshot = run.timeline.get(t)?;
    let places = s.pool.len().max(1);
    let mut scene = Scene::default();
    let held = if s.held > 0 {
        format!(" · {} held by the cap", s.held)
    } else {
        String::new()
    };
    scene.labels.push(label(
        8.0,
        14.0,
        format!("Gateway · {} · {} calls issued{held}", clock(t), s.issued),
        &pal.fg,
        false,
    ));
    let gate = (width / 2.0, 24.0);
    let top = 66.0;
    let column = (width - 8.0) / places as f64;
    let slots = c.slots as usize;
    let cols = if column >= 40.0 { 4 } else { 2 };
    let shown = slots.min(64);
    let rows = shown.div_ceil(cols);
    let cell = ((column - 8.0) / cols as f64 - 2.0).clamp(3.0, 12.0);
    let box_w = cols as f64 * (cell + 2.0) + 4.0;
    let box_h = rows as f64 * (cell + 2.0) + 6.0;
    let busiest = s
        .moment
        .map(|Moment::Burst { busiest, .. }| busiest as usize);
    for (p, spot) in s.pool.iter().enumerate() {
        let x = 4.0 + column * (p as f64 + 0.5);
        scene
            .labels
            .push(label(x, top - 26.0, format!("R{}", p + 1), &pal.fg, true));
        scene.places.push(Place {
            panel: 0,
            replica: p as u32,
            x: x - box_w / 2.0,
            y: top - 34.0,
            w: box_w,
            h: box_h + 34.0,
        });
        scene.rects.push(Rect {
            x: x - box_w / 2.0,
            y: top,
            w: box_w,
            h: box_h,
            // Filled as the routing lanes are: an empty replica's box must
            // still show against a dark page, where the border alone is faint.
            fill: Some(pal.panel.clone()),
            stroke: Some(if busiest == Some(p) {
                pal.accent.clone()
            } else {
                pal.border.clone()
            }),
            line: if busiest == Some(p) { 2.5 } else { 1.0 },
        });
        let others = spot.running - spot.children.min(spot.running);
        for j in 0..(spot.running as usize).min(shown) {
            let (col, row) = (j % cols, j / cols);
            scene.marks.push(Mark {
                part: None,
                id: (1 << 40) | ((p as u64) << 16) | j as u64,
                x: x - box_w / 2.0 + 3.0 + (col as f64 + 0.5) * (cell + 2.0),
                y: top + box_h - 3.0 - (row as f64 + 0.5) * (cell + 2.0),
                r: cell / 2.0,
                fill: if j < others as usize {
                    replica_hex(p).to_string()
                } else {
                    pal.accent.clone()
                },
                ring: None,
                square: true,
                from: Some(gate),
                text: None,
            });
        }
        // The queue's bar is full at two batches.
        let full = 2.0 * f64::from(c.slots);
        crate::ui::scene::queue_bar(
            &mut scene,
            x,
            top,
            box_w,
            spot.waiting,
            full,
            column >= 34.0,
            pal,
        );
    }
    let foot = top + box_h + 18.0;
    let waiting: u32 = s.pool.iter().map(|p| p.waiting).sum();
    scene.labels.push(label(
        8.0,
        foot,
        format!(
            "{} sessions under way · {waiting} calls waiting · keyed on {}",
            s.active,
            run.key.title().to_ascii_lowercase()
        ),
        &pal.muted,
        false,
    ));
    scene.height = foot + 12.0;
    Some(scene)
}
