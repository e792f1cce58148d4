//! The fairness player's own panel (see `labs::fairness`, the page that
//! places it): every tenant under the scheduler in focus.

use sim_core::choice::Choice;
use sim_core::labs::fairness::{SchedulerRun, TENANTS};

use leptos::prelude::AnyView;

use crate::ui::format::fixed;
use crate::ui::table::{Cell, Row, Table};
use crate::ui::theme::replica_hex;

/// A share as a percentage with one decimal ("12.5%").
pub(crate) fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 1))
}

/// Per tenant under the scheduler in focus.
pub(crate) fn tenants(r: &SchedulerRun) -> AnyView {
    let head = [
        ("Tenant", ""),
        ("Finished", "requests finished"),
        ("Requests", "share of all finished requests"),
        ("GPU time", "share of the engine's GPU time"),
        (
            "Service",
            "weighted tokens served per iteration (VTC's measure)",
        ),
        ("TTFT P95", "iterations to the first token, 95th percentile"),
        (
            "From cache",
            "share of its prompt tokens served from the prefix cache",
        ),
        ("Preempted", "its sequences evicted by strict priority"),
    ];
    Table {
        id: "fairness-tenants",
        class: "",
        caption: format!("Tenants under {}", r.scheduler.title()),
        head: head
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        rows: r
            .tenants
            .iter()
            .enumerate()
            .map(|(t, x)| Row {
                cells: vec![
                    Cell::new(TENANTS[t].name).swatch(replica_hex(t)),
                    Cell::new(x.finished.to_string()),
                    Cell::new(percent(x.request_share)),
                    Cell::new(percent(x.gpu_share)),
                    Cell::new(fixed(x.service, 1)),
                    Cell::new(fixed(x.ttft_p95, 0)),
                    Cell::new(percent(x.cache_share)),
                    Cell::new(x.preempted.to_string()),
                ],
                selected: false,
                key: None,
            })
            .collect(),
    }
    .view(None)
}
