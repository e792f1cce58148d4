//! The batching player reproduces the article's §7.2 figures exactly.

use sim_core::choice::Choice;
use sim_core::labs::batching::{self, Config, Mode, SlotState, TraceChoice};

#[test]
fn default_trace_matches_the_article() {
    let o = batching::run(&Config::default(), Mode::ALL).expect("valid");
    let get = |m| o.mode(m).expect("ran");
    let (s, c, k) = (get(Mode::Static), get(Mode::Continuous), get(Mode::Chunked));
    assert_eq!(
        (s.iterations, c.iterations, k.iterations),
        (25, 19, 14),
        "iterations to drain"
    );
    assert_eq!(
        (
            s.zero_output_iterations,
            c.zero_output_iterations,
            k.zero_output_iterations
        ),
        (6, 8, 1),
        "zero-output iterations"
    );
    let pct = |x: f64| (x * 100.0).round() as u32;
    assert_eq!(
        (
            pct(s.slot_occupancy),
            pct(c.slot_occupancy),
            pct(k.slot_occupancy)
        ),
        (57, 91, 93)
    );
    assert_eq!(
        (
            s.occupied_slot_iterations,
            c.occupied_slot_iterations,
            k.occupied_slot_iterations
        ),
        (43, 52, 39)
    );
    // Iteration 1 under continuous batching: A and B prefill, slot 3 idle, no output.
    let first = &c.iterations_detail[0];
    assert_eq!(first.iteration, 1);
    assert_eq!(
        first.slots,
        [
            SlotState::Prefill { label: "A".into() },
            SlotState::Prefill { label: "B".into() },
            SlotState::Idle
        ]
    );
    assert_eq!(first.output_tokens, 0);
    assert!(first.zero_output);
}

#[test]
fn iteration_records_are_consistent() {
    for cfg in [
        Config::default(),
        Config {
            trace: TraceChoice::Random,
            seed: 9,
            slots: 2,
            ..Config::default()
        },
        Config {
            chunk_budget: 1,
            ..Config::default()
        },
        Config {
            slots: 5,
            ..Config::default()
        },
    ] {
        let o = batching::run(&cfg, Mode::ALL).expect("valid");
        let total_output: u32 = o.trace.iter().map(|r| r.output).sum();
        for m in &o.modes {
            assert_eq!(m.iterations_detail.len() as u32, m.iterations);
            let emitted: u32 = m.iterations_detail.iter().map(|d| d.output_tokens).sum();
            assert_eq!(emitted, total_output, "{:?}", m.mode);
            let occupied = m
                .iterations_detail
                .iter()
                .flat_map(|d| &d.slots)
                .filter(|s| **s != SlotState::Idle)
                .count();
            assert_eq!(occupied as u32, m.occupied_slot_iterations);
            assert_eq!(
                m.iterations_detail.last().map(|d| d.completed.len()),
                Some(o.trace.len())
            );
            for r in &m.requests {
                assert!(r.finished <= m.iterations);
                if let Some(g) = r.inter_token_gap {
                    assert!(g >= 1.0, "tokens are at least one iteration apart");
                }
                assert!(
                    r.ttft >= 2,
                    "admission, one prefill chunk and one decode at the least"
                );
            }
        }
        // Chunked prefill never stalls decode at the default budget.
        if cfg.chunk_budget >= cfg.slots {
            let k = o.mode(Mode::Chunked).expect("ran");
            assert!(k
                .requests
                .iter()
                .filter_map(|r| r.mean_gap)
                .all(|g| g == 1.0));
        }
    }
}

#[test]
fn a_smaller_chunk_budget_slows_the_drain() {
    let iters = |b| {
        let cfg = Config {
            chunk_budget: b,
            ..Config::default()
        };
        batching::run(&cfg, &[Mode::Chunked]).expect("valid").modes[0].iterations
    };
    assert!(
        iters(1) > iters(2) && iters(2) >= iters(3),
        "{} {} {}",
        iters(1),
        iters(2),
        iters(3)
    );
}

#[test]
fn bad_config_is_a_typed_error() {
    let err = batching::run(
        &Config {
            slots: 0,
            ..Config::default()
        },
        Mode::ALL,
    )
    .expect_err("invalid");
    assert_eq!(err.key, "slots");
}

#[test]
fn the_budget_order_trades_drain_time_against_token_gaps() {
    let o = batching::run(&Config::default(), &[Mode::Chunked]).expect("valid");
    let at = |b: u32, pf: bool| {
        o.budget_sweep
            .iter()
            .find(|p| p.budget == b && p.prefill_first == pf)
            .expect("swept")
            .clone()
    };
    // Under a tight budget, prefill first drains sooner but stalls decode.
    let (decode_first, prefill_first) = (at(2, false), at(2, true));
    assert!(prefill_first.iterations < decode_first.iterations);
    assert!(prefill_first.mean_gap > decode_first.mean_gap);
    assert_eq!(decode_first.mean_gap, 1.0);
    // With a budget of at least the slot count both orders are the article's 14 iterations.
    assert_eq!((at(3, false).iterations, at(3, true).iterations), (14, 14));
}
