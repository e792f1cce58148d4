//! Hedging (§9.2): duplicates after a percentile threshold, against never and
//! always duplicating; for LLM calls, hedging only until the first token.

use sim_core::labs::queueing::hedging;

use super::{range, seed_controls, Explorable, Outcome, Page, Params};
use crate::components::ControlSpec;
use crate::format::{fill, fixed};
use crate::html::{Cell, Row, Table};

/// Display name and one-line meaning of a strategy.
fn describe(name: &str, at: &str) -> (String, &'static str) {
    match name {
        "none" => ("No hedging".into(), "one request, whatever it takes"),
        "hedge" => (
            fill("Hedge at P{}", &[at.into()]),
            "a duplicate once the threshold passes; the slower copy is cancelled",
        ),
        "always" => (
            "Always duplicate".into(),
            "two copies of every request from the start",
        ),
        "hedge-first-token" => (
            "Hedge to first token".into(),
            "race to the first token, then cancel the loser: only prefill is duplicated",
        ),
        _ => (
            "Hedge, both decode".into(),
            "the same hedge, but both copies run to their last token",
        ),
    }
}

fn controls() -> Vec<ControlSpec> {
    let int = |x: f64| fixed(x, 0);
    vec![
        range(
            "at",
            "Hedge after percentile",
            "send a duplicate once a request is slower than this percentile",
            50.0,
            99.9,
            0.1,
            "",
            |x| fill("P{}", &[fixed(x, 1)]),
        ),
        range(
            "slow",
            "Slow requests",
            "share of requests in the slow tail",
            0.0,
            50.0,
            1.0,
            "%",
            int,
        ),
        range(
            "factor",
            "Slowdown of the tail",
            "how many times slower a slow request is",
            1.0,
            20.0,
            0.5,
            "×",
            |x| fixed(x, 1),
        ),
        range(
            "ttft",
            "Time to first token",
            "share of a request's latency before its first token",
            5.0,
            95.0,
            5.0,
            "%",
            int,
        ),
    ]
    .into_iter()
    .chain(seed_controls("Seed"))
    .collect()
}

fn compute(p: &Params) -> Result<Page, String> {
    let cfg = hedging::Config {
        hedge_at: p.num("at"),
        slow_share: p.num("slow") / 100.0,
        slow_factor: p.num("factor"),
        ttft_share: p.num("ttft") / 100.0,
        seed: p.whole("seed"),
        ..hedging::Config::default()
    };
    let o = hedging::run(&cfg).map_err(|e| e.to_string())?;
    let at = fixed(cfg.hedge_at, 1);
    let names: Vec<String> = o
        .strategies
        .iter()
        .map(|s| describe(&s.strategy, &at).0)
        .collect();
    type Col = (&'static str, &'static str, fn(&hedging::Strategy) -> f64);
    let columns: [Col; 5] = [
        ("P50 (ms)", "median latency", |s| s.p50),
        ("P95 (ms)", "95th percentile latency", |s| s.p95),
        ("P99 (ms)", "99th percentile latency", |s| s.p99),
        ("Extra requests", "duplicates sent, as a share of requests", |s| s.extra_load),
        ("Extra GPU work", "server time spent on duplicates until cancelled, as a share of the work without hedging", |s| s.extra_work),
    ];
    // Latencies in whole ms; shares as percentages with one decimal.
    let show = |c: usize, v: f64| {
        if c < 3 {
            fixed(v, 0)
        } else {
            fill("{}%", &[fixed(v * 100.0, 1)])
        }
    };
    let cells: Vec<Vec<String>> = o
        .strategies
        .iter()
        .map(|s| (0..5).map(|c| show(c, (columns[c].2)(s))).collect())
        .collect();
    let rows = o
        .strategies
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut row = vec![
                Cell::new(names[i].clone()).swatch(crate::theme::replica_hex(
                    crate::charts::hedging::COLORS[i % 5],
                )),
            ];
            row.extend((0..5).map(|c| {
                // Lowest is best in every column; ties judged on what is shown.
                let best = o
                    .strategies
                    .iter()
                    .map(|t| (columns[c].2)(t))
                    .fold(f64::MAX, f64::min);
                Cell::new(cells[i][c].clone())
                    .best(show(c, best) == cells[i][c] && (columns[c].2)(s).is_finite())
            }));
            Row {
                cells: row,
                ..Row::default()
            }
        })
        .collect();
    let mut head = vec![("Strategy".to_string(), String::new())];
    head.extend(columns.iter().map(|c| (c.0.to_string(), c.1.to_string())));
    let mut html = fill(
        r#"<h2>Latency and what it costs</h2><p class="small">Threshold: P{} = <strong id="threshold">{} ms</strong> (first-token threshold {} ms), over {} seeded requests.</p>"#,
        &[
            at.clone(),
            fixed(o.threshold, 0),
            fixed(o.threshold * cfg.ttft_share, 0),
            crate::format::thousands(cfg.requests.into()),
        ],
    );
    html += &Table {
        id: "strategies",
        class: "compare",
        caption: "Every strategy on the same latency draws".into(),
        head,
        rows,
    }
    .render();
    let head = std::mem::take(&mut html);
    html += r#"<dl class="small definitions">"#;
    for s in &o.strategies {
        let (name, meaning) = describe(&s.strategy, &at);
        html += &fill("<dt>{}</dt><dd>{}</dd>", &[name, meaning.into()]);
    }
    html += r#"</dl><p class="small muted">Latencies: log-normal, mean 220 ms, plus the slow tail you set. ★ marks each column's best.</p>"#;
    let summary = fill(
        "P99 latency against extra GPU work: no hedging {} ms at no cost; hedging at P{} {} ms for {} more work; always duplicating {} ms for {} more; hedging to the first token {} ms for {} more.",
        &[
            cells[0][2].clone(),
            at,
            cells[1][2].clone(),
            cells[1][4].clone(),
            cells[2][2].clone(),
            cells[2][4].clone(),
            cells[3][2].clone(),
            cells[3][4].clone(),
        ],
    );
    Ok(Page {
        head,
        html,
        chart: crate::charts::hedging::spec(&o, &names),
        summary,
        outcome: Outcome::Hedging(o),
    })
}

/// The hedging explorable.
pub static EXPLORABLE: Explorable = Explorable {
    id: "hedging",
    header: r#"<h1>Hedged requests</h1><p class="lede">Send a second copy only once a request is slower than most: the tail shrinks and only the slow few are duplicated. Compare with never and always duplicating, and with racing LLM calls only to the first token.</p><p class="small muted">After Dean and Barroso, “The Tail at Scale” (2013). Follows §9.2 of the reference article.</p>"#,
    controls,
    defaults: &[
        ("at", "95"),
        ("slow", "5"),
        ("factor", "5"),
        ("ttft", "30"),
        ("seed", "1"),
    ],
    text_ok: |_, _| false,
    compute,
    defer: |_, _| true,
    caption: "Tail latency against the GPU work each strategy adds",
    help: "One dot per strategy: its 99th-percentile latency (lower is better) against the extra server work its duplicates cost (left is cheaper). The two LLM hedges share a latency; cancelling at the first token spends only the loser's prefill. Sliders apply when released (each run draws 100,000 requests).",
};
