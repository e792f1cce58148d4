//! The herding player's motion scene and narration: routers along the top,
//! one column per replica below, every in-flight request a square in its
//! replica's stack. Requests dispatched this tick fly in from the router that
//! sent them; finished ones fade out at the bottom of their stack.

use sim_core::labs::herding::{HerdMoment, RuleSummary, TickSnapshot};

use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Place, Rect, Scene};

/// One sentence (or three) for tick `t` of `run`, from what sim-core recorded.
pub fn narrate(run: &RuleSummary, t: usize) -> String {
    let Some(tick) = run.timeline.ticks.get(t) else {
        return String::new();
    };
    let mut out = format!(
        "Tick {}: {} request{} arrived.",
        tick.tick,
        tick.arrivals,
        if tick.arrivals == 1 { "" } else { "s" }
    );
    let scraped: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scraped)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !scraped.is_empty() {
        out.push_str(&format!(
            " Router{} {} scraped fresh load numbers.",
            if scraped.len() == 1 { "" } else { "s" },
            scraped.join(", ")
        ));
    }
    let sends: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.dispatched.is_empty())
        .map(|(i, r)| {
            let to: Vec<String> = r.dispatched.iter().map(|d| (d + 1).to_string()).collect();
            format!(
                "router {} (numbers {} tick{} old) → replica {}",
                i + 1,
                r.age,
                if r.age == 1 { "" } else { "s" },
                to.join(" and ")
            )
        })
        .collect();
    if !sends.is_empty() {
        out.push_str(&format!(" Sent: {}.", sends.join("; ")));
    }
    match tick.moment {
        Some(HerdMoment::Stampede {
            replica,
            requests,
            routers,
            since,
            load,
        }) => out.push_str(&format!(
            " The pile: since tick {since}, {} sent all {requests} requests to replica {}, \
             the one their stale numbers showed as idlest. It now holds {load} while the \
             others hold {} between them.",
            match routers {
                1 => "the router".to_string(),
                2 => "both routers".to_string(),
                n => format!("all {n} routers"),
            },
            replica + 1,
            tick.outstanding.iter().sum::<u32>() - load
        )),
        None => out.push_str(&format!(" Gap between busiest and idlest: {}.", tick.skew)),
    }
    out
}

/// The scene of tick `t`; the stacks are scaled to `top` (the largest
/// outstanding count of the run) so they do not jump between ticks.
pub fn scene(run: &RuleSummary, t: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let ticks = &run.timeline.ticks;
    let tick: &TickSnapshot = ticks.get(t)?;
    let n = tick.outstanding.len();
    let k = tick.routers.len();
    let top = ticks
        .iter()
        .flat_map(|s| s.outstanding.iter().copied())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    // The stacks get at most a fifth of the width in height (a phone or an
    // article column keeps the stage short), between 90 and 200 px.
    let budget = (width * 0.2).clamp(90.0, 200.0);
    let cell = (budget / top).clamp(3.0, 16.0);
    let (router_y, base_y) = (22.0, 86.0 + top * cell);
    let mut scene = Scene {
        height: base_y + 26.0,
        ..Scene::default()
    };
    let column = (width - 16.0) / n as f64;
    let col_x = |r: usize| 8.0 + column * (r as f64 + 0.5);
    let lane = (width - 16.0) / k as f64;
    let router_x = |i: usize| 8.0 + lane * (i as f64 + 0.5);
    routers(&mut scene, tick, lane, router_y, pal);
    let stampede = tick
        .moment
        .map(|HerdMoment::Stampede { replica, .. }| replica as usize);
    // Dispatches so far per replica, for ids that follow each request.
    let mut sent = vec![0u64; n];
    for s in &ticks[..=t] {
        for (r, &x) in s.new.iter().enumerate() {
            sent[r] += u64::from(x);
        }
    }
    // Which router sent each new request, replica by replica.
    let mut senders: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, r) in tick.routers.iter().enumerate() {
        for &d in &r.dispatched {
            senders[d as usize].push(i);
        }
    }
    for r in 0..n {
        let x = col_x(r);
        let w = (column - 8.0).min(64.0);
        scene.places.push(Place {
            panel: 0,
            replica: r as u32,
            x: x - w / 2.0,
            y: 60.0,
            w,
            h: base_y - 60.0,
        });
        scene.rects.push(Rect {
            x: x - w / 2.0,
            y: 60.0,
            w,
            h: base_y - 60.0,
            fill: None,
            stroke: Some(if stampede == Some(r) {
                pal.accent.clone()
            } else {
                pal.border.clone()
            }),
            line: if stampede == Some(r) { 3.0 } else { 1.0 },
        });
        scene.labels.push(label(
            x,
            base_y + 13.0,
            if column > 90.0 {
                format!("Replica {} · {}", r + 1, tick.outstanding[r])
            } else {
                format!("R{} · {}", r + 1, tick.outstanding[r])
            },
            &pal.fg,
        ));
        let held = u64::from(tick.outstanding[r]);
        let new = u64::from(tick.new[r]);
        for j in 0..held {
            let id = ((r as u64) << 32) | (sent[r] - held + j);
            let fresh = j >= held - new;
            let from = fresh.then(|| {
                let which = (j - (held - new)) as usize;
                let router = senders[r].get(which).copied().unwrap_or(0);
                (router_x(router), router_y + 14.0)
            });
            scene.marks.push(Mark {
                part: None,
                id,
                x,
                y: base_y - cell * (j as f64 + 0.5),
                r: cell * 0.42,
                fill: replica_hex(r).to_string(),
                ring: fresh.then(|| pal.fg.clone()),
                square: true,
                from,
                text: None,
            });
        }
    }
    Some(scene)
}

/// The routers' boxes along the top, each with its numbers' age (an accent
/// outline the tick it scrapes).
fn routers(scene: &mut Scene, tick: &TickSnapshot, lane: f64, router_y: f64, pal: &Palette) {
    let router_x = |i: usize| 8.0 + lane * (i as f64 + 0.5);
    for (i, r) in tick.routers.iter().enumerate() {
        let w = (lane - 10.0).min(110.0);
        scene.rects.push(Rect {
            x: router_x(i) - w / 2.0,
            y: router_y - 14.0,
            w,
            h: 28.0,
            fill: Some(pal.panel.clone()),
            stroke: Some(if r.scraped {
                pal.accent.clone()
            } else {
                pal.border.clone()
            }),
            line: if r.scraped { 3.0 } else { 1.0 },
        });
        scene.labels.push(label(
            router_x(i),
            router_y,
            if lane > 120.0 {
                format!("Router {} · {}t old", i + 1, r.age)
            } else {
                // "Rt" for routers: "R" is a replica's short name.
                format!("Rt{} {}t", i + 1, r.age)
            },
            &pal.fg,
        ));
    }
}

fn label(x: f64, y: f64, text: String, color: &str) -> crate::ui::stage::Label {
    crate::ui::scene::small_label(x, y, text, color, true)
}
