//! "Why that replica?": one decision of the rule in focus, with the pick and
//! reason of every other rule at the same moment (the run's counterfactuals).
//!
//! The counterfactual run is made in the worker only while the disclosure is
//! open, for the focus rule alone: sim-core asks every other rule without
//! letting it act (`Router::peek`), so the explained run is exactly the one in
//! the tables.

use leptos::prelude::*;
use sim_core::choice::Choice;
use sim_core::labs::routing::{DecisionDetail, Outcome};
use sim_core::params;
use sim_core::routing::RuleKind;

use crate::page::job;
use crate::page::state::State;
use crate::platform::traces::TraceState;
use crate::platform::worker::Job;
use crate::ui::format::thousands;
use crate::ui::table::{Cell, Row, Table};
use crate::ui::theme::replica_hex;

/// Longest run the explorer explains (it re-runs the rule with every other
/// rule consulted at each decision, about as much work as the whole table).
pub const MAX_EXPLAINED: u32 = 5_000;

/// The explanation of decision `d` of `rule`, out of `total` decisions.
fn decision_view(rule: RuleKind, d: &DecisionDetail, total: usize, ms: bool) -> AnyView {
    let pick = d.decision.replica;
    let same = d
        .others
        .iter()
        .filter(|o| o.decision.replica == pick)
        .count();
    let summary = format!(
        "Request {} of {} arrived at {} with a {}-token prompt. {} sent it to replica {}: {}. \
         {} of the {} other rules would have sent it there too.",
        d.request + 1,
        thousands(total as u64),
        if ms {
            format!("{} ms", thousands(d.tick))
        } else {
            format!("tick {}", thousands(d.tick))
        },
        thousands(d.prompt_tokens.into()),
        rule.title(),
        pick + 1,
        d.decision.reason.explain(),
        same,
        d.others.len()
    );
    let row =
        |r: RuleKind, replica: u32, why: String, selected: bool| Row {
            cells: vec![
                Cell::new(r.title()),
                Cell::new(format!("Replica {}", replica + 1)).swatch(replica_hex(replica as usize)),
                Cell::new(if replica == pick { "same" } else { "other" })
                    .class(if replica == pick { "agree" } else { "" }),
                Cell::new(why),
            ],
            selected,
            ..Row::default()
        };
    let mut rows = vec![row(rule, pick, d.decision.reason.explain(), true)];
    rows.extend(d.others.iter().map(|o| {
        row(
            o.rule,
            o.decision.replica,
            o.decision.reason.explain(),
            false,
        )
    }));
    let table = Table {
        id: "decision-table",
        class: "decisions",
        caption: format!("Request {}: where each rule would send it", d.request + 1),
        head: [
            ("Rule", ""),
            ("Replica", "where this rule sends the request"),
            ("Pick", "same replica as the rule in focus, or another"),
            ("Why", "the rule's reason, from the state at that moment"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
        rows,
    };
    view! {
        <p id="decision-summary">{summary}</p>
        {table.view(None)}
    }
    .into_any()
}

/// The decision explorer for the rule in focus of the Routing Lab's page.
pub fn decisions(state: &State) -> AnyView {
    let state = *state;
    let open = RwSignal::new(false);
    let index = RwSignal::new(0usize);
    let main = state.main;
    let rule = move || {
        state
            .focus_name()
            .and_then(RuleKind::from_name)
            .unwrap_or(RuleKind::LeastOutstanding)
    };
    // How many requests the page's run has (a trace's own count, once known).
    let requests = move || {
        main.get()
            .and_then(|o| o.get::<Outcome>().map(|o| o.trace.requests))
    };
    let too_many = move || requests().filter(|&n| n > MAX_EXPLAINED);
    let explained = job::use_run(
        move || {
            if !open.get() || too_many().is_some() {
                return None;
            }
            let mut pairs = state.config.with(|c| state.page.all_pairs(c));
            for p in pairs.iter_mut().filter(|p| p.0 == "counterfactuals") {
                p.1 = String::from("1");
            }
            let trace = match state.trace.get() {
                TraceState::Loading(_) => return None,
                t => t
                    .file()
                    .map(|file| (file, state.import.with(params::all_pairs))),
            };
            Some(Job {
                lab: "routing",
                pairs,
                only: vec![rule().name()],
                trace,
                record: Vec::new(),
            })
        },
        state.config,
        state.page,
        false,
    );
    let details = move || -> Option<Result<Vec<DecisionDetail>, String>> {
        if !open.get() {
            return None;
        }
        if let Some(n) = too_many() {
            return Some(Err(format!(
                "Decisions are explained for runs of up to {} requests; this one has {}. Lower Requests (or the trace's request limit) to explore them.",
                thousands(MAX_EXPLAINED.into()),
                thousands(n.into())
            )));
        }
        if let Some(e) = explained.error() {
            return Some(Err(e));
        }
        explained.get().and_then(|o| {
            o.get::<Outcome>()
                .and_then(|o| o.rules.first())
                .filter(|r| r.rule == rule())
                .map(|r| Ok(r.counterfactuals.clone()))
        })
    };
    let count = move || details().and_then(Result::ok).map_or(0, |d| d.len());
    let clamp = move |i: usize| i.min(count().saturating_sub(1));
    let body = move || -> AnyView {
        match details() {
            None => ().into_any(),
            Some(Err(why)) => {
                view! { <p class="small muted" id="decision-summary">{why}</p> }.into_any()
            }
            Some(Ok(list)) if list.is_empty() => ().into_any(),
            Some(Ok(list)) => {
                decision_view(rule(), &list[clamp(index.get())], list.len(), state.in_ms())
            }
        }
    };
    let shown = move || (clamp(index.get()) + 1).to_string();
    // Kept out of `view!`, whose parser would read `>` as the end of a tag.
    let at_first = move || clamp(index.get()) == 0;
    let at_last = move || clamp(index.get()) + 1 >= count();
    view! {
        <details class="decisions-panel" id="decisions"
            on:toggle=move |ev| {
                use wasm_bindgen::JsCast;
                if let Some(d) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok()) {
                    open.set(d.open());
                }
            }
        >
            <summary>"Why that replica? One decision, and where every other rule would have sent it"</summary>
            <div class="decision-nav" role="group" aria-label="Choose a request">
                <button type="button" id="decision-prev"
                    disabled=at_first
                    on:click=move |_| index.update(|i| *i = clamp(*i).saturating_sub(1))
                >"◀ Previous"</button>
                <label for="decision-request">"Request "</label>
                <input type="number" id="decision-request" min="1"
                    max=move || count().max(1).to_string()
                    prop:value=shown
                    on:change=move |ev| {
                        let v = event_target_value(&ev).trim().parse::<usize>().unwrap_or(1);
                        index.set(clamp(v.max(1) - 1));
                    }
                />
                <span class="small muted">{move || format!(" of {}", thousands(count() as u64))}</span>
                <button type="button" id="decision-next"
                    disabled=at_last
                    on:click=move |_| index.update(|i| *i = clamp(*i + 1))
                >"Next ▶"</button>
            </div>
            <div aria-live="polite"><div>{body}</div></div>
        </details>
    }
    .into_any()
}
