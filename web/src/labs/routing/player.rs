//! The Routing Lab's player: the rule in focus (and, side by side, a second
//! rule on the same trace) replayed tick by tick. The page's run records both
//! in the worker (sim-core's `Input::record`), from the same tick loop as the
//! lab's metrics; this file only shows it.

use sim_core::choice::Choice;
use sim_core::labs::routing::player::Timeline;
use sim_core::labs::routing::RoutingLab;

use leptos::prelude::*;

use crate::labs::routing::panel::replicas;
use crate::page::{Player, View};

/// The recorded timeline, once the player's run is in.
fn timeline<'a>(v: &View<'a, RoutingLab>) -> Option<&'a Timeline> {
    v.outcome.timeline.as_ref()
}

/// Routed, finished and TTFT P95 so far, per rule played; where the frames
/// stop; the per-replica table.
fn detail(v: &View<'_, RoutingLab>) -> AnyView {
    let Some(tl) = timeline(v) else {
        return ().into_any();
    };
    let t = v.step();
    let ms = v.config.timing.in_ms();
    let unit = v.config.timing.unit();
    let last = tl.len().saturating_sub(1);
    let lines: Vec<String> = tl
        .rules
        .iter()
        .enumerate()
        .filter_map(|(k, p)| {
            let s = tl.so_far(k, t)?;
            let whole = v.outcome.rule(p.rule).map(|r| r.ttft_p95);
            Some(format!(
                "{}: {} of {} routed, {} finished; TTFT P95 {} {} {unit}{}",
                p.rule.title(),
                s.routed,
                tl.requests.len(),
                s.finished,
                if t >= last { "over the run" } else { "so far" },
                crate::ui::format::ticks(s.ttft_p95),
                match whole {
                    Some(w) if t < last => format!(" (whole run {})", crate::ui::format::ticks(w)),
                    _ => String::new(),
                }
            ))
        })
        .collect();
    let so_far = format!(
        "{} {}.",
        if t >= last {
            "Whole run —".to_string()
        } else {
            format!("Up to {} {t} —", if ms { "ms" } else { "tick" })
        },
        lines.join(" · ")
    );
    let cut = tl
        .rules
        .iter()
        .find(|p| p.ticks > p.played)
        .map(|p| {
            format!(
                "The player shows the first {} {unit}; the run lasted {} {unit} (the cards and the chart cover all of it).",
                crate::ui::format::thousands(p.played),
                crate::ui::format::thousands(p.ticks)
            )
        })
        .unwrap_or_default();
    // The step clocks are drawn only in milliseconds, so only then are
    // they explained.
    let clocks = ms.then_some(
        "The disc beside each replica turns once per engine step. A step that computes more (a big prefill chunk, a large batch) takes longer, and that disc turns slower; small steps all cost about one read of the weights, so their discs keep pace.",
    );
    view! {
        <p class="small" id="player-so-far">{so_far}</p>
        <p class="small">{clocks}</p>
        <p class="small muted">{cut}</p>
        <details class="player-table">
            <summary>"Per replica so far"</summary>
            {replicas(tl, t, ms)}
        </details>
    }
    .into_any()
}

/// The Routing Lab's player: the rule in focus (and a second rule side by
/// side) recorded tick by tick in the worker, on request.
pub const PLAYER: Player<RoutingLab> = Player {
    heading: "Watch it tick",
    records: true,
    side_by_side: true,
    len: |v| timeline(v).map_or(0, Timeline::len),
    moments: |v| {
        timeline(v)
            .map(crate::labs::routing::scene::moments)
            .unwrap_or_default()
    },
    narrate: |v| {
        timeline(v)
            .map(|t| crate::labs::routing::scene::narrate(t, v.step(), v.config.timing.in_ms()))
            .unwrap_or_default()
    },
    scene: |v, width, palette| {
        crate::labs::routing::scene::scene(
            timeline(v)?,
            v.config.slots,
            v.config.prefill_budget,
            v.step(),
            width,
            palette,
        )
    },
    legend: r#"<p class="small legend-states"><span class="key"><span class="key-dot waiting"></span> waiting</span> <span class="key"><span class="key-dot prefill"></span> prefill</span> <span class="key"><span class="key-dot decode"></span> decode</span> <span class="key"><span class="key-dot done"></span> finished</span> · dot size: its work (prefill and output) · <span class="key"><span class="key-dot ring"></span> ring:</span> a long answer · <span class="key"><span class="key-dot hit"></span> green wedge:</span> the share of its prompt the replica had cached (none: a miss)</p>"#,
    detail,
    ..Player::PLAIN
};
