//! The Routing Lab's tables: all rules compared, and one rule's replicas.

use sim_core::choice::Choice;
use sim_core::labs::routing::{Outcome, RuleOutcome};
use sim_core::routing::RuleKind;

use leptos::prelude::AnyView;

use crate::ui::format::{one_decimal, percent, thousands, ticks};
use crate::ui::table::{Cell, Column, Compare, Pick, Row, Table};
use crate::ui::theme::replica_hex;

/// The comparison's columns, written once for both time modes: `$unit`
/// opens the meaning of the time columns, and throughput is per tick or
/// (×1000, a tick being a millisecond) per second.
macro_rules! columns {
    ($unit:literal, $per:literal, $scale:literal $(, $extra:expr)*) => {
        &[
            Column {
                title: "TTFT median",
                meaning: concat!($unit, " from arrival to first token, middle request"),
                value: |r| r.ttft_p50,
                show: ticks,
                higher_is_better: false,
            },
            Column {
                title: "TTFT P95",
                meaning: concat!($unit, " to first token that 95% of requests beat"),
                value: |r| r.ttft_p95,
                show: ticks,
                higher_is_better: false,
            },
            Column {
                title: "E2E P95",
                meaning: concat!($unit, " from arrival to last token, 95th percentile"),
                value: |r| r.e2e_p95,
                show: ticks,
                higher_is_better: false,
            },
            Column {
                title: "SLO met",
                meaning: "share of requests with TTFT within the SLO",
                value: |r| r.slo_attainment,
                show: percent,
                higher_is_better: true,
            },
            Column {
                title: "From cache",
                meaning: "share of prompt tokens reused from a prefix cache",
                value: |r| r.cache_hit_share,
                show: percent,
                higher_is_better: true,
            },
            Column {
                title: "Assignment gap",
                meaning: "most requests sent to one replica minus fewest",
                value: |r| f64::from(r.assignment_gap),
                show: |x| thousands(x as u64),
                higher_is_better: false,
            },
            Column {
                title: "Throughput",
                meaning: concat!("output tokens per ", $per, " over the run"),
                value: |r| r.output_throughput * $scale,
                show: one_decimal,
                higher_is_better: true,
            },
            $($extra,)*
        ]
    };
}

pub(crate) const COLUMNS: &[Column<RuleOutcome>] = columns!("ticks", "tick", 1.0);

/// The same columns in milliseconds mode.
/// In milliseconds mode, TPOT and ITL as vLLM's benchmark defines them
/// follow: they part when speculative decoding streams several tokens a
/// chunk (`docs/model.md`, "Speculative decoding").
pub(crate) const MS_COLUMNS: &[Column<RuleOutcome>] = columns!(
    "ms",
    "second",
    1000.0,
    Column {
        title: "TPOT mean",
        meaning: "ms per output token after the first, per request, averaged",
        value: |r| r.tpot_mean,
        show: one_decimal,
        higher_is_better: false,
    },
    Column {
        title: "ITL mean",
        meaning: "ms between two streamed chunks, all gaps pooled; above TPOT when a chunk carries several tokens",
        value: |r| r.itl_mean,
        show: one_decimal,
        higher_is_better: false,
    }
);

/// Every rule on the same trace, best per column marked; with `pick`, each
/// rule's name is a button (`data-key` = rule name) that selects it (none
/// when an embed locks the rule: then it is plain text, not a dead button).
pub fn compare_table(o: &Outcome, selected: RuleKind, pick: Option<Pick>, ms: bool) -> AnyView {
    Compare {
        id: "compare-table",
        caption: "All rules on the same trace and settings",
        first: "Rule",
        items: &o.rules,
        title: |r| r.rule.title(),
        key: Some(|r: &RuleOutcome| r.rule.name()),
        selected: &|r| r.rule == selected,
        columns: if ms { MS_COLUMNS } else { COLUMNS },
        so_far: false,
    }
    .view(pick)
}

/// One rule's replicas: speed, when it joined, assigned, completed,
/// utilisation and its prefill part, and its mean queue.
pub fn replica_table(r: &RuleOutcome, ms: bool) -> AnyView {
    Table {
        id: "replica-table",
        class: "replicas",
        caption: format!("Per-replica breakdown under {}", r.rule.title()),
        head: [
            ("Replica", ""),
            (
                "Speed",
                "iterations per tick, relative to a standard replica",
            ),
            (
                "Joined",
                if ms {
                    "ms at which it joined the pool"
                } else {
                    "tick it joined the pool"
                },
            ),
            ("Assigned", "requests routed to this replica"),
            ("Completed", "requests it finished"),
            (
                "Utilization",
                if ms {
                    "share of its time spent running a prefill or decode step"
                } else {
                    "share of ticks it ran a prefill or decode step"
                },
            ),
            (
                "of which prefill",
                if ms {
                    "share of its time spent on prefill steps"
                } else {
                    "share of ticks spent on prefill steps"
                },
            ),
            (
                "Mean queue",
                "requests waiting or running there, averaged over time since it joined",
            ),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
        rows: r
            .replicas
            .iter()
            .enumerate()
            .map(|(i, x)| Row {
                cells: vec![
                    Cell::new(format!("Replica {}", i + 1)).swatch(replica_hex(i)),
                    Cell::new(format!("{}×", sim_core::params::number_text(x.speed))),
                    Cell::new(if x.joined_at == 0 {
                        "at start".to_string()
                    } else {
                        if ms {
                            format!("{} ms", thousands(x.joined_at))
                        } else {
                            format!("tick {}", thousands(x.joined_at))
                        }
                    }),
                    Cell::new(thousands(x.assigned.into())),
                    Cell::new(thousands(x.completed.into())),
                    Cell::new(percent(x.utilization)),
                    Cell::new(percent(x.prefill_share)),
                    Cell::new(one_decimal(x.mean_outstanding)),
                ],
                ..Row::default()
            })
            .collect(),
    }
    .view(None)
}
