//! Model invariants of the herding lab.

use sim_core::labs::herding::{self, Config, HerdingRule};

#[test]
fn outstanding_is_exactly_the_last_service_time_of_arrivals() {
    let cfg = Config {
        seed: 5,
        ..Config::default()
    };
    let o = herding::run(&cfg).expect("valid");
    for r in &o.rules {
        for t in &r.timeline.ticks {
            let from = (t.tick + 1).saturating_sub(cfg.service_time) as usize;
            let expected: u32 = o.arrivals[from..=t.tick as usize].iter().sum();
            assert_eq!(
                t.outstanding.iter().sum::<u32>(),
                expected,
                "{:?} tick {}",
                r.rule,
                t.tick
            );
            let sent: usize = t.routers.iter().map(|v| v.dispatched.len()).sum();
            assert_eq!(sent as u32, t.arrivals);
            assert_eq!(t.new.iter().sum::<u32>(), t.arrivals);
        }
    }
}

#[test]
fn in_phase_stale_routing_ignores_the_router_count() {
    for seed in 1..=20 {
        let skew = |routers| {
            let cfg = Config {
                seed,
                routers,
                ..Config::default()
            };
            herding::run_rule(&cfg, HerdingRule::Stale)
                .expect("valid")
                .rules[0]
                .skew
                .clone()
        };
        assert_eq!(skew(1), skew(8), "seed {seed}");
    }
}

#[test]
fn snapshots_age_and_reset_at_scrapes() {
    let cfg = Config {
        stagger: true,
        ..Config::default()
    };
    let o = herding::run_rule(&cfg, HerdingRule::OwnDispatches).expect("valid");
    for t in &o.rules[0].timeline.ticks {
        for (k, v) in t.routers.iter().enumerate() {
            let offset = k as u32 * cfg.scrape_interval / cfg.routers;
            let due = t.tick >= offset && (t.tick - offset).is_multiple_of(cfg.scrape_interval);
            assert_eq!(v.scraped, due, "router {k} tick {}", t.tick);
            if v.scraped {
                assert_eq!(v.age, 0);
                assert_eq!(v.own.iter().sum::<u32>() as usize, v.dispatched.len());
            }
        }
    }
}

#[test]
fn bad_config_is_a_typed_error() {
    let err = herding::run(&Config {
        routers: 0,
        ..Config::default()
    })
    .expect_err("invalid");
    assert_eq!(err.key, "routers");
    let err = herding::run(&Config {
        arrival_rate: f64::NAN,
        ..Config::default()
    })
    .expect_err("invalid");
    assert_eq!(err.key, "arrival-rate");
}
