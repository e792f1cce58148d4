//! The prefix player's motion scene and narration: both routers side by side
//! (stacked when narrow), each with its replicas' cache slots. The request
//! flies from the router to the replica it was sent to; a hit lights up the
//! cached block, a miss brings a new block in and pushes the oldest out.

use sim_core::choice::Choice;
use sim_core::labs::prefix::{Outcome, PrefixMoment, PrefixReason, RouterRun, Step};

use crate::ui::stage::Label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Place, Rect, Scene};

/// The colour of prefix `p` (1-based).
fn prefix_colour(p: u8) -> &'static str {
    replica_hex(usize::from(p.saturating_sub(1)) + 4)
}

/// What step `i` means for one router, in words.
fn one(run: &RouterRun, i: usize, prefix: u8) -> String {
    let s = &run.steps[i];
    let mut out = format!(
        "{} sent it to replica {}: {}",
        run.router.title(),
        s.target + 1,
        if s.hit {
            "a cache hit, only the suffix is prefilled".to_string()
        } else {
            format!(
                "a miss, all {} prompt tokens prefilled",
                crate::ui::format::thousands(s.prefill_tokens.into())
            )
        }
    );
    match s.moment {
        Some(PrefixMoment::Escape { holder }) => out.push_str(&format!(
            " — it left replica {}, which holds P{prefix}, because that replica was too far ahead",
            holder + 1
        )),
        Some(PrefixMoment::HotMiss { holder }) => out.push_str(&format!(
            " — although replica {} had P{prefix} cached",
            holder + 1
        )),
        Some(PrefixMoment::Eviction { prefix: gone }) => {
            out.push_str(&format!(", pushing P{gone} out of its cache"))
        }
        None => {}
    }
    if let (Some(gone), false) = (
        s.evicted,
        matches!(s.moment, Some(PrefixMoment::Eviction { .. })),
    ) {
        out.push_str(&format!(" (P{gone} evicted to make room)"));
    }
    if matches!(s.reason, PrefixReason::FirstSight) {
        out.push_str(" (first time this prefix is seen)");
    }
    out.push('.');
    out
}

/// The narration of request `i` (0-based) for both routers.
pub fn narrate(o: &Outcome, i: usize) -> String {
    let Some(req) = o.trace.get(i) else {
        return String::new();
    };
    let parts: Vec<String> = o.routers.iter().map(|r| one(r, i, req.prefix)).collect();
    format!(
        "Request {} carries prefix P{}. {}",
        i + 1,
        req.prefix,
        parts.join(" ")
    )
}

/// Whether step `i` is a key moment: a miss on a prefix another replica held,
/// or the escape hatch (evictions are narrated, not flagged: they are many).
pub fn is_moment(o: &Outcome, i: usize) -> bool {
    o.routers.iter().any(|r| {
        matches!(
            r.steps.get(i).and_then(|s| s.moment),
            Some(PrefixMoment::HotMiss { .. } | PrefixMoment::Escape { .. })
        )
    })
}

/// The height of one replica's row.
const ROW_H: f64 = 30.0;
/// Room for the replica's name and, right of it, the arriving request (the
/// dot must not sit on the name).
const NAME_W: f64 = 90.0;

/// One router's panel at one request: where it sits and what its rows draw.
struct Panel<'a> {
    /// Left edge.
    x0: f64,
    /// Top edge.
    y0: f64,
    /// Width.
    w: f64,
    /// Height.
    h: f64,
    /// The router's index (keeps the two panels' mark ids apart).
    k: usize,
    /// The router's decision for the request.
    step: &'a Step,
    /// The request's prefix.
    prefix: u8,
    /// Cache slots per replica.
    slots: usize,
    /// Width of one cache slot.
    slot_w: f64,
    /// The most assignments any replica of either router has (the bars'
    /// common scale).
    most: u32,
    /// Where the request enters: the panel's top-right corner.
    source: (f64, f64),
}

/// The scene of request `i`: both routers' panels, side by side when wide.
pub fn scene(o: &Outcome, i: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let req = o.trace.get(i)?;
    let replicas = o.routers.first()?.assignments.len();
    let slots = o.config.slots as usize;
    let wide = width >= 620.0;
    let panel_w = if wide {
        (width - 24.0) / 2.0
    } else {
        width - 16.0
    };
    let panel_h = 56.0 + replicas as f64 * ROW_H;
    let mut scene = Scene {
        height: if wide {
            panel_h + 8.0
        } else {
            2.0 * panel_h + 16.0
        },
        ..Scene::default()
    };
    let most = o
        .routers
        .iter()
        .flat_map(|r| r.assignments.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1);
    for (k, run) in o.routers.iter().enumerate() {
        let (x0, y0) = if wide {
            (8.0 + k as f64 * (panel_w + 8.0), 4.0)
        } else {
            (8.0, 4.0 + k as f64 * (panel_h + 8.0))
        };
        let p = Panel {
            x0,
            y0,
            w: panel_w,
            h: panel_h,
            k,
            step: run.steps.get(i)?,
            prefix: req.prefix,
            slots,
            slot_w: ((panel_w * 0.45) / slots as f64).min(56.0),
            most,
            source: (x0 + panel_w - 24.0, y0 + 18.0),
        };
        frame(&mut scene, &p, run, pal);
        for r in 0..replicas {
            replica_row(&mut scene, &p, r, pal);
        }
        request_mark(&mut scene, &p, i, pal);
    }
    Some(scene)
}

/// A panel's box and its router's name.
fn frame(scene: &mut Scene, p: &Panel<'_>, run: &RouterRun, pal: &Palette) {
    scene.rects.push(Rect {
        x: p.x0,
        y: p.y0,
        w: p.w,
        h: p.h,
        fill: Some(pal.panel.clone()),
        stroke: Some(pal.border.clone()),
        line: 1.0,
    });
    scene.labels.push(Label {
        x: p.x0 + 10.0,
        y: p.y0 + 16.0,
        text: run.router.title().to_string(),
        color: pal.fg.clone(),
        size: 13.0,
        bold: true,
        centre: false,
    });
}

/// Replica `r`'s row: its name (lit when it is the target), its cache slots
/// and the prefixes in them (a hit ringed, a miss's new block flying in),
/// and its assignments so far as a bar.
fn replica_row(scene: &mut Scene, p: &Panel<'_>, r: usize, pal: &Palette) {
    let s = p.step;
    let y = p.y0 + 44.0 + r as f64 * ROW_H;
    let target = r as u32 == s.target;
    scene.places.push(Place {
        panel: p.k as u32,
        replica: r as u32,
        x: p.x0 + 4.0,
        y: y - 4.0,
        w: p.w - 8.0,
        h: ROW_H - 4.0,
    });
    scene.labels.push(Label {
        x: p.x0 + 10.0,
        y: y + ROW_H / 2.0 - 4.0,
        text: format!("Replica {}", r + 1),
        color: if target {
            pal.accent.clone()
        } else {
            pal.fg.clone()
        },
        size: 11.0,
        bold: target,
        centre: false,
    });
    let slot_x = |j: usize| p.x0 + NAME_W + j as f64 * p.slot_w;
    for j in 0..p.slots {
        scene.rects.push(Rect {
            x: slot_x(j),
            y: y + 2.0,
            w: p.slot_w - 4.0,
            h: ROW_H - 12.0,
            fill: None,
            stroke: Some(pal.border.clone()),
            line: 1.0,
        });
    }
    for (j, e) in s.caches[r].iter().enumerate() {
        let fresh = target && !s.hit && e.prefix == p.prefix;
        let lit = target && s.hit && e.prefix == p.prefix;
        scene.marks.push(Mark {
            part: None,
            id: ((p.k as u64) << 40) | ((r as u64) << 16) | u64::from(e.prefix),
            x: slot_x(j) + (p.slot_w - 4.0) / 2.0,
            y: y + 2.0 + (ROW_H - 12.0) / 2.0,
            r: ((ROW_H - 14.0) / 2.0).min((p.slot_w - 8.0) / 2.0),
            fill: prefix_colour(e.prefix).to_string(),
            ring: lit.then(|| pal.accent.clone()),
            square: true,
            from: fresh.then_some(p.source),
            text: Some(format!("P{}", e.prefix)),
        });
    }
    // Assignments so far, as a bar.
    let bar_x = slot_x(p.slots) + 6.0;
    let bar_w = (p.x0 + p.w - 34.0 - bar_x).max(10.0);
    let load = s.assignments[r];
    scene.rects.push(Rect {
        x: bar_x,
        y: y + 6.0,
        w: bar_w * f64::from(load) / f64::from(p.most),
        h: ROW_H - 20.0,
        fill: Some(pal.muted.clone()),
        stroke: None,
        line: 0.0,
    });
    scene.labels.push(Label {
        x: bar_x + bar_w + 4.0,
        y: y + ROW_H / 2.0 - 4.0,
        text: load.to_string(),
        color: pal.fg.clone(),
        size: 11.0,
        bold: false,
        centre: false,
    });
}

/// The request itself: from the router's corner to its replica, ringed as a
/// hit or a miss.
fn request_mark(scene: &mut Scene, p: &Panel<'_>, i: usize, pal: &Palette) {
    let s = p.step;
    let ty = p.y0 + 44.0 + f64::from(s.target) * ROW_H + (ROW_H - 12.0) / 2.0 + 2.0;
    scene.marks.push(Mark {
        part: None,
        id: (1u64 << 60) | ((p.k as u64) << 40) | i as u64,
        x: p.x0 + NAME_W - 11.0,
        y: ty,
        r: 7.0,
        fill: prefix_colour(p.prefix).to_string(),
        ring: Some(if s.hit {
            pal.accent.clone()
        } else {
            pal.warn.clone()
        }),
        square: false,
        from: Some(p.source),
        text: None,
    });
}
