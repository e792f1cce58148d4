//! The tick loop's shortcuts against ticking through: stretches between
//! arrivals run in one call per replica (decode stretches in one pass) and
//! idle stretches jumped over must give the very outcome, bit for bit, that
//! every tick through the loop gives.

use super::tick::run_observed;
use super::Config;
use crate::choice::Choice;
use crate::labs::work::Meter;
use crate::params::Configurable;
use crate::routing::RuleKind;
use crate::workload::generator;

fn config(query: &str) -> Config {
    let pairs = query.split('&').filter(|p| !p.is_empty()).map(|p| {
        let (k, v) = p.split_once('=').expect("key=value");
        (k, v)
    });
    let (config, errors) = crate::params::from_pairs::<Config>(pairs);
    assert!(errors.is_empty(), "{query}: {errors:?}");
    config.validate().expect("valid config");
    config
}

#[test]
fn stretches_give_what_ticking_through_gives() {
    let cases = [
        "",
        "replicas=2&rate=0.05&seed=3",
        "speeds=1,2,0.7&replicas=3&seed=8",
        "scale-up-at=300&replicas=3&rate=0.5&seed=2",
        "kv-blocks=40&slots=24&rate=0.6&seed=4",
        "kv-block-tokens=1&rate=0.4&seed=6",
        "cache-in-kv=1&rate=0.4&seed=9",
        "long-share=0.8&rate=0.3&requests=300&seed=5",
        "gateways=3&rate=0.5&seed=7",
        "gpu=h100&model=llama-3.1-8b&rps=40&requests=300&seed=10",
        "stages=0.1x200,0.6x100,0.3x100&requests=160&seed=11",
        "gpu=h100&model=llama-3.1-8b&stages=20x2,80x3,40x2&requests=420&seed=12",
    ];
    let mut stretched = 0;
    for query in cases {
        let config = config(query);
        let workload = generator::generate(&config.generator(), config.seed);
        for &rule in RuleKind::ALL {
            let meter = Meter::unlimited();
            let fast = run_observed(&config, &workload, rule, None, &meter, false);
            let slow = run_observed(&config, &workload, rule, None, &meter, true);
            assert_eq!(fast, slow, "{query} rule {}", rule.name());
            stretched += 1;
        }
    }
    assert_eq!(stretched, 12 * RuleKind::ALL.len());
}

/// The recording keeps a frame only for ticks that change something; read
/// back tick by tick it must show what a snapshot of every tick shows.
#[test]
fn a_recording_read_back_is_every_tick_of_the_run() {
    use super::player::{TickEvent, PLAYER_TICKS};
    use super::record::record_rule;
    use crate::engine::{EngineEvent, Replica};
    use crate::time::Tick;
    use alloc::vec::Vec;

    type Snapshot = (Vec<Vec<u32>>, Vec<Vec<(u32, bool)>>, usize);
    let mut kept = (0, 0);
    for query in [
        "",
        "scale-up-at=200&replicas=3&rate=0.5&seed=2",
        "kv-blocks=40&slots=24&rate=0.6&seed=4",
        "gpu=h100&model=llama-3.1-8b&rps=40&requests=200&seed=10",
    ] {
        let config = config(query);
        let workload = generator::generate(&config.generator(), config.seed);
        for &rule in RuleKind::ALL {
            let meter = Meter::unlimited();
            let (play, _) = record_rule(&config, &workload, rule, &meter);
            let mut every: Vec<Snapshot> = Vec::new();
            let mut observe = |now: Tick,
                               r: &[Replica],
                               routed: &[super::tick::Routed],
                               e: &[(u32, EngineEvent)]| {
                if now.0 < PLAYER_TICKS {
                    let shown = routed.len()
                        + e.iter()
                            .filter(|(_, e)| !matches!(e, EngineEvent::Admitted { .. }))
                            .count();
                    every.push((
                        r.iter().map(|x| x.waiting_requests().collect()).collect(),
                        r.iter().map(|x| x.running_requests().collect()).collect(),
                        shown,
                    ));
                }
            };
            run_observed(&config, &workload, rule, Some(&mut observe), &meter, false);
            assert_eq!(play.played as usize, every.len(), "{query} {}", rule.name());
            for (t, (waiting, running, shown)) in every.iter().enumerate() {
                let at = play.at(t).expect("recorded tick");
                assert_eq!(at.waiting, &waiting[..], "{query} {} tick {t}", rule.name());
                assert_eq!(at.running, &running[..], "{query} {} tick {t}", rule.name());
                assert_eq!(at.events.len(), *shown, "{query} {} tick {t}", rule.name());
                let routed = at
                    .events
                    .iter()
                    .filter(|e| matches!(e, TickEvent::Routed { .. }));
                assert!(routed.count() <= at.events.len());
            }
            assert!(play.at(every.len()).is_none());
            kept.0 += play.frames.len();
            kept.1 += every.len();
        }
    }
    std::println!("{} frames for {} ticks", kept.0, kept.1);
    // Most ticks only decode: far fewer frames than ticks.
    assert!(
        kept.0 * 3 < kept.1,
        "{} frames for {} ticks",
        kept.0,
        kept.1
    );
}
