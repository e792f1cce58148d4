//! The first-token player's scene and narration: one lane per request laid
//! over its tokens, hidden reasoning left of the commitment line and the
//! visible answer right of it, a dot per live attempt (its replica's colour
//! and number) and a red tick where an attempt failed.

use sim_core::labs::first_token::{
    Config, Fate, HedgeUntil, Lane, Moment, Phase, Recovery, RecoveryRun, Then, Why, FRAME_MS,
};

use crate::ui::format::fixed;
use crate::ui::scene::small_label as label;
use crate::ui::theme::replica_hex;
use crate::ui::{Mark, Palette, Rect, Scene};

/// The clock at frame `t` (frame 0 ends the first [`FRAME_MS`]).
fn clock(t: usize) -> String {
    fixed((t + 1) as f64 * FRAME_MS as f64 / 1000.0, 2) + " s"
}

/// "turn 2 of conversation 14".
fn who(l: Option<&Lane>, req: u32) -> String {
    l.map_or(format!("request {}", req + 1), |l| {
        format!("turn {} of conversation {}", l.turn + 1, l.conv + 1)
    })
}

/// What can still act on a request in this state, under `r`'s strategy.
fn can_act(l: &Lane, r: Recovery, c: &Config) -> &'static str {
    match (l.fate, l.committed(), r) {
        (Fate::Done, ..) => "answered",
        (Fate::Error, ..) => "failed before any token: an error",
        (Fate::Broken, ..) => "broke mid-answer, seen by the user",
        (_, false, Recovery::None) => "nothing shown; no recovery set",
        (_, false, Recovery::Retry) => "nothing shown: a retry can act",
        (_, false, _) => "nothing shown: retry and hedge can act",
        (_, true, Recovery::Resume) => "streaming: only a resume can act",
        (_, true, Recovery::Hedge) if c.hedge_until == HedgeUntil::End => {
            "streaming: only a running twin can cover"
        }
        _ => "streaming: a failure breaks it",
    }
}

/// What frame `t` of `run` means, in a few sentences.
pub fn narrate(run: &RecoveryRun, c: &Config, t: usize) -> String {
    let Some(s) = run.timeline.get(t) else {
        return String::new();
    };
    let after = match run.recovery {
        Recovery::Resume => "only a resume can act",
        _ => "a failure is one the user sees",
    };
    let before = match run.recovery {
        Recovery::None => "a failure is still unseen but nothing retries it",
        _ => "a recovery can still act unseen",
    };
    let turns = |n: u32, one: &str, many: &str| {
        if n == 1 {
            format!("1 turn {one}")
        } else {
            format!("{n} turns {many}")
        }
    };
    let mut out = format!(
        "At {}: {}, so {before}; {}, where {after}.",
        clock(t),
        turns(s.unseen, "has shown nothing yet", "have shown nothing yet"),
        turns(s.streaming, "is streaming", "are streaming"),
    );
    if let Some(m) = s.moment {
        let lane = s.lanes.iter().find(|l| l.req == m.req());
        out.push_str(" Key moment: ");
        out.push_str(&moment_words(&m, lane, run.recovery, c));
    }
    out
}

/// A key moment, explained.
fn moment_words(m: &Moment, l: Option<&Lane>, r: Recovery, c: &Config) -> String {
    match *m {
        Moment::Failed {
            req,
            replica,
            hidden,
            shown,
            then,
        } => {
            let mut out = format!("{} fails on replica {}", who(l, req), replica + 1);
            if shown == 0 {
                out.push_str(&format!(
                    " after {hidden} hidden tokens, before the user saw anything."
                ));
            } else {
                out.push_str(&format!(
                    " after the user had read {shown} tokens: past the commitment point."
                ));
            }
            out.push_str(match then {
                Then::Retry => " Nothing was shown, so it goes to another replica; the user only waits longer for the first token.",
                Then::Twin if shown == 0 => " Its hedge copy runs on, so the user never knows.",
                Then::Twin => " Its twin is still decoding, so the user reads on from it.",
                Then::Error => " No attempt is left to retry it: the user gets an error.",
                Then::Resume => " Another replica is prompted with the text shown and goes on from there, paying that text's prefill.",
                Then::Broken if r == Recovery::Resume => " No attempt is left to resume it: the stream breaks.",
                Then::Broken => " No retry or hedge can take back text already shown: the stream breaks. Resuming would prompt another replica with it.",
            });
            out
        }
        Moment::Hedged {
            req,
            replica,
            waited_ms,
            shown,
        } => format!(
            "{} is late after {} s ({shown} tokens shown), longer than its effort should take, so a hedge copy goes to replica {}; {}.",
            who(l, req),
            fixed(waited_ms as f64 / 1000.0, 1),
            replica + 1,
            if c.hedge_until == HedgeUntil::End {
                "both decode on and the slower is cancelled at the finish"
            } else {
                "the first to show a token wins"
            }
        ),
        Moment::HedgeWon {
            req,
            replica,
            wasted,
        } => format!(
            "the hedge copy of {} on replica {} shows a token first. The other copy had made {wasted} tokens{}.",
            who(l, req),
            replica + 1,
            if c.hedge_until == HedgeUntil::End {
                " and decodes on as a backup"
            } else {
                ", thrown away unseen"
            }
        ),
    }
}

/// Below this stage width (CSS pixels) a lane's label is shortened.
const NARROW: f64 = 480.0;

/// The scene of frame `t` at `width` pixels.
pub fn scene(run: &RecoveryRun, c: &Config, t: usize, width: f64, pal: &Palette) -> Option<Scene> {
    let s = run.timeline.get(t)?;
    let mut scene = Scene::default();
    scene.labels.push(label(
        8.0,
        14.0,
        format!(
            "{} · {} shown nothing · {} streaming",
            clock(t),
            s.unseen,
            s.streaming
        ),
        &pal.fg,
        false,
    ));
    let (x0, w) = (8.0, width - 16.0);
    let focus = s.moment.map(|m| m.req());
    for l in &s.lanes {
        let top = 26.0 + f64::from(l.slot) * 46.0;
        let total = f64::from((l.hidden + l.visible).max(1));
        let at = |tokens: u32| x0 + w * f64::from(tokens) / total;
        let effort = if c.reasoning {
            ["low", "medium", "high"][usize::from(l.effort.min(2))]
        } else {
            "plain"
        };
        let act = can_act(l, run.recovery, c);
        // On a phone the lane keeps only the state before the colon (the
        // narration below says the rest), so the label fits its bar.
        let text = if width < NARROW {
            let state = act.split([':', ';']).next().unwrap_or(act);
            format!("C{} turn {} · {effort} · {state}", l.conv + 1, l.turn + 1)
        } else {
            format!(
                "C{} turn {} · {effort} · {} s · {act}",
                l.conv + 1,
                l.turn + 1,
                fixed(l.age_ms as f64 / 1000.0, 1),
            )
        };
        scene.labels.push(label(
            x0,
            top + 10.0,
            text,
            if l.fate == Fate::Open {
                &pal.fg
            } else {
                &pal.muted
            },
            false,
        ));
        let (y, h) = (top + 16.0, 14.0);
        let lit = focus == Some(l.req);
        let bar = |x: f64, w: f64, fill: &str| Rect {
            x,
            y,
            w,
            h,
            fill: Some(fill.to_string()),
            stroke: None,
            line: 0.0,
        };
        let line = at(l.hidden);
        scene.rects.push(bar(x0, line - x0, &pal.border));
        scene.rects.push(bar(line, x0 + w - line, &pal.panel));
        scene
            .rects
            .push(bar(line, at(l.hidden + l.shown) - line, &pal.decode));
        scene.rects.push(Rect {
            stroke: Some(if lit {
                pal.accent.clone()
            } else {
                pal.border.clone()
            }),
            line: if lit { 2.5 } else { 1.0 },
            fill: None,
            ..bar(x0, w, "")
        });
        // The commitment point: the first visible token.
        scene.rects.push(Rect {
            y: y - 4.0,
            h: h + 8.0,
            ..bar(line - 1.0, 2.0, &pal.fg)
        });
        for &scar in &l.scars {
            scene.rects.push(bar(at(scar) - 1.5, 3.0, &pal.warn));
        }
        for d in &l.dots {
            scene.marks.push(Mark {
                id: u64::from(d.attempt),
                x: at(d.at),
                y: y + h / 2.0,
                r: if d.phase == Phase::Queued { 5.0 } else { 7.0 },
                fill: replica_hex(d.replica as usize).to_string(),
                ring: match d.why {
                    Why::First => None,
                    Why::Hedge => Some(pal.accent.clone()),
                    _ => Some(pal.warn.clone()),
                },
                square: false,
                from: Some((x0, y + h / 2.0)),
                text: Some((d.replica + 1).to_string()),
                part: None,
            });
        }
    }
    scene.height = 26.0 + 46.0 * sim_core::labs::first_token::LANES as f64 + 4.0;
    Some(scene)
}
