//! The fairness player's motion scene and narration: each tenant's waiting
//! requests on the left (one row per tenant, with the scheduler's key for it,
//! the reason its next request goes first or waits), the engine's slots on
//! the right (a square while a sequence computes its prompt, a circle while
//! it decodes), and the GPU time so far as one bar split by tenant.

use sim_core::labs::fairness::{Config, Moment, Scheduler, SchedulerRun, Snapshot, TENANTS};

use crate::ui::format::{fixed, thousands};
use crate::ui::scene::small_label as label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Rect, Scene};

fn name(t: u32) -> &'static str {
    TENANTS.get(t as usize).map_or("?", |s| s.name)
}

/// Tenant `t`'s key under `scheduler`, in words ("" for FCFS).
fn key_text(scheduler: Scheduler, key: f64) -> String {
    match scheduler {
        Scheduler::Fcfs => String::new(),
        Scheduler::Rpm => format!("{} requests in the window", fixed(key, 0)),
        Scheduler::Tpm => format!("{} tokens in the window", thousands(key as u64)),
        Scheduler::Vtc => format!("counter {}", thousands(key as u64)),
        Scheduler::Priority if key == 0.0 => "interactive".into(),
        Scheduler::Priority => "batch".into(),
    }
}

/// Why the scheduler's first pick of an iteration went where it did.
fn reason(run: &SchedulerRun, s: &Snapshot) -> String {
    let Some(&t) = s.admitted.first() else {
        return String::new();
    };
    let what = match run.scheduler {
        Scheduler::Fcfs => {
            return format!(
                " A slot went to {}: its request was the oldest waiting.",
                name(t)
            )
        }
        Scheduler::Rpm => "the fewest requests admitted in the window",
        Scheduler::Tpm => "the fewest tokens in the window",
        Scheduler::Vtc => "the least weighted service (the lowest counter)",
        Scheduler::Priority => "interactive requests go before batch ones",
    };
    let others: Vec<String> = (0..s.keys.len() as u32)
        .filter(|&u| u != t)
        .map(|u| {
            format!(
                "{} {}",
                name(u),
                key_text(run.scheduler, s.keys[u as usize])
            )
        })
        .collect();
    let mut out = format!(
        " A slot went to {} ({}): {what}",
        name(t),
        key_text(run.scheduler, s.keys[t as usize])
    );
    if run.scheduler != Scheduler::Priority && !others.is_empty() {
        out.push_str(&format!("; the others: {}", others.join(", ")));
    }
    out.push('.');
    out
}

/// What iteration `i` (0-based) of `run` means, in a few sentences.
pub fn narrate(run: &SchedulerRun, i: usize) -> String {
    let Some(s) = run.steps().get(i) else {
        return String::new();
    };
    let running = s.slots.iter().flatten().count();
    let prefilling = s.slots.iter().flatten().filter(|x| x.prefilling).count();
    let waiting: u32 = s.waiting.iter().sum();
    let mut out = format!(
        "Iteration {}: {running} of {} slots busy ({prefilling} computing prompts, {} decoding); {waiting} requests waiting.",
        i + 1,
        s.slots.len(),
        running - prefilling
    );
    if let Some(v) = s.evicted {
        out.push_str(&format!(
            " Strict priority evicted a {} sequence to free a slot for chat; it waits again and will start over.",
            name(v)
        ));
    }
    out.push_str(&reason(run, s));
    if s.admitted.len() > 1 {
        out.push_str(&format!(
            " {} requests took slots in all.",
            s.admitted.len()
        ));
    }
    if let Some(m) = s.moment {
        out.push(' ');
        out.push_str(&moment_words(&m));
    }
    out
}

/// A key moment, explained.
fn moment_words(m: &Moment) -> String {
    match *m {
        Moment::Overtake {
            picked,
            passed,
            older,
        } => format!(
            "Key moment: {} was served although {} had a request waiting {older} iterations longer. \
             Arrival order no longer decides; the scheduler's count of what each tenant has had does.",
            name(picked),
            name(passed)
        ),
        Moment::Preemption { victim, by, lost } => format!(
            "Key moment: a {} request arrived with every slot busy, so the newest {} sequence was \
             evicted. The {lost} tokens it had computed are thrown away: it will compute them again.",
            name(by),
            name(victim)
        ),
        Moment::PrefixMiss { since, tokens } => format!(
            "Key moment: a shared-prompt request found its {tokens}-token system prompt gone from \
             the cache, {since} iterations after it last hit. Other tenants' prompts pushed it out, \
             so it is computed again: interleaving tenants for fairness costs cache reuse."
        ),
    }
}

/// Height of one tenant's row of waiting requests.
const ROW_H: f64 = 32.0;

/// The scene of iteration `i` (0-based) at `width` pixels.
pub fn scene(
    run: &SchedulerRun,
    config: &Config,
    i: usize,
    width: f64,
    pal: &Palette,
) -> Option<Scene> {
    let s = run.steps().get(i)?;
    let mut scene = Scene::default();
    let narrow = width < 560.0;
    // Queues: the full width when narrow (the engine goes below), else 55%.
    let qw = if narrow { width } else { width * 0.55 };
    let queues_h = queues(&mut scene, run, s, qw, pal);
    let (ex, ey) = if narrow {
        (8.0, queues_h + 10.0)
    } else {
        (qw + 16.0, 0.0)
    };
    let mut y = engine(&mut scene, config, s, (ex, ey), width - ex - 8.0, pal);
    if let Some(v) = s.evicted {
        scene.labels.push(label(
            ex,
            y,
            format!("evicted: {}", name(v)),
            &pal.warn,
            false,
        ));
        y += 18.0;
    }
    let bar_y = y.max(queues_h) + 14.0;
    gpu_bar(&mut scene, s, bar_y, width, pal);
    scene.height = bar_y + 44.0;
    Some(scene)
}

/// Each tenant's waiting requests in a row `qw` wide, with the scheduler's
/// key for it; returns the rows' bottom.
fn queues(scene: &mut Scene, run: &SchedulerRun, s: &Snapshot, qw: f64, pal: &Palette) -> f64 {
    let cell = 10.0;
    let cols = (((qw - 24.0) / (cell + 3.0)) as usize).max(4);
    scene.labels.push(label(
        8.0,
        12.0,
        "Waiting, per tenant".into(),
        &pal.fg,
        false,
    ));
    for (t, &n) in s.waiting.iter().enumerate() {
        let y0 = 30.0 + t as f64 * ROW_H;
        let color = replica_hex(t);
        let key = s
            .keys
            .get(t)
            .map(|&k| key_text(run.scheduler, k))
            .unwrap_or_default();
        let text = if key.is_empty() {
            format!("{} · {n}", name(t as u32))
        } else {
            format!("{} · {n} · {key}", name(t as u32))
        };
        scene.labels.push(label(8.0, y0, text, &pal.fg, false));
        let shown = (n as usize).min(cols);
        for j in 0..shown {
            scene.marks.push(Mark {
                part: None,
                id: ((t as u64) << 32) | j as u64,
                x: 12.0 + j as f64 * (cell + 3.0),
                y: y0 + 14.0,
                r: cell / 2.0,
                fill: color.to_string(),
                ring: None,
                square: true,
                from: Some((qw, y0 + 14.0)),
                text: None,
            });
        }
        if n as usize > shown {
            scene.labels.push(label(
                qw - 30.0,
                y0,
                format!("+{}", n as usize - shown),
                &pal.muted,
                false,
            ));
        }
    }
    30.0 + s.waiting.len() as f64 * ROW_H
}

/// The engine's slots from `(ex, ey)`, `ew` wide (each sequence flies in
/// from its tenant's row); returns the y under them.
fn engine(
    scene: &mut Scene,
    config: &Config,
    s: &Snapshot,
    (ex, ey): (f64, f64),
    ew: f64,
    pal: &Palette,
) -> f64 {
    let slot = 30.0;
    let per_row = ((ew / (slot + 6.0)) as usize).clamp(1, 8);
    // Whether the shared prompt is cached goes on the engine's line.
    let prefix = match (
        config.shapes().iter().any(|t| t.prefix > 0),
        s.prefix_cached,
    ) {
        (false, _) => "",
        (true, true) => " · shared prompt cached",
        (true, false) => " · shared prompt not cached",
    };
    scene.labels.push(label(
        ex,
        ey + 12.0,
        format!("Engine · {} slots{prefix}", s.slots.len()),
        &pal.fg,
        false,
    ));
    for (k, seat) in s.slots.iter().enumerate() {
        let x = ex + (k % per_row) as f64 * (slot + 6.0);
        let y = ey + 26.0 + (k / per_row) as f64 * (slot + 6.0);
        scene.rects.push(Rect {
            x,
            y,
            w: slot,
            h: slot,
            fill: Some(pal.panel.clone()),
            stroke: Some(pal.border.clone()),
            line: 1.0,
        });
        if let Some(seat) = seat {
            scene.marks.push(Mark {
                part: None,
                id: (1 << 48) | ((k as u64) << 8) | u64::from(seat.tenant),
                x: x + slot / 2.0,
                y: y + slot / 2.0,
                r: slot / 2.0 - 4.0,
                fill: replica_hex(seat.tenant as usize).to_string(),
                ring: seat.cached.then(|| pal.accent.clone()),
                square: seat.prefilling,
                from: Some((ex, 30.0 + f64::from(seat.tenant) * ROW_H + 14.0)),
                text: None,
            });
        }
    }
    let rows = s.slots.len().div_ceil(per_row) as f64;
    ey + 26.0 + rows * (slot + 6.0) + 8.0
}

/// GPU time so far, one bar at `bar_y` split by tenant.
fn gpu_bar(scene: &mut Scene, s: &Snapshot, bar_y: f64, width: f64, pal: &Palette) {
    scene
        .labels
        .push(label(8.0, bar_y, "GPU time so far".into(), &pal.fg, false));
    let total: f64 = s.gpu.iter().sum();
    let (mut x, bw) = (8.0, width - 16.0);
    for (t, &g) in s.gpu.iter().enumerate() {
        if total <= 0.0 {
            break;
        }
        let w = bw * g / total;
        scene.rects.push(Rect {
            x,
            y: bar_y + 10.0,
            w,
            h: 14.0,
            fill: Some(replica_hex(t).to_string()),
            stroke: None,
            line: 0.0,
        });
        if w > 36.0 {
            scene.labels.push(label(
                x + w / 2.0,
                bar_y + 34.0,
                format!("{:.0}%", 100.0 * g / total),
                &pal.muted,
                true,
            ));
        }
        x += w;
    }
}
