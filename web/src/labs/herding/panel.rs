//! The herding player's own panel (see `labs::herding`, the page that places
//! it): one tick's replicas, who scraped, and what each router believes.

use sim_core::labs::herding::{HerdingRule, TickSnapshot};

use leptos::prelude::*;

use crate::ui::table::{Cell, Row, Table};
use crate::ui::theme::replica_hex;

/// One tick: its heading, bars of actual outstanding (new work hatched),
/// who scraped, and what each router sees.
pub(crate) fn tick_view(tick: &TickSnapshot, rule: HerdingRule) -> AnyView {
    let heading = format!(
        "Tick {} · {} arrivals · max − min = {}",
        tick.tick, tick.arrivals, tick.skew
    );
    let scraped: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scraped)
        .map(|(i, _)| format!("Router {}", i + 1))
        .collect();
    let scraped = if scraped.is_empty() {
        "Nobody scraped this tick.".to_string()
    } else {
        format!("Scraped this tick: {}.", scraped.join(", "))
    };
    view! {
        <h2 id="tick-heading">{heading}</h2>
        <div class="bars" role="list" aria-label="Actual outstanding requests per replica">
            {bars_view(tick)}
        </div>
        <p class="small legend">
            <span class="key-old"></span>" in flight from earlier ticks "
            <span class="key-new"></span>" dispatched this tick"
        </p>
        <p id="scraped">{scraped}</p>
        {routers_table(tick, rule).view(None)}
    }
    .into_any()
}

/// A bar per replica: its actual outstanding requests, the part dispatched
/// this tick hatched, scaled to the busiest replica.
fn bars_view(tick: &TickSnapshot) -> AnyView {
    let max = tick.outstanding.iter().copied().max().unwrap_or(0).max(1);
    let width = |x: u32| crate::ui::format::fixed(100.0 * f64::from(x) / f64::from(max), 2);
    tick.outstanding
        .iter()
        .zip(&tick.new)
        .enumerate()
        .map(|(i, (&o, &new))| {
            let c = replica_hex(i);
            let extra = if new > 0 {
                format!(" (+{new} new)")
            } else {
                String::new()
            };
            // Inline styles: the width is data, the colour the replica's.
            let old_style = format!("width:{}%;background:{c}", width(o - new));
            let new_style = format!("width:{}%;--c:{c}", width(new));
            view! {
                <div class="bar-row" role="listitem">
                    <span class="bar-label">{format!("Replica {}", i + 1)}</span>
                    <span class="bar-track">
                        <span class="bar-old" style=old_style></span>
                        <span class="bar-new" style=new_style></span>
                    </span>
                    <span class="bar-value">{format!("{o}{extra}")}</span>
                </div>
            }
        })
        .collect_view()
        .into_any()
}

/// What each router believes of every replica at this tick (its snapshot,
/// plus its own dispatches since when the rule counts them), how old that
/// snapshot is, and where it sent this tick's requests.
fn routers_table(tick: &TickSnapshot, rule: HerdingRule) -> Table {
    let counts_own = rule.counts_own();
    let n = tick.outstanding.len();
    let mut head = vec![("Router".to_string(), String::new())];
    head.extend((0..n).map(|i| {
        (
            format!("R{}", i + 1),
            format!("replica {} as this router sees it", i + 1),
        )
    }));
    head.push(("Age".into(), "ticks since this router last scraped".into()));
    head.push(("Sent this tick to".into(), String::new()));
    let rows = tick
        .routers
        .iter()
        .enumerate()
        .map(|(k, r)| {
            let mut cells = vec![Cell::new(format!(
                "Router {}{}",
                k + 1,
                if r.scraped { " ⟳" } else { "" }
            ))];
            cells.extend(r.snapshot.iter().zip(&r.own).map(|(v, o)| {
                Cell::new(if counts_own && *o > 0 {
                    format!("{v}+{o}")
                } else {
                    v.to_string()
                })
            }));
            cells.push(Cell::new(r.age.to_string()));
            let sent = if r.dispatched.is_empty() {
                "—".to_string()
            } else {
                r.dispatched
                    .iter()
                    .map(|d| format!("Replica {}", d + 1))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            cells.push(Cell::new(sent).class("sent"));
            Row {
                cells,
                ..Row::default()
            }
        })
        .collect();
    Table {
        id: "router-table",
        caption: format!(
            "What each router sees{}",
            if counts_own {
                " (snapshot + own dispatches since it)"
            } else {
                ""
            }
        ),
        head,
        rows,
        ..Table::default()
    }
}
