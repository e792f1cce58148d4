//! The Routing Lab's player: the rule in focus (and, side by side, a second
//! rule on the same trace) replayed tick by tick. The timeline is recorded by
//! sim-core in the worker (`Lab::play`), from the same tick loop as the
//! lab's metrics; this file only shows it.

use std::sync::Arc;

use leptos::prelude::*;
use sim_core::labs::routing::player::{Timeline, PLAYER_TICKS};
use sim_core::labs::routing::RoutingLab;
use sim_core::params;
use sim_core::routing::RuleKind;

use super::stage;
use crate::components::{Player, SceneFn, Stage};
use crate::html::{Cell, Html, Markup, Row, Table};
use crate::labs::lab::LabPage;
use crate::labs::traces::TraceState;
use crate::labs::{use_lab_job, LabOutcome};
use crate::worker::Job;

/// Per replica at the current tick: routed and finished so far, waiting and
/// running now (totals up to the tick; the whole run at the last one).
fn replicas_html(tl: &Timeline, t: usize) -> Html {
    let mut head = vec![("Replica".to_string(), String::new())];
    for p in &tl.rules {
        let name = p.rule.title();
        head.push((
            format!("{name}: routed"),
            "requests sent there so far".into(),
        ));
        head.push((
            format!("{name}: finished"),
            "requests finished there so far".into(),
        ));
        head.push((
            format!("{name}: in flight"),
            "waiting + running at this tick".into(),
        ));
    }
    let n = tl
        .rules
        .iter()
        .filter_map(|p| p.frames.get(t))
        .map(|f| f.assigned.len())
        .max()
        .unwrap_or(0);
    let rows = (0..n)
        .map(|r| {
            let mut cells = vec![Cell::new(format!("Replica {}", r + 1))];
            for p in &tl.rules {
                let f = p.frames.get(t);
                let get = |v: Option<&Vec<u32>>| v.and_then(|v| v.get(r)).copied().unwrap_or(0);
                cells.push(Cell::new(get(f.map(|f| &f.assigned)).to_string()));
                cells.push(Cell::new(get(f.map(|f| &f.completed)).to_string()));
                let flight = f.map_or(0, |f| {
                    f.waiting.get(r).map_or(0, Vec::len) + f.running.get(r).map_or(0, Vec::len)
                });
                cells.push(Cell::new(flight.to_string()));
            }
            Row {
                cells,
                ..Row::default()
            }
        })
        .collect();
    let last = tl.len().saturating_sub(1);
    Table {
        id: "player-replicas",
        caption: if t >= last {
            "Per replica, whole run".to_string()
        } else {
            format!("Per replica, ticks 0–{t} so far")
        },
        head,
        rows,
        ..Table::default()
    }
    .html()
}

/// The player panel of the Routing Lab.
#[component]
pub fn RoutingPlayer(
    /// The Routing Lab page.
    lab: LabPage<RoutingLab>,
    /// Whether it is playing (shared with the queue chart's clicks).
    playing: RwSignal<bool>,
    /// The timeline, once recorded (the queue chart reads it too).
    timeline: LabOutcome<Timeline>,
) -> impl IntoView {
    let (config, focus, step, vs) = (lab.config, lab.focus, lab.step, lab.vs);
    let speed = RwSignal::new(4.0);
    let len = Signal::derive(move || timeline.with(|t| t.as_ref().map_or(0, |t| t.len())));
    crate::labs::clamp_step(step, len);
    let moments = Signal::derive(move || {
        timeline.with(|t| t.as_ref().map(|t| stage::moments(t)).unwrap_or_default())
    });
    let narration = Signal::derive(move || {
        let i = step.get();
        timeline.with(|t| t.as_ref().map(|t| stage::narrate(t, i)).unwrap_or_default())
    });
    let scene: SceneFn = Arc::new(move |width, palette| {
        let i = step.get();
        let slots = config.with(|c| c.slots);
        timeline.with(|t| {
            t.as_ref()
                .and_then(|t| stage::scene(t, slots, i, width, palette))
        })
    });
    let cut = move || {
        timeline.with(|t| {
            t.as_ref().and_then(|t| {
                t.rules
                    .iter()
                    .find(|p| p.ticks > p.frames.len() as u64)
                    .map(|p| {
                        format!(
                            "The player shows the first {PLAYER_TICKS} ticks; the run lasted {} (the cards and the chart cover all of it).",
                            p.ticks
                        )
                    })
            })
        })
    };
    let main = lab.outcome;
    let so_far = move || {
        let t = step.get();
        timeline.with(|tl| {
            let tl = tl.as_ref()?;
            let last = tl.len().saturating_sub(1);
            let lines: Vec<String> = tl
                .rules
                .iter()
                .enumerate()
                .filter_map(|(k, p)| {
                    let s = tl.so_far(k, t)?;
                    let whole =
                        main.with(|o| o.as_ref().and_then(|o| o.rule(p.rule)).map(|r| r.ttft_p95));
                    Some(format!(
                        "{}: {} of {} routed, {} finished; TTFT P95 {} {} ticks{}",
                        p.rule.title(),
                        s.routed,
                        tl.requests.len(),
                        s.finished,
                        if t >= last { "over the run" } else { "so far" },
                        crate::format::ticks(s.ttft_p95),
                        match whole {
                            Some(w) if t < last =>
                                format!(" (whole run {})", crate::format::ticks(w)),
                            _ => String::new(),
                        }
                    ))
                })
                .collect();
            Some(format!(
                "{} {}.",
                if t >= last {
                    "Whole run —".to_string()
                } else {
                    format!("Up to tick {t} —")
                },
                lines.join(" · ")
            ))
        })
    };
    let open = lab.focus_open();
    let options = move || {
        let current = focus.get();
        let chosen = vs.get();
        let mut out = vec![
            view! { <option value="" selected=chosen.is_empty()>"— one rule —"</option> }
                .into_any(),
        ];
        out.extend(
            RuleKind::ALL
                .iter()
                .filter(|r| r.name() != current)
                .map(|r| {
                    let name = r.name();
                    view! { <option value=name selected=chosen == name>{r.title()}</option> }
                        .into_any()
                }),
        );
        out
    };
    view! {
        <div data-panel="player" class="player-stage" id="routing-player">
            <h2>"Watch it tick"</h2>
            <Player step=step len=len unit="tick" playing=playing speed=speed zero_based=true
                moments=moments narration=narration />
            <label class="vs-picker">
                "Side by side with "
                <select id="vs-rule" disabled=!open on:change=move |ev| {
                    let v = event_target_value(&ev);
                    let pick = RuleKind::from_name(&v).map_or("", |r| r.name());
                    if open { vs.set(pick) }
                }>{options}</select>
            </label>
            <Stage scene=scene speed=speed id="routing-stage" label=narration />
            <p class="small legend-states">
                <span class="key-dot waiting"></span>" waiting "
                <span class="key-dot prefill"></span>" prefill "
                <span class="key-dot decode"></span>" decode "
                <span class="key-dot done"></span>" finished · dot size: prompt length"
            </p>
            <p class="small" id="player-so-far">{so_far}</p>
            <p class="small muted">{cut}</p>
            <details class="player-table">
                <summary>"Per replica so far"</summary>
                <Markup html=move || timeline.with(|t| t.as_ref().map(|t| replicas_html(t, step.get())).unwrap_or_default()) />
            </details>
        </div>
    }
}

/// Record the timeline of the rule in focus (and `vs=`, if set) in the
/// worker whenever the page's settings change.
pub fn use_timeline(lab: &LabPage<RoutingLab>) -> LabOutcome<Timeline> {
    let (config, focus, vs, trace, import) = (lab.config, lab.focus, lab.vs, lab.trace, lab.import);
    let job = Arc::new(move || -> Option<Job> {
        let trace = match trace.get() {
            TraceState::Loading(_) => return None,
            t => t.text().map(|text| (text, import.with(params::all_pairs))),
        };
        let mut only = focus.get().to_string();
        let other = vs.get();
        if !other.is_empty() && other != focus.get() {
            only.push(',');
            only.push_str(other);
        }
        Some(Job {
            lab: "routing",
            pairs: config.with(params::all_pairs),
            only: Some(only),
            trace,
            play: true,
        })
    });
    use_lab_job::<Timeline>(job, None).0
}
