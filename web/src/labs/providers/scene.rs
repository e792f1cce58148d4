//! The providers player's motion scene and narration: the client's router
//! at the top, one column per rented deployment (how full its capacity or
//! quota is, the calls it runs and has served, and how long it is still out
//! of rotation), this tick's calls as lines from the router, and the bill.

use sim_core::labs::providers::{moment_text, Config, Flow, Snapshot, StrategyRun, TICK_MS};

use crate::ui::format::{fixed, thousands};
use crate::ui::scene::small_label as label;
use crate::ui::stage::Line;
use crate::ui::{Mark, Palette, Place, Rect, Scene};

/// Where the deployments' boxes start, below the router and the names.
const TOP: f64 = 96.0;
/// A deployment box's height: its state line and its gauge.
const BOX_H: f64 = 36.0;

fn clock(t: usize) -> String {
    fixed(t as f64 * TICK_MS as f64 / 1000.0, 1) + " s"
}

/// "1 call", "3 calls".
fn calls(n: u16) -> String {
    if n == 1 {
        "1 call".into()
    } else {
        format!("{n} calls")
    }
}

/// What a refusal's status means, in a few words.
fn status_words(status: u16) -> &'static str {
    match status {
        429 => "over its capacity or quota",
        400 => "the prompt is too long for it",
        500..=599 => "a server error",
        _ => "refused",
    }
}

/// One routed call in a sentence.
fn flow_text(f: &Flow, names: &[String]) -> String {
    let name = (f.deployment != u8::MAX)
        .then(|| names.get(usize::from(f.deployment)))
        .flatten();
    let Some(name) = name else {
        return format!(
            "Conversation {} found no deployment in service and was answered {}.",
            f.conv, f.status
        );
    };
    let why = f.why.explain(names);
    if f.status == 200 {
        format!(
            "Conversation {} went to {name}: {why}; it read {} of {} prompt tokens from the provider's cache.",
            f.conv,
            thousands(f.cached.into()),
            thousands(f.prompt.into())
        )
    } else {
        format!(
            "Conversation {} went to {name}: {why}; it was answered {} ({}).",
            f.conv,
            f.status,
            status_words(f.status)
        )
    }
}

/// What tick `t` of `run` means, in a few sentences (`names`: the
/// deployments' names).
pub fn narrate(run: &StrategyRun, names: &[String], t: usize) -> String {
    let Some(s) = run.timeline.as_ref().and_then(|tl| tl.get(t)) else {
        return String::new();
    };
    let mut out = format!(
        "At {}: {} routed this tick; the bill is ${}.",
        clock(t),
        calls(s.routed),
        fixed(f64::from(s.cost), 2)
    );
    if let Some(f) = s.flows.first() {
        out.push(' ');
        out.push_str(&flow_text(f, names));
    }
    if let Some(m) = &s.moment {
        out.push_str(" Key moment: ");
        out.push_str(&moment_text(m, names));
        out.push('.');
    }
    out
}

/// Deployment `d`'s name as two short lines: what it is, and its region
/// when there are two (`r2` where the column is narrow).
fn name_lines(c: &Config, d: usize, wide: bool) -> (String, Option<String>) {
    let region = c.region(d) + 1;
    let line = match wide {
        true => format!("region {region}"),
        false => format!("r{region}"),
    };
    (c.label(d), (c.regions > 1).then_some(line))
}

/// The client's router: a box at the top centre; returns where lines start.
fn router(scene: &mut Scene, width: f64, pal: &Palette) -> (f64, f64) {
    let w = 130.0_f64.min(width - 16.0);
    scene.rects.push(Rect {
        x: width / 2.0 - w / 2.0,
        y: 4.0,
        w,
        h: 24.0,
        fill: Some(pal.panel.clone()),
        stroke: Some(pal.border.clone()),
        line: 1.0,
    });
    scene.labels.push(label(
        width / 2.0,
        16.0,
        "Client / router".into(),
        &pal.fg,
        true,
    ));
    (width / 2.0, 28.0)
}

/// Deployment `d`'s column centred on `x`: name, box, gauge and counts.
fn deployment(
    scene: &mut Scene,
    (d, x, box_w): (usize, f64, f64),
    snap: &sim_core::labs::providers::DepSnap,
    c: &Config,
    wide: bool,
    pal: &Palette,
) {
    let (what, region) = name_lines(c, d, wide);
    scene.labels.push(label(x, TOP - 22.0, what, &pal.fg, true));
    if let Some(region) = region {
        scene
            .labels
            .push(label(x, TOP - 9.0, region, &pal.muted, true));
    }
    scene.places.push(Place {
        panel: 0,
        replica: d as u32,
        x: x - box_w / 2.0,
        y: TOP - 30.0,
        w: box_w,
        h: BOX_H + 64.0,
    });
    let out = snap.out_ms > 0;
    scene.rects.push(Rect {
        x: x - box_w / 2.0,
        y: TOP,
        w: box_w,
        h: BOX_H,
        fill: Some(pal.panel.clone()),
        stroke: Some(if out { &pal.accent } else { &pal.border }.clone()),
        line: if out { 2.5 } else { 1.0 },
    });
    let fill = f64::from(snap.fill).max(0.0);
    let state = match (out, wide) {
        (true, true) => format!("OUT {} s", fixed(f64::from(snap.out_ms) / 1000.0, 1)),
        (true, false) => "OUT".into(),
        (false, true) => format!("load {}%", fixed(fill * 100.0, 0)),
        (false, false) => format!("{}%", fixed(fill * 100.0, 0)),
    };
    let mut state = label(
        x,
        TOP + 11.0,
        state,
        if out { &pal.accent } else { &pal.fg },
        true,
    );
    state.bold = out;
    scene.labels.push(state);
    // The gauge: the reserved utilisation or the metered quota spent, red
    // once the deployment refuses.
    let gw = box_w - 8.0;
    scene.rects.push(Rect {
        x: x - gw / 2.0,
        y: TOP + 21.0,
        w: gw,
        h: 9.0,
        fill: None,
        stroke: Some(pal.border.clone()),
        line: 1.0,
    });
    if fill > 0.0 {
        scene.rects.push(Rect {
            x: x - gw / 2.0,
            y: TOP + 21.0,
            w: gw * fill.min(1.0),
            h: 9.0,
            fill: Some(if fill >= 1.0 { &pal.warn } else { &pal.decode }.clone()),
            stroke: None,
            line: 0.0,
        });
    }
    let (flying, served) = if wide {
        (
            format!("{} in flight", snap.in_flight),
            format!("{} served", thousands(snap.served.into())),
        )
    } else {
        (snap.in_flight.to_string(), thousands(snap.served.into()))
    };
    scene
        .labels
        .push(label(x, TOP + BOX_H + 13.0, flying, &pal.fg, true));
    scene
        .labels
        .push(label(x, TOP + BOX_H + 27.0, served, &pal.muted, true));
}

/// This tick's calls: a line from the router to each deployment that got
/// one (green when served, red when refused), and a dot there whose wedge
/// is the share of its prompt read from the cache.
fn flows(
    scene: &mut Scene,
    s: &Snapshot,
    gate: (f64, f64),
    column: f64,
    box_w: f64,
    pal: &Palette,
) {
    let n = s.deps.len();
    let mut count = vec![0usize; n];
    for f in &s.flows {
        if let Some(c) = count.get_mut(usize::from(f.deployment)) {
            *c += 1;
        }
    }
    let mut seen = vec![0usize; n];
    for (i, f) in s.flows.iter().enumerate() {
        let d = usize::from(f.deployment);
        // u8::MAX (no backend in service) and anything out of range: no line.
        if f.deployment == u8::MAX || d >= n {
            continue;
        }
        let k = seen[d] as f64 - (count[d] as f64 - 1.0) / 2.0;
        seen[d] += 1;
        let room = (box_w / 2.0 - 4.0).max(0.0);
        let x = 4.0 + column * (d as f64 + 0.5) + (k * 9.0).clamp(-room, room);
        let to = (x, TOP - 36.0);
        let served = f.status == 200;
        let color = if served { &pal.done } else { &pal.warn };
        scene.lines.push(Line {
            from: gate,
            to,
            color: color.clone(),
            width: 1.5,
        });
        let cached = f64::from(f.cached) / f64::from(f.prompt.max(1));
        scene.marks.push(Mark {
            part: (served && cached > 0.0).then(|| (cached.min(1.0), pal.done.clone())),
            id: (1 << 40) | (u64::from(f.conv) << 5) | i as u64,
            x: to.0,
            y: to.1,
            r: 4.0,
            fill: if served { &pal.waiting } else { &pal.warn }.clone(),
            ring: None,
            square: false,
            from: Some(gate),
            text: None,
        });
    }
}

/// The scene of tick `t` at `width` pixels, deployments labelled from `c`.
pub fn scene(run: &StrategyRun, c: &Config, t: usize, width: f64, pal: &Palette) -> Option<Scene> {
    use sim_core::choice::Choice;
    let s: &Snapshot = run.timeline.as_ref()?.get(t)?;
    let n = s.deps.len().max(1);
    let mut scene = Scene::default();
    let gate = router(&mut scene, width, pal);
    let column = (width - 8.0) / n as f64;
    let box_w = (column - 10.0).clamp(24.0, 110.0);
    let wide = column >= 72.0;
    for (d, snap) in s.deps.iter().enumerate() {
        let x = 4.0 + column * (d as f64 + 0.5);
        deployment(&mut scene, (d, x, box_w), snap, c, wide, pal);
    }
    flows(&mut scene, s, gate, column, box_w, pal);
    let foot = TOP + BOX_H + 50.0;
    scene.labels.push(label(
        8.0,
        foot,
        format!(
            "Bill so far: ${} · {} · {}",
            fixed(f64::from(s.cost), 2),
            clock(t),
            run.strategy.title().to_ascii_lowercase()
        ),
        &pal.fg,
        false,
    ));
    scene.height = foot + 12.0;
    Some(scene)
}
