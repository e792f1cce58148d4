//! The prefix player's motion scene and narration: both routers side by side
//! (stacked when narrow), each with its replicas' cache slots. The request
//! flies from the router to the replica it was sent to; a hit lights up the
//! cached block, a miss brings a new block in and pushes the oldest out.

use sim_core::choice::Choice;
use sim_core::labs::prefix::{Outcome, PrefixMoment, PrefixReason, RouterRun};

use crate::ui::stage::Label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Rect, Scene};

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

/// The scene of request `i`.
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
    let row_h = 30.0;
    let panel_h = 56.0 + replicas as f64 * row_h;
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
        let s = run.steps.get(i)?;
        let (x0, y0) = if wide {
            (8.0 + k as f64 * (panel_w + 8.0), 4.0)
        } else {
            (8.0, 4.0 + k as f64 * (panel_h + 8.0))
        };
        scene.rects.push(Rect {
            x: x0,
            y: y0,
            w: panel_w,
            h: panel_h,
            fill: Some(pal.panel.clone()),
            stroke: Some(pal.border.clone()),
            line: 1.0,
        });
        scene.labels.push(Label {
            x: x0 + 10.0,
            y: y0 + 16.0,
            text: run.router.title().to_string(),
            color: pal.fg.clone(),
            size: 13.0,
            bold: true,
            centre: false,
        });
        let source = (x0 + panel_w - 24.0, y0 + 18.0);
        let slot_w = ((panel_w * 0.45) / slots as f64).min(56.0);
        // Room for the replica's name and, right of it, the arriving request
        // (the dot must not sit on the name).
        let name_w = 90.0;
        for r in 0..replicas {
            let y = y0 + 44.0 + r as f64 * row_h;
            let target = r as u32 == s.target;
            scene.labels.push(Label {
                x: x0 + 10.0,
                y: y + row_h / 2.0 - 4.0,
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
            for j in 0..slots {
                scene.rects.push(Rect {
                    x: x0 + name_w + j as f64 * slot_w,
                    y: y + 2.0,
                    w: slot_w - 4.0,
                    h: row_h - 12.0,
                    fill: None,
                    stroke: Some(pal.border.clone()),
                    line: 1.0,
                });
            }
            for (j, e) in s.caches[r].iter().enumerate() {
                let fresh = target && !s.hit && e.prefix == req.prefix;
                let lit = target && s.hit && e.prefix == req.prefix;
                scene.marks.push(Mark {
                    id: ((k as u64) << 40) | ((r as u64) << 16) | u64::from(e.prefix),
                    x: x0 + name_w + j as f64 * slot_w + (slot_w - 4.0) / 2.0,
                    y: y + 2.0 + (row_h - 12.0) / 2.0,
                    r: ((row_h - 14.0) / 2.0).min((slot_w - 8.0) / 2.0),
                    fill: prefix_colour(e.prefix).to_string(),
                    ring: lit.then(|| pal.accent.clone()),
                    square: true,
                    from: fresh.then_some(source),
                    text: Some(format!("P{}", e.prefix)),
                });
            }
            // Assignments so far, as a bar.
            let bar_x = x0 + name_w + slots as f64 * slot_w + 6.0;
            let bar_w = (x0 + panel_w - 34.0 - bar_x).max(10.0);
            let load = s.assignments[r];
            scene.rects.push(Rect {
                x: bar_x,
                y: y + 6.0,
                w: bar_w * f64::from(load) / f64::from(most),
                h: row_h - 20.0,
                fill: Some(pal.muted.clone()),
                stroke: None,
                line: 0.0,
            });
            scene.labels.push(Label {
                x: bar_x + bar_w + 4.0,
                y: y + row_h / 2.0 - 4.0,
                text: load.to_string(),
                color: pal.fg.clone(),
                size: 11.0,
                bold: false,
                centre: false,
            });
        }
        // The request itself: from the router corner to its replica.
        let ty = y0 + 44.0 + f64::from(s.target) * row_h + (row_h - 12.0) / 2.0 + 2.0;
        scene.marks.push(Mark {
            id: (1u64 << 60) | ((k as u64) << 40) | i as u64,
            x: x0 + name_w - 11.0,
            y: ty,
            r: 7.0,
            fill: prefix_colour(req.prefix).to_string(),
            ring: Some(if s.hit {
                pal.accent.clone()
            } else {
                pal.warn.clone()
            }),
            square: false,
            from: Some(source),
            text: None,
        });
    }
    Some(scene)
}
