//! The admission player's motion scene and narration: the gateway's queue on
//! the left (one square per waiting request), the replicas on the right (one
//! cell per server, filled while busy), this tick's 429s and drops in trays
//! under the gateway, and a replica the breaker took out greyed and labelled.

use sim_core::labs::admission::{Config, Moment, Policy, PolicyRun, Snapshot};

use crate::ui::scene::small_label as label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Rect, Scene};

/// Waiting requests drawn before the queue says "+N more".
const SHOWN_ROWS: usize = 6;

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What tick `t` of `run` means, in a few sentences.
pub fn narrate(run: &PolicyRun, config: &Config, t: usize) -> String {
    let Some(s) = run.timeline.get(t) else {
        return String::new();
    };
    let busy: u32 = s.busy.iter().sum();
    let mut out = format!(
        "Tick {t}: {} waiting at the gateway, {busy} of {} servers busy.",
        s.queue,
        config.servers()
    );
    let t32 = t as u32;
    if config.surge > 0.0 && t32 >= config.surge_at && t32 - config.surge_at < config.surge_for {
        out.push_str(&format!(
            " A surge is on: arrivals at {:.0}% of capacity.",
            100.0 * config.load * (1.0 + config.surge)
        ));
    }
    if config.failure > 0.0
        && t32 >= config.incident_at
        && t32 - config.incident_at < config.incident_for
    {
        out.push_str(&format!(
            " Replica 1 is failing {:.0}% of its requests.",
            100.0 * config.failure
        ));
    }
    if s.rejected > 0 {
        out.push_str(&format!(
            " {} with a 429: the queue was at its cap of {}.",
            plural(s.rejected, "arrival was refused", "arrivals were refused"),
            config.cap
        ));
    }
    if s.dropped > 0 {
        let why = match run.policy {
            Policy::Deadline => "their first token could no longer come within the SLO",
            _ => "they had waited past the bound",
        };
        out.push_str(&format!(
            " {} at the front of the queue: {why}.",
            plural(s.dropped, "request was dropped", "requests were dropped")
        ));
    }
    for (r, &o) in s.out.iter().enumerate() {
        if o {
            out.push_str(&format!(" Replica {} is out of rotation.", r + 1));
        }
    }
    if s.good > 0 {
        out.push_str(&format!(
            " {} within the SLO.",
            plural(s.good, "request finished", "requests finished")
        ));
    }
    if let Some(m) = s.moment {
        out.push(' ');
        out.push_str(&moment_words(&m, config));
    }
    out
}

/// A key moment, explained.
fn moment_words(m: &Moment, c: &Config) -> String {
    match *m {
        Moment::SloLost { waited } => format!(
            "Key moment: a request that waited {waited} ticks just reached a server. Its first \
             token will be too late for the SLO ({} ticks), yet it holds a server for its whole \
             answer, and every request behind it has waited longer still.",
            c.slo * c.service),
        Moment::FirstRefusal { queue } => format!(
            "Key moment: the queue holds {queue}, the cap, so the next arrival is refused at once. \
             Its client hears \"busy\" now instead of waiting for an answer that would come too late."
        ),
        Moment::FirstDrop { waited } => format!(
            "Key moment: the first drop. A request that waited {waited} ticks reached the front \
             and is let go instead of taking a server it could only waste."
        ),
        Moment::Trip { replica, failures } => format!(
            "Key moment: replica {} failed {failures} requests within {} ticks, so the breaker \
             takes it out of rotation for {} ticks.",
            replica + 1,
            c.window,
            c.trip_for
        ),
    }
}

/// A waiting request's square.
const CELL: f64 = 11.0;

/// The top of the queue's box and of the replicas' columns.
const AREA_TOP: f64 = 36.0;

/// Where the gateway queue sits: its squares wrap in rows of `cols`.
struct Queue {
    /// Its width.
    w: f64,
    /// Squares per row.
    cols: usize,
    /// Its box's height.
    h: f64,
}

impl Queue {
    /// The queue about two fifths of `width` wide.
    fn at(width: f64) -> Queue {
        let w = (width * 0.4).clamp(120.0, 360.0);
        Queue {
            w,
            cols: (((w - 16.0) / (CELL + 3.0)) as usize).max(4),
            h: SHOWN_ROWS as f64 * (CELL + 3.0) + 8.0,
        }
    }

    /// The centre of the `j`th waiting square.
    fn pos(&self, j: usize) -> (f64, f64) {
        (
            10.0 + CELL / 2.0 + (j % self.cols) as f64 * (CELL + 3.0),
            AREA_TOP + CELL / 2.0 + (j / self.cols) as f64 * (CELL + 3.0),
        )
    }

    /// Where arrivals come in: the box's left edge.
    fn entry(&self) -> (f64, f64) {
        (4.0, AREA_TOP + self.h / 2.0)
    }
}

/// The scene of tick `t` at `width` pixels.
pub fn scene(
    run: &PolicyRun,
    config: &Config,
    t: usize,
    width: f64,
    pal: &Palette,
) -> Option<Scene> {
    let s: &Snapshot = run.timeline.get(t)?;
    let q = Queue::at(width);
    let mut scene = Scene::default();
    queue(&mut scene, s, &q, pal);
    // Trays: this tick's 429s and drops.
    let tray_y = AREA_TOP + q.h + 24.0;
    let trays = [
        (s.rejected, 2, "429", 8.0),
        (s.dropped, 3, "dropped", q.w / 2.0),
    ];
    for (count, kind, text, x0) in trays {
        tray(&mut scene, (count, kind, text), (x0, tray_y), t, &q, pal);
    }
    let left = q.w + 12.0;
    let box_h = replicas(&mut scene, s, config, (left, width), &q, pal);
    let good = format!("{} met the SLO this tick", s.good);
    scene.labels.push(label(
        left,
        AREA_TOP + box_h + 26.0,
        good,
        &pal.muted,
        false,
    ));
    scene.height = (tray_y + 30.0).max(AREA_TOP + box_h + 36.0);
    Some(scene)
}

/// The gateway and its waiting requests, "+N more" past what fits.
fn queue(scene: &mut Scene, s: &Snapshot, q: &Queue, pal: &Palette) {
    scene.labels.push(label(
        8.0,
        14.0,
        format!("Gateway queue · {}", s.queue),
        &pal.fg,
        false,
    ));
    scene.rects.push(Rect {
        x: 4.0,
        y: AREA_TOP - 6.0,
        w: q.w - 8.0,
        h: q.h,
        fill: Some(pal.panel.clone()),
        stroke: Some(pal.border.clone()),
        line: 1.0,
    });
    let shown = (s.queue as usize).min(q.cols * SHOWN_ROWS);
    for j in 0..shown {
        let (x, y) = q.pos(j);
        scene.marks.push(Mark {
            part: None,
            id: j as u64,
            x,
            y,
            r: CELL / 2.0,
            fill: pal.waiting.clone(),
            ring: None,
            square: true,
            from: Some(q.entry()),
            text: None,
        });
    }
    if (s.queue as usize) > shown {
        // Under the queue's left edge: centred on its right edge, it ran
        // into the servers' line beside it on a phone.
        scene.labels.push(label(
            8.0,
            AREA_TOP + q.h + 8.0,
            format!("+{} more", s.queue as usize - shown),
            &pal.muted,
            false,
        ));
    }
}

/// One tray at `(x0, y)`: `count` requests of `kind` (2: refused at the
/// door, 3: dropped from the queue's head) this tick, labelled `text`.
fn tray(
    scene: &mut Scene,
    (count, kind, text): (u32, u64, &str),
    (x0, y): (f64, f64),
    t: usize,
    q: &Queue,
    pal: &Palette,
) {
    if count == 0 {
        return;
    }
    scene
        .labels
        .push(label(x0, y, format!("{text} ×{count}"), &pal.warn, false));
    for k in 0..count.min(12) {
        scene.marks.push(Mark {
            part: None,
            id: (kind << 40) | ((t as u64) << 8) | u64::from(k),
            x: x0 + 6.0 + f64::from(k) * (CELL + 2.0),
            y: y + 16.0,
            r: CELL / 2.0 - 1.0,
            fill: pal.warn.clone(),
            ring: None,
            square: false,
            from: Some(if kind == 2 { q.entry() } else { q.pos(0) }),
            text: None,
        });
    }
}

/// The replicas from `left` to `width`: one column of server cells each,
/// outlined in red when out of rotation; returns a column's height.
fn replicas(
    scene: &mut Scene,
    s: &Snapshot,
    config: &Config,
    (left, width): (f64, f64),
    q: &Queue,
    pal: &Palette,
) -> f64 {
    let n = s.busy.len().max(1);
    let slots = config.slots as usize;
    let column = (width - left - 8.0) / n as f64;
    let rcell = (150.0 / slots as f64).clamp(4.0, 16.0);
    let box_h = slots as f64 * (rcell + 2.0) + 8.0;
    let head = q.pos(0);
    for r in 0..n {
        let x = left + column * (r as f64 + 0.5);
        let w = (column - 8.0).min(56.0);
        let out = s.out.get(r).copied().unwrap_or(false);
        scene.rects.push(Rect {
            x: x - w / 2.0,
            y: AREA_TOP - 6.0,
            w,
            h: box_h,
            fill: None,
            stroke: Some(if out {
                pal.warn.clone()
            } else {
                pal.border.clone()
            }),
            line: if out { 3.0 } else { 1.0 },
        });
        let name = if column > 80.0 {
            format!("Replica {}", r + 1)
        } else {
            format!("R{}", r + 1)
        };
        scene.labels.push(label(x, 14.0, name, &pal.fg, true));
        if out {
            scene.labels.push(label(
                x,
                AREA_TOP + box_h + 8.0,
                "out".into(),
                &pal.warn,
                true,
            ));
        }
        for j in 0..s.busy[r] as usize {
            scene.marks.push(Mark {
                part: None,
                id: (1 << 40) | ((r as u64) << 16) | j as u64,
                x,
                y: AREA_TOP - 6.0 + box_h - 4.0 - (j as f64 + 0.5) * (rcell + 2.0),
                r: rcell / 2.0,
                fill: replica_hex(r).to_string(),
                ring: None,
                square: true,
                from: Some(head),
                text: None,
            });
        }
    }
    box_h
}
