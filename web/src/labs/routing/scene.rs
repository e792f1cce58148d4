//! The Routing Lab player's motion scene and narration. One panel per rule
//! (two stacked in side-by-side mode, on the same scale): the router on the
//! left, one row per replica with its waiting queue and its batch slots.
//! Requests are dots sized by prompt length, coloured by state (waiting,
//! prefill, decode); a routed request flies from the router to its queue, a
//! finished one leaves to the right.

use sim_core::choice::Choice;
use sim_core::labs::routing::player::{At, RoutingMoment, RulePlay, TickEvent, Timeline};

use crate::ui::format::thousands;
use crate::ui::stage::{Label, Line};
use crate::ui::{Mark, Palette, Place, Rect, Scene};

/// Waiting requests drawn per replica before the rest are counted in text.
const QUEUE_SHOWN: usize = 10;

/// The narration of tick `t` for one rule.
fn one(tl: &Timeline, play: &RulePlay, t: usize, ms: bool) -> String {
    let Some(f) = play.at(t) else {
        return format!("{}: the run's frames stop here.", play.rule.title());
    };
    let mut parts: Vec<String> = Vec::new();
    let routed: Vec<String> = f
        .events
        .iter()
        .filter_map(|e| match *e {
            TickEvent::Routed {
                request,
                replica,
                reason,
            } => Some(format!(
                "request {} ({}-token prompt) → replica {}: {}",
                request + 1,
                thousands(
                    tl.requests
                        .get(request as usize)
                        .map_or(0, |r| r.prompt_tokens)
                        .into()
                ),
                replica + 1,
                reason.explain()
            )),
            _ => None,
        })
        .collect();
    match routed.len() {
        0 => {}
        1..=2 => parts.push(routed.join("; ")),
        n => parts.push(format!(
            "{}; and {} more routed",
            routed[..2].join("; "),
            n - 2
        )),
    }
    let count = |want: fn(&TickEvent) -> bool| f.events.iter().filter(|e| want(e)).count();
    let finished = count(|e| matches!(e, TickEvent::Finished { .. }));
    let first = count(|e| matches!(e, TickEvent::FirstToken { .. }));
    if first > 0 {
        parts.push(format!(
            "{first} first token{} out",
            if first == 1 { "" } else { "s" }
        ));
    }
    if finished > 0 {
        parts.push(format!(
            "{finished} request{} finished",
            if finished == 1 { "" } else { "s" }
        ));
    }
    if let Some(pace) = paces(&f) {
        parts.push(pace);
    }
    let waiting: usize = f.waiting.iter().map(Vec::len).sum();
    let running: usize = f.running.iter().map(Vec::len).sum();
    let mut out = format!("{}: ", play.rule.title());
    if parts.is_empty() {
        // In milliseconds an iteration lasts several of them.
        out.push_str(if ms {
            "no arrivals; iterations under way"
        } else {
            "no arrivals, every busy replica steps once"
        });
    } else {
        out.push_str(&parts.join("; "));
    }
    out.push_str(&format!(". {running} running, {waiting} waiting."));
    out
}

/// Milliseconds mode: the slowest and the fastest iteration under way, when
/// they differ by a sixth or more (a fuller batch, or a prefill chunk in the
/// step, makes one replica's steps visibly longer than another's).
fn paces(f: &At<'_>) -> Option<String> {
    let steps: Vec<(usize, f64)> = (0..f.waiting.len())
        .filter_map(|r| Some((r, f.pace(r)?.0)))
        .collect();
    let slow = steps.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let fast = steps.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?;
    (slow.1 >= fast.1 * 7.0 / 6.0).then(|| {
        format!(
            "replica {} takes {} ms a step, replica {} {} ms",
            slow.0 + 1,
            crate::ui::format::one_decimal(slow.1),
            fast.0 + 1,
            crate::ui::format::one_decimal(fast.1)
        )
    })
}

/// The key moment of tick `t` in words: what one rule did, and side by
/// side, what the other did with the same request.
fn moment_words(tl: &Timeline, t: usize) -> String {
    let Some((k, m)) = tl.moment(t) else {
        return String::new();
    };
    let rule = tl.rules[k].rule.title();
    let other = |request: u32| -> String {
        tl.rules
            .iter()
            .enumerate()
            .filter(|&(o, _)| o != k)
            .filter_map(|(o, p)| {
                let r = tl.routed_to(o, t, request)?;
                Some(format!(" {} sent it to replica {}.", p.rule.title(), r + 1))
            })
            .collect()
    };
    match m {
        RoutingMoment::SentPastLighter {
            request,
            replica,
            load,
            lighter,
            lighter_load,
        } => format!(
            " Key moment: {rule} sent request {} to replica {}, which already had {load}, while replica {} had {lighter_load}.{}",
            request + 1,
            replica + 1,
            lighter + 1,
            other(request)
        ),
        RoutingMoment::Escape { request, replica } => format!(
            " Key moment: the pool was too uneven, so {rule} moved request {} off the replica caching its prefix, to replica {}, the least loaded.{}",
            request + 1,
            replica + 1,
            other(request)
        ),
        RoutingMoment::Preemption { replica, request } => format!(
            " Key moment: under {rule}, replica {} ran out of KV blocks and sent request {} back to its queue.",
            replica + 1,
            request + 1
        ),
    }
}

/// The narration of tick `t` (every rule played); with `ms`, a tick is a
/// millisecond of a GPU preset's run.
pub fn narrate(tl: &Timeline, t: usize, ms: bool) -> String {
    let parts: Vec<String> = tl.rules.iter().map(|p| one(tl, p, t, ms)).collect();
    let when = if ms {
        format!("{t} ms.")
    } else {
        format!("Tick {t}.")
    };
    format!("{when} {}{}", parts.join(" "), moment_words(tl, t))
}

/// Ticks with a key moment (side by side, where the two rules differ).
pub fn moments(tl: &Timeline) -> Vec<usize> {
    tl.moments()
}

/// Output length from which an answer counts as long: twice the median.
fn long_output(tl: &Timeline) -> u32 {
    let mut outs: Vec<u32> = tl.requests.iter().map(|r| r.output_tokens).collect();
    outs.sort();
    outs.get(outs.len() / 2)
        .map_or(u32::MAX, |m| m.saturating_mul(2).max(2))
}

/// The scene of tick `t`; `budget` is the prompt tokens one prefill step
/// computes (a dot's size is its work in steps).
pub fn scene(
    tl: &Timeline,
    slots: u32,
    budget: u32,
    t: usize,
    width: f64,
    pal: &Palette,
) -> Option<Scene> {
    let n = tl.replicas.max(1) as usize;
    let most = tl
        .rules
        .iter()
        .flat_map(|p| p.at(t))
        .map(|f| f.waiting.len())
        .max()?;
    let rows = n.max(most);
    let row = if rows > 8 { 20.0 } else { 30.0 };
    let panel_h = 26.0 + rows as f64 * row + 8.0;
    let mut scene = Scene {
        height: panel_h * tl.rules.len() as f64 + 4.0,
        ..Scene::default()
    };
    // A dot's area is the request's work in engine steps: its prefill
    // chunks plus one decode step per output token (§2: output, not the
    // prompt, dominates); a ring marks a long answer.
    let work = |r: &sim_core::labs::routing::player::PlayRequest| {
        f64::from(r.prompt_tokens) / f64::from(budget.max(1)) + f64::from(r.output_tokens)
    };
    let mean = tl.requests.iter().map(work).sum::<f64>() / tl.requests.len().max(1) as f64;
    let long = long_output(tl);
    let size = |request: u32| -> f64 {
        let w = tl.requests.get(request as usize).map_or(mean, work);
        (5.5 * (w / mean.max(1.0)).sqrt())
            .max(2.5)
            .min(row / 2.0 - 2.5)
    };
    let ring = |request: u32| -> Option<String> {
        tl.requests
            .get(request as usize)
            .is_some_and(|r| r.output_tokens >= long)
            .then(|| pal.fg.clone())
    };
    for (k, play) in tl.rules.iter().enumerate() {
        let Some(f) = play.at(t) else {
            continue;
        };
        let meter = !f.paces.is_empty();
        let lay = Layout::new(k as u32, k as f64 * panel_h, width, rows, row, slots, meter);
        let hit = |request: u32| -> f64 {
            let cached = play.cached.get(request as usize).copied().unwrap_or(0);
            let prompt = tl
                .requests
                .get(request as usize)
                .map_or(0, |r| r.prompt_tokens);
            f64::from(cached) / f64::from(prompt.max(1))
        };
        let dots = Dots {
            k,
            size: &size,
            ring: &ring,
            hit: &hit,
        };
        panel(
            &mut scene,
            play,
            &f,
            flagged_replica(tl, t, k),
            &lay,
            pal,
            &dots,
        );
    }
    Some(scene)
}

/// Where one rule's panel puts things, in pixels.
struct Layout {
    /// The panel: 0 for the rule in focus, 1 for the one beside it.
    k: u32,
    /// The panel's top.
    y0: f64,
    /// A replica row's height.
    row: f64,
    /// The router's centre, level with the middle of the rows.
    router: (f64, f64),
    /// Where replica names start.
    name_x: f64,
    /// Where a replica's lane (its queue) starts.
    queue_x: f64,
    /// Where finished requests leave.
    exit_x: f64,
    /// Batch slots per replica.
    slots: u32,
    /// One slot's width.
    slot_w: f64,
    /// Where the slots start.
    slots_x: f64,
    /// The spacing of waiting dots.
    spot: f64,
    /// Wide enough to spell out "Replica n".
    wide: bool,
    /// Milliseconds mode: where each replica's step clock sits (between
    /// its name and its queue), if drawn.
    clock_x: Option<f64>,
}

impl Layout {
    /// The layout of a panel whose top is at `y0`, `width` wide, with
    /// `rows` rows of `row` pixels and `slots` slots per replica; with
    /// `meter`, room for each replica's step clock.
    fn new(k: u32, y0: f64, width: f64, rows: usize, row: f64, slots: u32, meter: bool) -> Layout {
        let name_x = 48.0;
        let wide = width >= 520.0;
        let names = name_x + if wide { 58.0 } else { 24.0 };
        let clock_x = meter.then_some(names + 4.0);
        let queue_x = names + if meter { 16.0 } else { 4.0 };
        let exit_x = width - 10.0;
        let slot_w = ((width - queue_x - 24.0) * 0.55 / f64::from(slots.max(1))).clamp(6.0, 26.0);
        Layout {
            k,
            y0,
            row,
            router: (22.0, y0 + 26.0 + rows as f64 * row / 2.0),
            name_x,
            queue_x,
            exit_x,
            slots,
            slot_w,
            slots_x: exit_x - 14.0 - slot_w * f64::from(slots),
            spot: (row - 6.0).min(2.0 * (row / 2.0 - 2.5)) + 2.0,
            wide,
            clock_x,
        }
    }

    /// The centre line of replica `r`'s row.
    fn row_y(&self, r: f64) -> f64 {
        self.y0 + 26.0 + (r + 0.5) * self.row
    }
}

/// How requests are drawn in one rule's panel.
struct Dots<'a> {
    /// The panel's index: ids are per panel, so the same request in two
    /// panels is two marks, each moving on its own.
    k: usize,
    /// A request's radius (its work).
    size: &'a dyn Fn(u32) -> f64,
    /// A request's ring, for a long answer.
    ring: &'a dyn Fn(u32) -> Option<String>,
    /// The share of a request's prompt its admission found cached here.
    hit: &'a dyn Fn(u32) -> f64,
}

impl Dots<'_> {
    /// A request's mark id in this panel.
    fn id(&self, request: u32) -> u64 {
        ((self.k as u64) << 40) | u64::from(request)
    }
}

/// The replica of panel `k`'s key moment at tick `t`, if the moment is
/// this panel's (its lane is outlined).
fn flagged_replica(tl: &Timeline, t: usize, k: usize) -> Option<usize> {
    match tl.moment(t) {
        Some((m, RoutingMoment::SentPastLighter { replica, .. }))
        | Some((m, RoutingMoment::Escape { replica, .. }))
        | Some((m, RoutingMoment::Preemption { replica, .. }))
            if m == k =>
        {
            Some(replica as usize)
        }
        _ => None,
    }
}

/// One rule's panel: its title and router, a lane per replica with its
/// queue and batch, and this tick's exits and routing lines.
fn panel(
    scene: &mut Scene,
    play: &RulePlay,
    f: &At<'_>,
    flagged: Option<usize>,
    lay: &Layout,
    pal: &Palette,
    dots: &Dots<'_>,
) {
    router(scene, play, lay, pal);
    for (r, (waiting, running)) in f.waiting.iter().zip(f.running).enumerate() {
        let y = lay.row_y(r as f64);
        lane(scene, lay, r, y, flagged == Some(r), pal);
        clock(scene, lay, r, y, f.pace(r), pal);
        queue(scene, lay, y, waiting, pal, dots);
        batch(scene, lay, y, running, pal, dots);
    }
    moves(scene, f, lay, pal, dots);
}

/// The panel's title and the router box.
fn router(scene: &mut Scene, play: &RulePlay, lay: &Layout, pal: &Palette) {
    scene.labels.push(Label {
        x: 8.0,
        y: lay.y0 + 12.0,
        text: play.rule.title().to_string(),
        color: pal.fg.clone(),
        size: 13.0,
        bold: true,
        centre: false,
    });
    let (x, y) = lay.router;
    scene.rects.push(Rect {
        x: 6.0,
        y: y - 16.0,
        w: 32.0,
        h: 32.0,
        fill: Some(pal.panel.clone()),
        stroke: Some(pal.accent.clone()),
        line: 2.0,
    });
    scene.labels.push(Label {
        x,
        y,
        text: "LB".into(),
        color: pal.fg.clone(),
        size: 11.0,
        bold: true,
        centre: true,
    });
}

/// Replica `r`'s lane at height `y`: its outline (accented when `flagged`,
/// the key moment's replica), its name and its empty batch slots.
fn lane(scene: &mut Scene, lay: &Layout, r: usize, y: f64, flagged: bool, pal: &Palette) {
    let row = lay.row;
    scene.places.push(Place {
        panel: lay.k,
        replica: r as u32,
        x: lay.name_x - 6.0,
        y: y - row / 2.0 + 2.0,
        w: lay.exit_x - lay.name_x + 2.0,
        h: row - 4.0,
    });
    scene.rects.push(Rect {
        x: lay.queue_x - 4.0,
        y: y - row / 2.0 + 2.0,
        w: lay.exit_x - lay.queue_x - 4.0,
        h: row - 4.0,
        fill: Some(pal.panel.clone()),
        stroke: Some(if flagged {
            pal.accent.clone()
        } else {
            pal.border.clone()
        }),
        line: if flagged { 2.5 } else { 1.0 },
    });
    scene.labels.push(Label {
        x: lay.name_x,
        y,
        text: if lay.wide {
            format!("Replica {}", r + 1)
        } else {
            format!("R{}", r + 1)
        },
        color: pal.fg.clone(),
        size: 11.0,
        bold: flagged,
        centre: false,
    });
    for s in 0..lay.slots {
        scene.rects.push(Rect {
            x: lay.slots_x + f64::from(s) * lay.slot_w + 1.0,
            y: y - row / 2.0 + 4.0,
            w: lay.slot_w - 2.0,
            h: row - 8.0,
            fill: None,
            stroke: Some(pal.border.clone()),
            line: 1.0,
        });
    }
}

/// Milliseconds mode: replica `r`'s step clock, a disc whose wedge is the
/// part of the iteration under way already run. It sweeps once per
/// iteration, so a replica whose batch makes its steps longer (more
/// sequences, a prefill chunk) is seen to turn slower; an idle replica's
/// disc is empty.
fn clock(
    scene: &mut Scene,
    lay: &Layout,
    r: usize,
    y: f64,
    pace: Option<(f64, f64)>,
    pal: &Palette,
) {
    let Some(x) = lay.clock_x else {
        return;
    };
    scene.marks.push(Mark {
        // Clocks stay put: an id apart from every request's.
        id: (u64::from(lay.k) << 40) | (1 << 39) | r as u64,
        x,
        y,
        r: (lay.row / 2.0 - 5.0).clamp(4.0, 7.0),
        fill: pal.panel.clone(),
        ring: Some(pal.muted.clone()),
        square: false,
        from: None,
        text: None,
        // A sliver at the start of a step still shows the clock turning.
        part: pace.map(|(_, phase)| (phase.max(0.04), pal.accent.clone())),
    });
}

/// The waiting requests of a lane, front nearest the slots, as many as fit
/// (and at most [`QUEUE_SHOWN`]); the rest as a count.
fn queue(scene: &mut Scene, lay: &Layout, y: f64, waiting: &[u32], pal: &Palette, dots: &Dots<'_>) {
    let room = ((lay.slots_x - lay.queue_x - 8.0) / lay.spot)
        .floor()
        .max(1.0) as usize;
    let shown = waiting.len().min(room.min(QUEUE_SHOWN));
    for (j, &req) in waiting.iter().take(shown).enumerate() {
        scene.marks.push(Mark {
            part: None,
            id: dots.id(req),
            // The front of the queue is nearest the slots.
            x: lay.slots_x - 8.0 - (j as f64 + 0.5) * lay.spot,
            y,
            r: (dots.size)(req),
            fill: pal.waiting.clone(),
            ring: (dots.ring)(req),
            square: false,
            from: Some(lay.router),
            text: None,
        });
    }
    if waiting.len() > shown {
        scene.labels.push(Label {
            x: lay.queue_x,
            y,
            text: format!("+{}", waiting.len() - shown),
            color: pal.muted.clone(),
            size: 10.0,
            bold: false,
            centre: false,
        });
    }
}

/// The requests in a lane's batch slots, coloured by phase.
fn batch(
    scene: &mut Scene,
    lay: &Layout,
    y: f64,
    running: &[(u32, bool)],
    pal: &Palette,
    dots: &Dots<'_>,
) {
    for (s, &(req, prefilling)) in running.iter().enumerate() {
        scene.marks.push(Mark {
            // From its arrival in a slot a request shows what its prompt
            // found in this replica's cache: a wedge of that share (a hit),
            // none (a miss). Most hits prefill within the tick they arrive,
            // so the wedge stays for the request's whole stay.
            part: Some((dots.hit)(req))
                .filter(|&h| h > 0.0)
                .map(|h| (h, pal.done.clone())),
            id: dots.id(req),
            x: lay.slots_x + (s as f64 + 0.5) * lay.slot_w,
            y,
            r: (dots.size)(req).min(lay.slot_w / 2.0 - 1.0),
            fill: if prefilling {
                pal.prefill.clone()
            } else {
                pal.decode.clone()
            },
            ring: (dots.ring)(req),
            square: false,
            from: Some(lay.router),
            text: None,
        });
    }
}

/// This tick's movements: requests that finished leave through the right
/// edge, and each routing decision draws a line from the router to its
/// replica.
fn moves(scene: &mut Scene, f: &At<'_>, lay: &Layout, pal: &Palette, dots: &Dots<'_>) {
    for e in f.events {
        if let TickEvent::Finished { request, replica } = *e {
            scene.marks.push(Mark {
                part: None,
                id: dots.id(request),
                x: lay.exit_x,
                y: lay.row_y(f64::from(replica)),
                r: 2.5,
                fill: pal.done.clone(),
                ring: None,
                square: false,
                from: None,
                text: None,
            });
        }
        if let TickEvent::Routed { replica, .. } = *e {
            scene.lines.push(Line {
                from: (lay.router.0 + 16.0, lay.router.1),
                // To the replica's name, not across it.
                to: (lay.name_x - 4.0, lay.row_y(f64::from(replica))),
                color: pal.accent.clone(),
                width: 1.5,
            });
        }
    }
}
