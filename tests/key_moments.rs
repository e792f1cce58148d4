//! The players' step-by-step records: key moments are flagged where the model
//! says they happen, progressive totals end on the run's own figures, and the
//! Routing Lab's timeline replays the very run its metrics describe.

use sim_core::choice::Choice;
use sim_core::labs::batching::{self, BatchMoment, Mode, SlotState};
use sim_core::labs::herding::{self, HerdMoment, HerdingRule, Totals};
use sim_core::labs::prefix::{self, PrefixMoment, PrefixReason};
use sim_core::labs::routing::player::{RoutingMoment, TickEvent, PLAYER_TICKS};
use sim_core::labs::routing::{self, Config as RoutingConfig};
use sim_core::routing::RuleKind;

#[test]
fn herding_stampedes_are_the_pile_up_ticks_and_totals_end_on_the_summary() {
    for seed in 1..=20 {
        let o = herding::run(&herding::Config {
            seed,
            ..herding::Config::default()
        })
        .expect("valid");
        for r in &o.rules {
            let ticks = &r.timeline.ticks;
            for (i, t) in ticks.iter().enumerate() {
                let Some(HerdMoment::Stampede {
                    replica,
                    requests,
                    since,
                    load,
                    ..
                }) = t.moment
                else {
                    continue;
                };
                // Every tick of the stampede sent all its arrivals to the
                // flagged replica, it lasted two ticks or more, and it left
                // a pile of at least twice the pool's mean load.
                let run = &ticks[since as usize..=i];
                assert!(run.len() >= 2, "tick {} of {:?}", t.tick, r.rule);
                for s in run {
                    let targets: Vec<usize> = (0..s.new.len()).filter(|&k| s.new[k] > 0).collect();
                    assert!(
                        s.arrivals >= 2 && targets == [replica as usize],
                        "tick {}",
                        s.tick
                    );
                }
                let sent: u32 = run.iter().map(|s| s.arrivals).sum();
                assert_eq!(sent, requests);
                assert_eq!(t.outstanding[replica as usize], load);
                let total: u32 = t.outstanding.iter().sum();
                assert!(load * t.outstanding.len() as u32 >= herding::PILE_FACTOR * total);
            }
            let all = Totals::of(ticks);
            assert_eq!(all.peak_skew, r.peak_skew);
            assert_eq!(all.mean_skew.to_bits(), r.mean_skew.to_bits());
            assert_eq!(all.oscillation.to_bits(), r.oscillation.to_bits());
            assert_eq!(all.pile_up_share.to_bits(), r.pile_up_share.to_bits());
            // Totals over a prefix never exceed the whole run's peak.
            assert!(Totals::of(&ticks[..ticks.len() / 2]).peak_skew <= r.peak_skew);
        }
    }
    // At the defaults, the stale rule stampedes and the first one is early.
    let o = herding::run(&herding::Config::default()).expect("valid");
    let stale = o.rule(HerdingRule::Stale).expect("runs");
    let first = stale.timeline.ticks.iter().position(|t| t.moment.is_some());
    println!("first stampede under stale signals at the defaults: tick {first:?}");
    // Tick 10 is the first scrape after the start: every router sees the
    // same idlest replica and sends it everything until the scrape at tick
    // 20. The moment is that pile at its height (tick 19: 22 requests on
    // replica 4), not the tick it began.
    assert_eq!(first, Some(19));
    let Some(HerdMoment::Stampede {
        replica,
        since,
        load,
        ..
    }) = stale.timeline.ticks[19].moment
    else {
        unreachable!("flagged above")
    };
    assert_eq!((replica, since, load), (3, 10, 22));
    // Staggered scrapes leave pairs of requests landing together now and
    // then, but no pile: no stampede is flagged.
    let o = herding::run(&herding::Config {
        stagger: true,
        ..herding::Config::default()
    })
    .expect("valid");
    let flagged = o
        .rules
        .iter()
        .flat_map(|r| &r.timeline.ticks)
        .filter(|t| t.moment.is_some())
        .count();
    assert_eq!(flagged, 0, "staggered scrapes make no pile");
}

#[test]
fn prefix_moments_name_escapes_hot_misses_and_evictions() {
    let o = prefix::run(&prefix::Config::default()).expect("valid");
    for run in &o.routers {
        let escapes = run
            .steps
            .iter()
            .filter(|s| matches!(s.moment, Some(PrefixMoment::Escape { .. })))
            .count() as u32;
        assert_eq!(escapes, run.escapes, "{:?}", run.router);
        for (i, s) in run.steps.iter().enumerate() {
            if let Some(PrefixMoment::HotMiss { holder }) = s.moment {
                assert!(!s.hit && holder != s.target);
                let before = if i == 0 {
                    None
                } else {
                    Some(&run.steps[i - 1])
                };
                let held = before.is_some_and(|b| {
                    b.caches[holder as usize]
                        .iter()
                        .any(|e| e.prefix == o.trace[i].prefix)
                });
                assert!(held, "step {i}: the holder had the prefix before the step");
            }
            if s.evicted.is_some() {
                assert!(!s.hit);
            }
            if matches!(s.reason, PrefixReason::Affinity) {
                assert!(s.moment.is_none());
            }
        }
        let t = run.totals_upto(run.steps.len() - 1);
        assert_eq!(
            (t.hits, t.prefill_tokens, t.escapes),
            (run.hits, run.prefill_tokens, run.escapes)
        );
        assert_eq!(run.totals_upto(0).requests, 1);
    }
    // Load-only routing misses a prefix another replica holds at least once.
    assert!(o.routers[0]
        .steps
        .iter()
        .any(|s| matches!(s.moment, Some(PrefixMoment::HotMiss { .. }))));
}

#[test]
fn batching_moments_and_totals() {
    let o = batching::run(&batching::Config::default(), Mode::ALL).expect("valid");
    for m in &o.modes {
        let last = m.iterations_detail.len() - 1;
        let t = m.totals_upto(last);
        assert_eq!(t.iterations, m.iterations);
        assert_eq!(t.zero_output_iterations, m.zero_output_iterations);
        assert_eq!(t.slot_occupancy.to_bits(), m.slot_occupancy.to_bits());
        assert_eq!(t.mean_gap.to_bits(), m.mean_gap.to_bits());
        assert_eq!(t.finished as usize, m.requests.len());
        // The condition of each iteration; a moment marks where one starts.
        let mut previous: Option<u8> = None;
        for d in &m.iterations_detail {
            let idle = d.slots.iter().filter(|s| **s == SlotState::Idle).count();
            let kind = if idle > 0 && !d.waiting.is_empty() {
                Some(0)
            } else if d.zero_output && idle < d.slots.len() {
                Some(1)
            } else {
                None
            };
            let starts = kind.is_some() && kind != previous;
            assert_eq!(
                d.moment.is_some(),
                starts,
                "{:?} iteration {}",
                m.mode,
                d.iteration
            );
            if let Some(BatchMoment::IdleWhileWaiting { idle: i, waiting }) = d.moment {
                assert_eq!((i as usize, waiting as usize), (idle, d.waiting.len()));
            }
            if d.moment == Some(BatchMoment::ZeroOutput) {
                assert_eq!(kind, Some(1));
            }
            previous = kind;
        }
    }
    // The article's point (§7.1): only static batching leaves slots empty while
    // requests wait.
    let idles = |mode: Mode| {
        o.mode(mode)
            .expect("ran")
            .iterations_detail
            .iter()
            .filter(|d| matches!(d.moment, Some(BatchMoment::IdleWhileWaiting { .. })))
            .count()
    };
    println!(
        "iterations with idle slots while requests wait: static {}, continuous {}, chunked {}",
        idles(Mode::Static),
        idles(Mode::Continuous),
        idles(Mode::Chunked)
    );
    assert!(idles(Mode::Static) > 0);
    assert_eq!(idles(Mode::Continuous), 0);
}

/// The Routing Lab's timeline of `rules`, recorded as the page's player asks.
fn play(config: &RoutingConfig, rules: &[RuleKind]) -> routing::player::Timeline {
    use sim_core::labs::{Input, Lab};
    let input = Input {
        record: rules,
        ..Input::one(rules)
    };
    routing::RoutingLab::run(config, &input)
        .expect("valid")
        .timeline
        .expect("recorded")
}

#[test]
fn the_routing_timeline_replays_the_run_the_metrics_describe() {
    let config = RoutingConfig::default();
    let only = &[RuleKind::RoundRobin, RuleKind::LeastOutstanding];
    let t = play(&config, only);
    let o = routing::run_rules(&config, &[RuleKind::RoundRobin, RuleKind::LeastOutstanding])
        .expect("valid");
    assert_eq!(t.rules.len(), 2);
    assert_eq!(t.requests.len(), config.requests as usize);
    for (play, out) in t.rules.iter().zip(&o.rules) {
        assert_eq!(play.rule, out.rule);
        assert_eq!(play.ticks, out.ticks);
        assert!((play.frames.len() as u64) <= PLAYER_TICKS);
        let last = play.frames.last().expect("frames");
        let assigned: Vec<u32> = out.replicas.iter().map(|r| r.assigned).collect();
        let completed: Vec<u32> = out.replicas.iter().map(|r| r.completed).collect();
        assert_eq!(last.assigned, assigned, "{:?}", play.rule);
        assert_eq!(last.completed, completed, "{:?}", play.rule);
        let routed = play
            .frames
            .iter()
            .flat_map(|f| &f.events)
            .filter(|e| matches!(e, TickEvent::Routed { .. }))
            .count();
        assert_eq!(routed, t.requests.len());
        // Every request is somewhere (waiting or running) from the tick it is
        // routed until it finishes, and never in two places.
        for f in &play.frames {
            let mut seen: Vec<u32> = f.waiting.iter().flatten().copied().collect();
            seen.extend(f.running.iter().flatten().map(|r| r.0));
            let n = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), n, "tick {}", f.tick);
        }
    }
    // Played to the end, the player's figures are the run's.
    for (k, out) in o.rules.iter().enumerate() {
        let end = t.so_far(k, usize::MAX).expect("rule");
        assert_eq!(end.finished, out.completed);
        assert_eq!(end.routed as usize, t.requests.len());
        assert_eq!(
            end.ttft_p50.to_bits(),
            out.ttft_p50.to_bits(),
            "{:?}",
            out.rule
        );
        assert_eq!(
            end.ttft_p95.to_bits(),
            out.ttft_p95.to_bits(),
            "{:?}",
            out.rule
        );
        let early = t.so_far(k, 100).expect("rule");
        assert!(early.finished <= end.finished && early.routed < end.routed);
    }
    let moments = |i: usize| {
        t.rules[i]
            .frames
            .iter()
            .filter(|f| matches!(f.moment, Some(RoutingMoment::SentPastLighter { .. })))
            .count()
    };
    println!(
        "sent past a replica 3+ lighter: round robin {}, least outstanding {}",
        moments(0),
        moments(1)
    );
    assert!(moments(0) > 0);
    assert_eq!(moments(1), 0, "least outstanding always picks the lightest");
    // A cache-aware rule's escapes are flagged where its decisions say so.
    let aware = play(&config, &[RuleKind::PrefixAware]);
    let escapes = aware.rules[0]
        .frames
        .iter()
        .filter(|f| matches!(f.moment, Some(RoutingMoment::Escape { .. })))
        .count();
    let reasons = aware.rules[0]
        .frames
        .iter()
        .flat_map(|f| &f.events)
        .filter(|e| {
            matches!(
                e,
                TickEvent::Routed {
                    reason: sim_core::routing::Reason::ImbalanceEscape { .. }
                        | sim_core::routing::Reason::AffinityDropped { .. },
                    ..
                }
            )
        })
        .count();
    println!("prefix-aware escapes at the defaults: {reasons} decisions, {escapes} ticks flagged");
    assert!(escapes > 0 && escapes <= reasons);
    // Same config, same seed: the same record.
    assert_eq!(t, play(&config, only));
    let entry = sim_core::labs::runner("routing").expect("registered");
    let unknown = (entry.run)(&sim_core::labs::RunRequest {
        record: &["nope"],
        ..sim_core::labs::RunRequest::of(&[])
    });
    assert!(unknown.is_err());
}

/// The key moments the player marks are the ticks where `moment` finds one,
/// asking every tick (the list is built from the flagged frames only).
#[test]
fn routing_moments_are_every_tick_with_a_moment() {
    let pairs: &[&[RuleKind]] = &[
        &[RuleKind::RoundRobin],
        &[RuleKind::LeastOutstanding, RuleKind::RoundRobin],
        &[RuleKind::PrefixAware, RuleKind::LeastKv],
        &[
            RuleKind::PowerOfTwo,
            RuleKind::RoundRobin,
            RuleKind::SglangCacheAware,
        ],
    ];
    let mut marked = 0;
    for seed in 1..=6 {
        let config = RoutingConfig {
            seed,
            ..RoutingConfig::default()
        };
        for rules in pairs {
            let t = play(&config, rules);
            let every: Vec<usize> = (0..t.len()).filter(|&i| t.moment(i).is_some()).collect();
            assert_eq!(t.moments(), every, "seed {seed}, {rules:?}");
            marked += every.len();
        }
    }
    println!("key moments over 6 seeds × 4 rule sets: {marked}");
    assert!(marked > 0);
}

/// The fairness player's record: recording changes nothing in the run, the
/// running totals end on the summary, and each key moment is where the model
/// says (a preemption evicts the sequence it names, an overtake passes an
/// older request, a prefix miss follows an eviction of the shared prompt).
#[test]
fn fairness_moments_are_where_the_run_says_and_recording_changes_nothing() {
    use sim_core::labs::fairness::{self, Moment, Scheduler};
    let mut preemptions = 0;
    for seed in 1..=20 {
        let c = fairness::Config {
            seed,
            ..fairness::Config::default()
        };
        let plain = fairness::run_schedulers(&c, Scheduler::ALL, &[]).expect("valid");
        let recorded = fairness::run_schedulers(&c, Scheduler::ALL, Scheduler::ALL).expect("valid");
        for (p, r) in plain.iter().zip(&recorded) {
            assert!(p.timeline.is_none());
            assert_eq!(r.steps().len(), c.ticks as usize);
            assert_eq!(p.tenants, r.tenants, "{:?} seed {seed}", r.scheduler);
            let last = r.steps().last().expect("ticks");
            for (t, x) in r.tenants.iter().enumerate() {
                let per_tick = last.service[t] / f64::from(c.ticks);
                assert!((per_tick - x.service).abs() < 1e-9, "{:?}", r.scheduler);
            }
            let gpu: f64 = last.gpu.iter().sum();
            assert!((last.gpu[0] / gpu - r.tenants[0].gpu_share).abs() < 1e-9);
            for (i, s) in r.steps().iter().enumerate() {
                match s.moment {
                    Some(Moment::Preemption { victim, by, lost }) => {
                        preemptions += 1;
                        assert_eq!(r.scheduler, Scheduler::Priority);
                        assert_eq!(s.evicted, Some(victim));
                        assert!(lost > 0);
                        assert!(fairness::TENANTS[by as usize].interactive);
                        assert!(!fairness::TENANTS[victim as usize].interactive);
                        assert!(
                            s.admitted.contains(&by),
                            "the interactive request took the slot"
                        );
                    }
                    Some(Moment::Overtake {
                        picked,
                        passed,
                        older,
                    }) => {
                        assert_ne!(
                            r.scheduler,
                            Scheduler::Fcfs,
                            "FCFS never passes an older request"
                        );
                        assert!(older > 0 && picked != passed);
                        assert!(s.admitted.contains(&picked));
                        // The passed tenant had a request waiting before this
                        // iteration's admissions.
                        let before = if i == 0 {
                            0
                        } else {
                            r.steps()[i - 1].waiting[passed as usize]
                        };
                        assert!(before > 0 || s.waiting[passed as usize] > 0);
                    }
                    Some(Moment::PrefixMiss { since, tokens }) => {
                        assert_eq!(tokens, fairness::TENANTS[3].prefix);
                        assert!(since > 0 && since as usize <= i);
                        // The shared prompt was out of the cache at some point
                        // since its last hit.
                        let gone = r.steps()[i - since as usize..i]
                            .iter()
                            .any(|s| !s.prefix_cached);
                        assert!(gone, "iteration {i} of {:?}", r.scheduler);
                    }
                    None => {}
                }
            }
            let first = r.steps().iter().position(|s| s.evicted.is_some());
            assert_eq!(first.map(|i| i as u32), r.first_preemption);
        }
    }
    assert!(
        preemptions >= 15,
        "strict priority preempts with work lost in most seeds: {preemptions}/20"
    );
}

/// Where the two players the review found opening off their point now
/// open (`PlayerInfo::opens`): the batching player on the first iteration
/// where the three modes stop doing the same (every mode plays iteration 1
/// alike, so it opened on three identical pictures), the herding player on
/// its first pile (it opened on an empty tick 0).
#[test]
fn batching_opens_where_the_modes_differ_and_herding_on_its_first_pile() {
    use sim_core::labs::{Lab, Opening};
    assert_eq!(
        batching::BatchingLab::INFO.player.map(|p| p.opens),
        Some(Opening::FirstDifference)
    );
    assert_eq!(
        herding::HerdingLab::INFO.player.map(|p| p.opens),
        Some(Opening::FirstMoment)
    );
    let o = batching::run(&batching::Config::default(), Mode::ALL).expect("valid");
    let at = o.first_difference().expect("the modes differ");
    assert!(at > 0, "the modes already differ at iteration 1");
    let details = |i: usize| -> Vec<_> {
        o.modes
            .iter()
            .map(|m| {
                m.iterations_detail
                    .get(i)
                    .map(|d| (&d.slots, &d.waiting, d.output_tokens))
            })
            .collect()
    };
    for i in 0..at {
        let d = details(i);
        assert!(
            d.windows(2).all(|w| w[0] == w[1]),
            "iteration {} differs",
            i + 1
        );
    }
    println!("batching opens on iteration {}", at + 1);
    // One mode alone never differs from anything: the player opens at 1.
    let alone = batching::run(&batching::Config::default(), &[Mode::Chunked]).expect("valid");
    assert_eq!(alone.first_difference(), None);

    let h = herding::run(&herding::Config::default()).expect("valid");
    for r in &h.rules {
        let first = r.timeline.ticks.iter().position(|t| t.moment.is_some());
        if let Some(i) = first {
            assert!(i > 0, "{:?}: a pile on tick 0", r.rule);
            assert!(
                matches!(
                    r.timeline.ticks[i].moment,
                    Some(HerdMoment::Stampede { .. })
                ),
                "{:?}",
                r.rule
            );
        }
        println!(
            "herding {:?} opens on tick {:?}",
            r.rule,
            first.unwrap_or(0)
        );
    }
    assert!(
        h.rules
            .iter()
            .any(|r| r.timeline.ticks.iter().any(|t| t.moment.is_some())),
        "no rule piles up at the defaults"
    );
}
