//! The goodput lab at the ends of its sweep range: rates past the Routing
//! Lab's slider (up to 5 per tick) still run every rule, and the outcome's
//! JSON reads back into the outcome type the page deserialises (a NaN would be
//! written as null and refused there).

use sim_core::labs::goodput::{Config, GoodputLab, Outcome};
use sim_core::labs::{Input, Lab};

#[test]
fn a_sweep_to_five_per_tick_runs_every_rule_and_reads_back() {
    let config = Config {
        sweep_to: 5.0,
        ..Config::default()
    };
    let o = GoodputLab::run(&config, &Input::all()).expect("valid");
    let top = o.points.last().expect("points");
    assert!((top.rate - 5.0).abs() < 1e-9);
    for r in &top.rules {
        assert!(r.ttft_p95.is_finite() && r.ttft_p95 > 0.0, "{:?}", r);
        assert!(
            r.slo_attainment < 0.95,
            "{:?} keeps up at 5 per tick?",
            r.rule
        );
    }
    let bytes = sim_core::labs::encode(&o).expect("encodes");
    let back: Outcome = sim_core::labs::decode(&bytes).expect("the page can read it");
    assert_eq!(back.points.len(), o.points.len());
}
