//! The first-token player's record: recording changes nothing in the run,
//! lanes keep their rows and stay inside their request's tokens, and each
//! key moment is what the strategy does at that point of the request
//! (before the first visible token a failure is retried or covered; after
//! it, only a resume saves the stream).

use sim_core::choice::Choice;
use sim_core::labs::first_token::{
    self, Config, Fate, Moment, Outcome, Recovery, RecoveryRun, Then, Why, LANES,
};

fn recorded(seed: u64, recovery: Recovery) -> (RecoveryRun, RecoveryRun) {
    let c = Config {
        seed,
        ..Config::default()
    };
    let plain = first_token::run(&c, &[recovery], &[]).expect("valid");
    let rec: Outcome = first_token::run(&c, &[recovery], &[recovery]).expect("valid");
    (plain.runs[0].clone(), rec.runs[0].clone())
}

#[test]
fn recording_changes_nothing_and_lanes_stay_in_their_rows_and_tokens() {
    for seed in 1..=5 {
        for &r in Recovery::ALL {
            let (plain, mut rec) = recorded(seed, r);
            assert!(plain.timeline.is_empty(), "nothing recorded unless asked");
            assert!(!rec.timeline.is_empty(), "{r:?} seed {seed}: recorded");
            let frames = std::mem::take(&mut rec.timeline);
            assert_eq!(
                plain, rec,
                "{r:?} seed {seed}: the recording run is the run"
            );
            let mut row_of = std::collections::HashMap::new();
            for f in &frames {
                assert!(f.lanes.len() <= LANES);
                for l in &f.lanes {
                    assert_eq!(
                        *row_of.entry(l.req).or_insert(l.slot),
                        l.slot,
                        "a request keeps its row"
                    );
                    assert!(l.shown <= l.visible);
                    for d in &l.dots {
                        assert!(d.at <= l.hidden + l.visible, "a dot stays on its lane");
                        if d.why == Why::Resume {
                            assert!(d.at >= l.hidden, "a resume starts past the reasoning");
                        }
                    }
                    if l.fate != Fate::Open {
                        assert!(l.dots.is_empty(), "an ended request has no live attempt");
                    }
                }
                let rows: std::collections::HashSet<u32> = f.lanes.iter().map(|l| l.slot).collect();
                assert_eq!(rows.len(), f.lanes.len(), "one request per row");
            }
        }
    }
}

/// Every failure moment says what the strategy does with a failure at that
/// point, and the lane shows it; over seeds 1-20 the default run has every
/// kind of moment the lab teaches with.
#[test]
fn moments_are_what_the_strategy_does_at_that_point() {
    let (mut retried, mut broken, mut resumed, mut won, mut hedged) = (0, 0, 0, 0, 0);
    for seed in 1..=20 {
        for &r in Recovery::ALL {
            let (_, rec) = recorded(seed, r);
            for (i, f) in rec.timeline.iter().enumerate() {
                let Some(m) = f.moment else { continue };
                let lane = f.lanes.iter().find(|l| l.req == m.req());
                let lane = lane.unwrap_or_else(|| {
                    panic!("{r:?} seed {seed} frame {i}: the moment's request has a lane")
                });
                match m {
                    Moment::Failed { shown, then, .. } => {
                        assert!(!lane.scars.is_empty(), "a failure leaves its mark");
                        let ok = match (shown > 0, r) {
                            (false, Recovery::None) => then == Then::Error,
                            (false, _) => matches!(then, Then::Retry | Then::Twin | Then::Error),
                            (true, Recovery::Resume) => matches!(then, Then::Resume | Then::Broken),
                            (true, _) => matches!(then, Then::Broken | Then::Twin),
                        };
                        assert!(ok, "{r:?} seed {seed} frame {i}: {m:?}");
                        match then {
                            Then::Retry => retried += 1,
                            Then::Broken => {
                                broken += 1;
                                assert_eq!(lane.fate, Fate::Broken);
                            }
                            Then::Resume => resumed += 1,
                            Then::Error => assert_eq!(lane.fate, Fate::Error),
                            Then::Twin => {}
                        }
                    }
                    Moment::Hedged { .. } => {
                        assert!(matches!(r, Recovery::Hedge | Recovery::Resume));
                        hedged += 1;
                    }
                    Moment::HedgeWon { .. } => {
                        assert!(lane.committed(), "the winner has shown a token");
                        won += 1;
                    }
                }
            }
        }
    }
    println!("moments over seeds 1-20: {retried} retried, {broken} broken, {resumed} resumed, {hedged} hedges, {won} won by the hedge");
    for (what, n) in [
        ("retried", retried),
        ("broken", broken),
        ("resumed", resumed),
        ("hedged", hedged),
        ("won by a hedge", won),
    ] {
        assert!(n > 0, "no moment {what}");
    }
}

/// The player opens on the first key moment, and in the default run of the
/// focus strategy (hedge) that is within the first minute.
#[test]
fn the_default_hedge_run_has_a_moment_in_its_first_minute() {
    let (_, rec) = recorded(1, Recovery::Hedge);
    let first = rec.timeline.iter().position(|f| f.moment.is_some());
    let first = first.expect("a key moment");
    let secs = (first + 1) as f64 * first_token::FRAME_MS as f64 / 1000.0;
    println!(
        "the hedge run's first key moment: frame {first} ({secs} s): {:?}",
        rec.timeline[first].moment
    );
    assert!(secs < 60.0, "{secs} s");
}
