//! The LoRA player's motion scene and narration: one column per replica
//! with its adapter slots as numbered cells (the slot loading now ringed),
//! its batch as a count and its queue as a bar, and this tick's routing
//! decisions as lines from the router.

use sim_core::labs::lora::{moment_text, Config, Moment, RuleRun, Snapshot, TICK_MS};

use crate::ui::scene::small_label as label;
use crate::ui::stage::Line;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Place, Rect, Scene};

fn clock(t: usize) -> String {
    crate::ui::format::fixed(t as f64 * f64::from(TICK_MS) / 1000.0, 2) + " s"
}

/// What tick `t` of `run` means, in a few sentences.
pub fn narrate(run: &RuleRun, c: &Config, t: usize) -> String {
    let Some(s) = run.timeline.as_ref().and_then(|tl| tl.get(t)) else {
        return String::new();
    };
    let loading = s.replicas.iter().filter(|r| r.loading.is_some()).count();
    let waiting: u32 = s.replicas.iter().map(|r| r.waiting).sum();
    let mut out = format!(
        "At {}: {} requests arrived this tick; {waiting} wait over the pool; {loading} of {} replicas are stalled loading an adapter; {} cold loads so far.",
        clock(t),
        s.routed.len(),
        c.replicas,
        s.cold_loads
    );
    if let Some(r) = s.routed.first() {
        out.push_str(&format!(
            " Adapter {} went to replica {}: {}.",
            r.adapter,
            r.decision.replica + 1,
            r.decision.reason.explain()
        ));
    }
    if let Some(m) = &s.moment {
        out.push_str(" Key moment: ");
        out.push_str(&moment_text(m));
        out.push('.');
    }
    out
}

/// The scene of tick `t` at `width` pixels.
pub fn scene(run: &RuleRun, c: &Config, t: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let s: &Snapshot = run.timeline.as_ref()?.get(t)?;
    let n = s.replicas.len().max(1);
    let mut scene = Scene::default();
    scene.labels.push(label(
        8.0,
        14.0,
        format!(
            "Router · {} · {} routed this tick",
            clock(t),
            s.routed.len()
        ),
        &pal.fg,
        false,
    ));
    let gate = (width / 2.0, 22.0);
    let top = 70.0;
    let column = (width - 8.0) / n as f64;
    let slots = c.lora_slots.min(16) as usize;
    // Four slots a row where the column is wide enough, so eight slots
    // take two rows and an embed stays short.
    let cols = if column >= 60.0 { 4 } else { 2 };
    let cell = ((column - 10.0) / cols as f64 - 2.0).clamp(8.0, 22.0);
    let rows = slots.div_ceil(cols);
    let box_w = cols as f64 * (cell + 2.0) + 6.0;
    let box_h = rows as f64 * (cell + 2.0) + 8.0;
    let hot = match s.moment {
        Some(Moment::HotSpot { replica, .. })
        | Some(Moment::ColdCopy { replica, .. })
        | Some(Moment::Swap { replica }) => Some(replica as usize),
        None => None,
    };
    for (p, r) in s.replicas.iter().enumerate() {
        let x = 4.0 + column * (p as f64 + 0.5);
        scene
            .labels
            .push(label(x, top - 28.0, format!("R{}", p + 1), &pal.fg, true));
        scene.places.push(Place {
            panel: 0,
            replica: p as u32,
            x: x - box_w / 2.0,
            y: top - 36.0,
            w: box_w,
            h: box_h + 52.0,
        });
        scene.rects.push(Rect {
            x: x - box_w / 2.0,
            y: top,
            w: box_w,
            h: box_h,
            fill: Some(pal.panel.clone()),
            stroke: Some(if hot == Some(p) {
                pal.accent.clone()
            } else {
                pal.border.clone()
            }),
            line: if hot == Some(p) { 2.5 } else { 1.0 },
        });
        for (j, &a) in r.resident.iter().enumerate().take(slots) {
            let (col, row) = (j % cols, j / cols);
            scene.marks.push(Mark {
                part: None,
                id: (1 << 40) | ((p as u64) << 16) | u64::from(a),
                x: x - box_w / 2.0 + 4.0 + (col as f64 + 0.5) * (cell + 2.0),
                y: top + 4.0 + (row as f64 + 0.5) * (cell + 2.0),
                r: cell / 2.0,
                fill: replica_hex(usize::from(a).saturating_sub(1)).to_string(),
                ring: (r.loading == Some(a)).then(|| pal.accent.clone()),
                square: true,
                from: Some(gate),
                text: (cell >= 12.0).then(|| a.to_string()),
            });
        }
        crate::ui::scene::queue_bar(
            &mut scene,
            x,
            top,
            box_w,
            r.waiting,
            2.0 * f64::from(c.slots),
            column >= 34.0,
            pal,
        );
        scene.labels.push(label(
            x,
            top + box_h + 14.0,
            format!("{} run", r.running),
            &pal.muted,
            true,
        ));
    }
    for d in &s.routed {
        let x = 4.0 + column * (f64::from(d.decision.replica) + 0.5);
        scene.lines.push(Line {
            from: gate,
            to: (x, top - 20.0),
            color: replica_hex(usize::from(d.adapter).saturating_sub(1)).to_string(),
            width: 1.5,
        });
    }
    let foot = top + box_h + 34.0;
    scene.labels.push(label(
        8.0,
        foot,
        format!(
            "{} cold loads so far · routed by {}",
            s.cold_loads,
            run.rule_title()
        ),
        &pal.muted,
        false,
    ));
    scene.height = foot + 12.0;
    Some(scene)
}

/// The rule's title in lower case, for running text.
trait Titled {
    fn rule_title(&self) -> String;
}

impl Titled for RuleRun {
    fn rule_title(&self) -> String {
        use sim_core::choice::Choice;
        self.rule.title().to_ascii_lowercase()
    }
}
