//! The article's claims about admission control (§9.3, with the knee of
//! §1.2), tested over seeds 1–100 with a stated pass ratio each. Every
//! policy runs on the same requests in a seed, so the comparisons are paired.

use sim_core::choice::Choice;
use sim_core::labs::admission::{self, Config, Policy, PolicyRun};

const SEEDS: u64 = 100;

/// The defaults at a steady `load` (no surge, no failing replica): the
/// claims about load hold without the lab's default story around them.
fn steady(load: f64, seed: u64) -> Config {
    Config {
        load,
        surge: 0.0,
        failure: 0.0,
        seed,
        ..Config::default()
    }
}

fn runs(config: &Config) -> Vec<PolicyRun> {
    admission::run_policies(config).expect("valid")
}

fn policy(runs: &[PolicyRun], p: Policy) -> &PolicyRun {
    runs.iter()
        .find(|r| r.policy == p)
        .expect("every policy runs")
}

/// Past capacity with no admission control, goodput falls while the wait
/// grows: at 150% load against 90%, the queue's wait P95 is longer and fewer
/// requests per tick meet the SLO. Pass ratio: at least 95 of 100 seeds.
#[test]
fn past_capacity_goodput_falls_while_the_wait_grows() {
    let mut held = 0;
    for seed in 1..=SEEDS {
        let under = runs(&steady(0.9, seed));
        let over = runs(&steady(1.5, seed));
        let (a, b) = (policy(&under, Policy::None), policy(&over, Policy::None));
        if b.goodput < a.goodput && b.wait_p95 > 3.0 * a.wait_p95.max(1.0) {
            held += 1;
        }
    }
    println!("no admission control, 150% vs 90% load: goodput falls and wait grows in {held}/{SEEDS} seeds");
    assert!(held >= 95, "{held}/{SEEDS}");
}

/// A queue cap keeps goodput within 10% of the pool's capacity past it,
/// with a bounded wait: at 150% load, goodput ≥ 90% of capacity and the
/// wait P95 within the SLO. Pass ratio: at least 95 of 100 seeds.
#[test]
fn a_queue_cap_keeps_goodput_near_capacity_with_a_bounded_wait() {
    let mut held = 0;
    let mut worst = f64::MAX;
    for seed in 1..=SEEDS {
        let c = steady(1.5, seed);
        let out = runs(&c);
        let cap = policy(&out, Policy::QueueCap);
        let share = cap.goodput / c.capacity();
        worst = worst.min(share);
        if share >= 0.9 && cap.wait_p95 <= c.slo * c.service {
            held += 1;
        }
    }
    println!("queue cap at 150% load: goodput ≥ 90% of capacity with a bounded wait in {held}/{SEEDS} seeds (lowest {:.0}%)", worst * 100.0);
    assert!(held >= 95, "{held}/{SEEDS}");
}

/// Deadlines and the queue-time bound beat no control on goodput past
/// capacity, and waste less server time on requests that miss the SLO.
/// Pass ratio: at least 95 of 100 seeds for each.
#[test]
fn dropping_hopeless_requests_beats_serving_them() {
    for p in [Policy::Deadline, Policy::QueueTime] {
        let mut held = 0;
        for seed in 1..=SEEDS {
            let out = runs(&steady(1.5, seed));
            let (none, this) = (policy(&out, Policy::None), policy(&out, p));
            if this.goodput > none.goodput && this.wasted < none.wasted {
                held += 1;
            }
        }
        println!(
            "{} against none at 150% load: more goodput, less waste in {held}/{SEEDS} seeds",
            p.title()
        );
        assert!(held >= 95, "{}: {held}/{SEEDS}", p.title());
    }
}

/// With replica 1 failing half its requests for 500 ticks, the circuit
/// breaker takes it out and fails fewer requests than no control. Pass
/// ratio: at least 95 of 100 seeds.
#[test]
fn a_breaker_takes_a_failing_replica_out() {
    let mut held = 0;
    for seed in 1..=SEEDS {
        let out = runs(&Config {
            failure: 0.5,
            incident_at: 500,
            incident_for: 500,
            ..steady(0.7, seed)
        });
        let (none, breaker) = (policy(&out, Policy::None), policy(&out, Policy::Breaker));
        if breaker.tripped_ticks > 0 && breaker.failed * 2 < none.failed {
            held += 1;
        }
    }
    println!(
        "breaker with a failing replica: tripped and halved the failures in {held}/{SEEDS} seeds"
    );
    assert!(held >= 95, "{held}/{SEEDS}");
}

/// Every request is accounted for exactly once, in every policy.
#[test]
fn every_request_ends_one_way() {
    for seed in 1..=20 {
        let out = runs(&Config {
            load: 1.4,
            failure: 0.3,
            surge: 1.0,
            seed,
            ..Config::default()
        });
        for r in &out {
            assert_eq!(
                r.rejected + r.dropped + r.served + r.failed + r.unfinished,
                r.offered,
                "{:?}",
                r.policy
            );
            assert_eq!(r.timeline.len() as u32, Config::default().ticks);
            if r.policy != Policy::QueueCap {
                assert_eq!(r.rejected, 0);
            }
        }
    }
}

/// The defaults, printed for review: one line per policy.
#[test]
fn the_defaults_in_numbers() {
    let c = Config::default();
    let o = admission::run(&c, Policy::ALL, true).expect("valid");
    println!(
        "capacity {:.2} req/tick at load {:.0}%",
        o.capacity,
        c.load * 100.0
    );
    for r in &o.policies {
        println!(
            "{:<22} goodput {:.3} ({:.0}% of capacity)  rejected {:>4.1}%  dropped {:>4.1}%  wait P95 {:>6.1}  wasted {:>4.1}%",
            r.policy.title(),
            r.goodput,
            100.0 * r.goodput / o.capacity,
            100.0 * r.rejected_share(),
            100.0 * r.dropped_share(),
            r.wait_p95,
            100.0 * r.wasted
        );
    }
    for (load, g) in &o.sweep {
        let g: Vec<String> = g.iter().map(|x| format!("{x:.3}")).collect();
        println!("load {load:.1}: {}", g.join(" "));
    }
    // The default surge: with no control the queue it leaves behind
    // outlives it, so a large share of server time goes to requests that
    // have already missed the SLO; a queue cap wastes almost none.
    let none = o.policy(Policy::None).expect("runs");
    let cap = o.policy(Policy::QueueCap).expect("runs");
    assert!(none.wasted > 0.3, "{}", none.wasted);
    assert!(cap.wasted < 0.02, "{}", cap.wasted);
    assert!(cap.goodput > 1.5 * none.goodput);
}
