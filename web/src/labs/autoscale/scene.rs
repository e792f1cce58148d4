//! The autoscaling player's motion scene and narration: the gateway on top
//! with this second's arrivals, and one column per place in the pool: a
//! starting replica greyed with its cold start counting down, a ready one
//! with a cell per slot (filled while a request runs) and a bar and count of
//! its waiting requests above, a fresh one outlined in the accent colour, a draining one
//! dimmed.

use sim_core::choice::Choice;
use sim_core::labs::autoscale::{Config, Life, Moment, Scaler, ScalerRun, Snapshot, Spot};

use crate::ui::scene::small_label as label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Place, Rect, Scene};

fn clock(t: usize) -> String {
    format!("{}:{:02}", t / 60, t % 60)
}

/// The scaler's reading in its own unit, with its target.
fn reading(run: &ScalerRun, c: &Config, s: &Snapshot) -> String {
    let pct = |x: f64| format!("{:.0}%", x * 100.0);
    match run.scaler {
        Scaler::Fixed => String::new(),
        Scaler::Busy => format!(
            "busy fraction {} (target {})",
            pct(s.reading),
            pct(c.busy_target)
        ),
        Scaler::Kv => format!("KV usage {} (target {})", pct(s.reading), pct(c.kv_target)),
        Scaler::Queue => format!(
            "{:.1} requests per replica (target {})",
            s.reading, c.queue_target
        ),
        Scaler::Ttft => format!("TTFT P95 {:.1} s (target {} s)", s.reading, c.ttft_target),
        Scaler::Predictive => format!("forecast needs {:.0} replicas", s.reading),
    }
}

/// What second `t` of `run` means, in a few sentences.
pub fn narrate(run: &ScalerRun, c: &Config, t: usize) -> String {
    let Some(s) = run.timeline.get(t) else {
        return String::new();
    };
    let (ready, starting, draining) = (
        s.count(Life::Ready),
        s.count(Life::Starting),
        s.count(Life::Draining),
    );
    let waiting: u32 = s.pool.iter().map(|p| p.waiting).sum();
    let mut out = format!(
        "At {}: {ready} replicas take requests, {waiting} requests wait in their queues, {} arrived this second.",
        clock(t),
        s.arrivals
    );
    if starting > 0 {
        out.push_str(&format!(
            " {starting} more {} still starting.",
            if starting == 1 { "is" } else { "are" }
        ));
    }
    if draining > 0 {
        out.push_str(&format!(
            " {draining} {} draining.",
            if draining == 1 { "is" } else { "are" }
        ));
    }
    if c.surging(t as u32) {
        out.push_str(&format!(
            " A surge is on: {:.1} requests per second against {:.1} outside it.",
            c.rate_at(t as u32),
            c.rate
        ));
    }
    if run.scaler != Scaler::Fixed && t as u32 + 1 >= sim_core::labs::autoscale::WARM_UP {
        out.push_str(&format!(
            " The scaler last read {} and asked for {}.",
            reading(run, c, s),
            s.desired
        ));
    }
    if let Some(m) = s.moment {
        out.push(' ');
        out.push_str(&moment_words(&m, c));
    }
    out
}

/// A key moment, explained.
fn moment_words(m: &Moment, c: &Config) -> String {
    match *m {
        Moment::Pinned { busy, kv } => format!(
            "Key moment: the busy fraction reads {:.0}%, so the scaler orders a replica, yet only {:.0}% of the slots are in use. A replica counts as busy whenever anything runs on it, and during decode something nearly always does.",
            busy * 100.0,
            kv * 100.0),
        Moment::Ordered { count, ready_at } => format!(
            "Key moment: the scaler orders {count} {} for the surge. With a cold start of {} s, {} take requests at {}.",
            if count == 1 { "replica" } else { "replicas" },
            c.cold,
            if count == 1 { "it will" } else { "they will" },
            clock(ready_at as usize)
        ),
        Moment::Ready { replica, ordered } => format!(
            "Key moment: replica {} takes its first requests, {} after it was ordered at {}{}.",
            replica + 1,
            clock((c.cold + 1) as usize),
            clock(ordered as usize),
            if ordered >= c.surge_at {
                format!(" and {} into the surge", clock((ordered - c.surge_at) as usize))
            } else {
                String::new()
            }
        ),
        Moment::Flooded { replica, took, after } => format!(
            "Key moment: fresh replica {} took {took} requests in its first {after} s. It has nothing outstanding, so {} sends it everything, and its empty cache makes each prompt a full prefill.",
            replica + 1,
            c.router.title().to_ascii_lowercase()
        ),
        Moment::Ignored { replica, took, fair } => format!(
            "Key moment: fresh replica {} took {took} requests in its first minute against a fair share of {fair:.0}. Its cache is empty, so the prefix-aware rule sends each prompt to a replica that already holds it.",
            replica + 1
        ),
        Moment::SurgeOver { starting } => format!(
            "Key moment: the surge is over, and {starting} {} ordered for it {} still starting.",
            if starting == 1 { "replica" } else { "replicas" },
            if starting == 1 { "is" } else { "are" }
        ),
        Moment::ScaleIn { count } => format!(
            "Key moment: the pool shrinks by {count}, {} s after the last time a larger count was asked for.",
            c.cooldown
        ),
    }
}

/// The top of the first row's boxes (the gateway line and each box's
/// name, queue bar and arrivals sit above it).
const TOP: f64 = 66.0;

/// The narrowest column a row is split for, in px.
const MIN_COLUMN: f64 = 96.0;

/// The stage width from which the pool is laid out in rows of legible
/// columns (a lab page on a laptop); narrower stages keep one row.
const WIDE: f64 = 800.0;

/// How the pool's columns are laid out: one per place, on a stage at least
/// [`WIDE`] in rows of columns at least [`MIN_COLUMN`] wide (a pool of 16
/// is two rows of eight on a laptop), else in one row; a box of slot cells
/// in each.
struct Grid {
    /// Places in a row.
    per_row: usize,
    /// A row's height: a box and what sits above it.
    row_h: f64,
    /// A column's width.
    column: f64,
    /// Cells per row in a box.
    cols: usize,
    /// A cell's side.
    cell: f64,
    /// A box's width.
    box_w: f64,
    /// A box's height.
    box_h: f64,
    /// Where arrivals come from.
    gate: (f64, f64),
}

impl Grid {
    /// Columns for `places` places across `width`, boxes of `slots` cells.
    fn new(places: usize, slots: usize, width: f64) -> Grid {
        // As many places a row as keep a column legible, spread evenly over
        // the rows (eight and eight, not nine and seven).
        // A stage narrower than a laptop's (an embed, a phone) keeps the
        // pool in one short row, so an embed stays within its height.
        let fit = if width < WIDE {
            places.max(1)
        } else {
            (((width - 8.0) / MIN_COLUMN) as usize).clamp(4, places.max(4))
        };
        let rows = places.div_ceil(fit).max(1);
        let per_row = places.div_ceil(rows).max(1);
        let column = (width - 8.0) / per_row as f64;
        // Four cells a row wherever a cell keeps a few pixels.
        let cols = if column >= 28.0 { 4 } else { 2 };
        let cell_rows = slots.div_ceil(cols);
        let most = if width < WIDE { 12.0 } else { 18.0 };
        let cell = ((column - 8.0) / cols as f64 - 2.0).clamp(3.0, most);
        let box_h = cell_rows as f64 * (cell + 2.0) + 6.0;
        Grid {
            per_row,
            row_h: box_h + TOP - 10.0,
            column,
            cols,
            cell,
            box_w: cols as f64 * (cell + 2.0) + 4.0,
            box_h,
            gate: (width / 2.0, 24.0),
        }
    }

    /// The centre x and the box's top of place `p`.
    fn at(&self, p: usize) -> (f64, f64) {
        let (col, row) = (p % self.per_row, p / self.per_row);
        (
            4.0 + self.column * (col as f64 + 0.5),
            TOP + row as f64 * self.row_h,
        )
    }

    /// Where the last row's boxes end.
    fn bottom(&self, places: usize) -> f64 {
        let rows = places.div_ceil(self.per_row).max(1);
        TOP + (rows - 1) as f64 * self.row_h + self.box_h
    }
}

/// The scene of second `t` at `width` pixels.
pub fn scene(run: &ScalerRun, c: &Config, t: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let s: &Snapshot = run.timeline.get(t)?;
    // Columns for the most places the run ever uses, so a column keeps its
    // place while the pool grows and shrinks.
    let places = run
        .timeline
        .iter()
        .map(|s| s.pool.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let mut scene = Scene::default();
    scene.labels.push(label(
        8.0,
        14.0,
        format!("Gateway · {} · {} arrived", clock(t), s.arrivals),
        &pal.fg,
        false,
    ));
    let grid = Grid::new(places, c.slots as usize, width);
    for (p, spot) in s.pool.iter().enumerate() {
        if spot.life != Life::Off {
            place(&mut scene, (p, spot), &grid, c, t, pal);
        }
    }
    let foot = grid.bottom(places) + 18.0;
    let waiting: u32 = s.pool.iter().map(|p| p.waiting).sum();
    let state = if run.scaler == Scaler::Fixed {
        format!("{waiting} waiting · no autoscaler")
    } else {
        format!(
            "{waiting} waiting · {} → asks for {}",
            reading(run, c, s),
            s.desired
        )
    };
    scene
        .labels
        .push(label(8.0, foot, state, &pal.muted, false));
    scene.height = foot + 12.0;
    Some(scene)
}

/// Place `p` of the pool: its box (greyed with the seconds left while it
/// starts), its running requests, its queue's bar and this second's
/// arrivals.
fn place(
    scene: &mut Scene,
    (p, spot): (usize, &Spot),
    g: &Grid,
    c: &Config,
    t: usize,
    pal: &Palette,
) {
    let (x, top) = g.at(p);
    let name = if g.column > 46.0 {
        format!("R{}", p + 1)
    } else {
        format!("{}", p + 1)
    };
    scene.labels.push(label(x, top - 26.0, name, &pal.fg, true));
    scene.places.push(Place {
        panel: 0,
        replica: p as u32,
        x: x - g.box_w / 2.0,
        y: top - 34.0,
        w: g.box_w,
        h: g.box_h + 34.0,
    });
    let stroke = match spot.life {
        _ if spot.fresh => pal.accent.clone(),
        Life::Starting | Life::Draining => pal.muted.clone(),
        _ => pal.border.clone(),
    };
    scene.rects.push(Rect {
        x: x - g.box_w / 2.0,
        y: top,
        w: g.box_w,
        h: g.box_h,
        fill: (spot.life == Life::Starting).then(|| pal.panel.clone()),
        stroke: Some(stroke),
        line: if spot.fresh { 2.5 } else { 1.0 },
    });
    if spot.life == Life::Starting {
        // Ordered at the end of a second, a replica starts its cold start
        // with the next one: it is ready `cold + 1` ticks on, but no more
        // than the cold start is ever left to wait.
        let left = spot.ready_in.min(c.cold);
        scene.labels.push(label(
            x,
            top + g.box_h / 2.0,
            // A narrow box (a phone's) keeps the number alone: "240s"
            // would spill into its neighbour's.
            format!("{left}{}", if g.box_w < 40.0 { "" } else { "s" }),
            &pal.muted,
            true,
        ));
        return;
    }
    let fill = if spot.life == Life::Draining {
        pal.muted.clone()
    } else {
        replica_hex(p).to_string()
    };
    for j in 0..(spot.running as usize).min(c.slots as usize) {
        let (col, row) = (j % g.cols, j / g.cols);
        scene.marks.push(Mark {
            part: None,
            id: (1 << 40) | ((p as u64) << 16) | j as u64,
            x: x - g.box_w / 2.0 + 3.0 + (col as f64 + 0.5) * (g.cell + 2.0),
            y: top + g.box_h - 3.0 - (row as f64 + 0.5) * (g.cell + 2.0),
            r: g.cell / 2.0,
            fill: fill.clone(),
            ring: None,
            square: true,
            from: Some(g.gate),
            text: None,
        });
    }
    // The queue's bar is full at four batches.
    let full = 4.0 * f64::from(c.slots);
    crate::ui::scene::queue_bar(
        scene,
        x,
        top,
        g.box_w,
        spot.waiting,
        full,
        g.column >= 34.0,
        pal,
    );
    // This second's arrivals fly in from the gateway.
    for k in 0..spot.sent.min(6) {
        scene.marks.push(Mark {
            part: None,
            id: (2 << 40) | ((t as u64) << 20) | ((p as u64) << 8) | u64::from(k),
            x: x + (f64::from(k) - 2.5) * 3.0,
            y: top - 40.0,
            r: 2.5,
            fill: pal.waiting.clone(),
            ring: None,
            square: false,
            from: Some(g.gate),
            text: None,
        });
    }
}
