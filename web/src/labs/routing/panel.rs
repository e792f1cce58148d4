//! The Routing Lab player's own panel (see `labs::routing::player`, which
//! places it): every replica at the tick on the player.

use sim_core::choice::Choice;
use sim_core::labs::routing::player::Timeline;

use leptos::prelude::AnyView;

use crate::ui::table::{Cell, Row, Table};

/// Per replica at the current tick: routed and finished so far, waiting and
/// running now (totals up to the tick; the whole run at the last one).
pub(crate) fn replicas(tl: &Timeline, t: usize, ms: bool) -> AnyView {
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
        .filter_map(|p| p.at(t))
        .map(|f| f.assigned.len())
        .max()
        .unwrap_or(0);
    let rows = (0..n)
        .map(|r| {
            let mut cells = vec![Cell::new(format!("Replica {}", r + 1))];
            for p in &tl.rules {
                let f = p.at(t);
                let get = |v: Option<&[u32]>| v.and_then(|v| v.get(r)).copied().unwrap_or(0);
                cells.push(Cell::new(get(f.map(|f| f.assigned)).to_string()));
                cells.push(Cell::new(get(f.map(|f| f.completed)).to_string()));
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
            format!(
                "Per replica, {} 0–{t} so far",
                if ms { "ms" } else { "ticks" }
            )
        },
        head,
        rows,
        ..Table::default()
    }
    .view(None)
}
