//! The prefix-affinity player's own panels (see `labs::prefix`, the page
//! that places them): every request with both routers' decisions, and one
//! router's replicas at the request on the player.

use sim_core::choice::Choice;
use sim_core::labs::prefix::{Outcome, PrefixReason, PrefixRequest, RouterRun, Step};

use leptos::prelude::*;

use crate::ui::format::thousands;
use crate::ui::table::{Cell, Row, Table};

/// The reason for one decision, in plain words (replicas 1-based).
fn explain(
    reason: PrefixReason,
    req: &PrefixRequest,
    target: u32,
    threshold: Option<u32>,
    load_before: u32,
) -> String {
    let p = req.prefix;
    match reason {
        PrefixReason::Load => format!(
            "Fewest assignments so far: replica {} had {load_before}. The prefix is not looked at.",
            target + 1
        ),
        PrefixReason::FirstSight => format!("First sight of P{p}: no replica has it, so it goes to the least-loaded replica."),
        PrefixReason::Affinity => format!("Replica {} caches P{p} and is within the load gap: affinity wins.", target + 1),
        PrefixReason::AffinityDropped { holder, holder_load, least_load } => format!(
            "Affinity dropped: replica {} holds P{p} but is {} requests ahead of replica {}, over the threshold of {}.",
            holder + 1,
            holder_load - least_load,
            target + 1,
            threshold.map_or("∞".into(), |t| t.to_string())
        ),
        PrefixReason::Evicted => format!("P{p} was seen before but no replica still caches it: sent by load."),
    }
}

/// Every request with both routers' decisions, as a table; the request on
/// the player is highlighted.
pub(crate) fn steps_view(o: &Outcome, current: usize) -> AnyView {
    let head = [
        "Request",
        "Prefix",
        "Load only",
        "Prefill",
        "Prefix-aware",
        "Why",
        "Prefill",
    ]
    .iter()
    .map(|h| (h.to_string(), String::new()))
    .collect();
    let (a, b) = (&o.routers[0], &o.routers[1]);
    let rows = o
        .trace
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let place = |s: &Step| {
                format!(
                    "replica {} · {}",
                    s.target + 1,
                    if s.hit { "hit" } else { "miss" }
                )
            };
            Row {
                cells: vec![
                    Cell::new(format!("R{}", i + 1)),
                    Cell::new(format!("P{}", r.prefix)),
                    Cell::new(place(&a.steps[i])),
                    Cell::new(thousands(a.steps[i].prefill_tokens.into())),
                    Cell::new(place(&b.steps[i])),
                    Cell::new(b.steps[i].reason.name()).class("sent"),
                    Cell::new(thousands(b.steps[i].prefill_tokens.into())),
                ],
                selected: i == current,
                key: None,
            }
        })
        .collect();
    let last = o.trace.len().saturating_sub(1);
    let (ta, tb) = (a.totals_upto(current), b.totals_upto(current));
    let mut rows: Vec<Row> = rows;
    rows.push(Row {
        cells: vec![
            Cell::new(if current >= last {
                "Whole run".to_string()
            } else {
                format!("R1–R{} so far", current + 1)
            })
            .class("totals-row"),
            Cell::new(""),
            Cell::new(format!("{} hits", ta.hits)),
            Cell::new(thousands(ta.prefill_tokens)),
            Cell::new(format!("{} hits", tb.hits)),
            Cell::new(format!("{} escapes", tb.escapes)),
            Cell::new(thousands(tb.prefill_tokens)),
        ],
        selected: false,
        key: None,
    });
    Table {
        id: "prefix-steps",
        caption: "Every request, both routers (prefill in tokens; the last row totals the requests played so far)".into(),
        head,
        rows,
        ..Table::default()
    }
    .view(None)
}

/// One router's panel at request `index`: where the request went and why,
/// each replica's cache, and the prefill so far.
pub(crate) fn panel_view(
    run: &RouterRun,
    trace: &[PrefixRequest],
    index: usize,
    threshold: Option<u32>,
) -> AnyView {
    let s = &run.steps[index];
    let req = trace[index];
    let before = if index == 0 {
        0
    } else {
        run.steps[index - 1].assignments[s.target as usize]
    };
    let (badge, badge_text) = if s.hit {
        ("badge hit", "cache hit")
    } else {
        ("badge miss", "cache miss")
    };
    let hits = run.steps[..=index].iter().filter(|x| x.hit).count();
    view! {
        <div class="router-panel" id=format!("panel-{}", run.router.name())>
            <h3>{run.router.title()}</h3>
            <p class="routed">
                "Routed to "<strong>{format!("replica {}", s.target + 1)}</strong>" "
                <span class=badge>{badge_text}</span>
            </p>
            <p class="reason">{explain(s.reason, &req, s.target, threshold, before)}</p>
            <div class="caches" role="list" aria-label="Cache contents per replica">
                {caches_view(s)}
            </div>
            <dl class="totals">
                <dt>"Prefill for this request"</dt>
                <dd>{format!("{} tokens", thousands(s.prefill_tokens.into()))}</dd>
                <dt>"Cumulative prefill"</dt>
                <dd class="cumulative">{format!("{} tokens", thousands(s.cumulative_prefill))}</dd>
                <dt>"Hits so far"</dt>
                <dd class="hits">{format!("{hits} of {}", index + 1)}</dd>
            </dl>
        </div>
    }
    .into_any()
}

/// Each replica's cache after one step: its cached prefixes with their hits,
/// and how many requests it has been assigned; the step's target is marked.
fn caches_view(s: &Step) -> AnyView {
    s.caches
        .iter()
        .enumerate()
        .map(|(r, entries)| {
            let slots = if entries.is_empty() {
                view! { <span class="slot empty">"empty"</span> }.into_any()
            } else {
                entries
                    .iter()
                    .map(|e| {
                        let hits = if e.hits == 1 { "" } else { "s" };
                        view! { <span class="slot">{format!("P{} · {} hit{hits}", e.prefix, e.hits)}</span> }
                    })
                    .collect_view()
                    .into_any()
            };
            let class = if r as u32 == s.target {
                "cache target"
            } else {
                "cache"
            };
            view! {
                <div class=class role="listitem">
                    <span class="cache-name">{format!("Replica {}", r + 1)}</span>
                    {slots}
                    <span class="cache-load">{format!("{} assigned", s.assignments[r])}</span>
                </div>
            }
        })
        .collect_view()
        .into_any()
}
