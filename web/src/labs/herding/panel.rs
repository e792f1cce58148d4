//! The herding player's own panel (see `labs::herding`, the page that places
//! it): one tick's replicas, who scraped, and what each router believes.

use sim_core::labs::herding::{HerdingRule, TickSnapshot};

use crate::ui::html::{el, Html};
use crate::ui::table::{Cell, Row, Table};
use crate::ui::theme::replica_hex;

/// One tick as HTML: bars of actual outstanding (new work hatched), who scraped,
/// and what each router sees.
pub(crate) fn tick_html(tick: &TickSnapshot, rule: HerdingRule) -> Html {
    let max = tick.outstanding.iter().copied().max().unwrap_or(0).max(1);
    let width = |x: u32| crate::ui::format::fixed(100.0 * f64::from(x) / f64::from(max), 2);
    let bars = tick
        .outstanding
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
            el("div")
                .class("bar-row")
                .attr("role", "listitem")
                .child(
                    el("span")
                        .class("bar-label")
                        .text(format!("Replica {}", i + 1)),
                )
                .child(
                    el("span")
                        .class("bar-track")
                        .child(
                            el("span")
                                .class("bar-old")
                                .attr("style", format!("width:{}%;background:{c}", width(o - new))),
                        )
                        .child(
                            el("span")
                                .class("bar-new")
                                .attr("style", format!("width:{}%;--c:{c}", width(new))),
                        ),
                )
                .child(el("span").class("bar-value").text(format!("{o}{extra}")))
        });
    let scraped: Vec<String> = tick
        .routers
        .iter()
        .enumerate()
        .filter(|(_, r)| r.scraped)
        .map(|(i, _)| format!("Router {}", i + 1))
        .collect();
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
    let routers = Table {
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
    };
    [
        Html::from(el("h2").id("tick-heading").text(format!(
            "Tick {} · {} arrivals · max − min = {}",
            tick.tick, tick.arrivals, tick.skew
        ))),
        el("div")
            .class("bars")
            .attr("role", "list")
            .attr("aria-label", "Actual outstanding requests per replica")
            .children(bars)
            .into(),
        Html::trusted(r#"<p class="small legend"><span class="key-old"></span> in flight from earlier ticks <span class="key-new"></span> dispatched this tick</p>"#),
        el("p")
            .id("scraped")
            .text(if scraped.is_empty() {
                "Nobody scraped this tick.".to_string()
            } else {
                format!("Scraped this tick: {}.", scraped.join(", "))
            })
            .into(),
        routers.html(),
    ]
    .into_iter()
    .collect()
}
