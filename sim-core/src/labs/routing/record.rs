//! Recording a rule's run for the player: the tick loop of [`super::tick`]
//! with an observer that keeps each of the first [`PLAYER_TICKS`] ticks as a
//! [`Frame`], so the player and the metrics describe one and the same run.

use alloc::vec::Vec;

use super::outcome::RuleOutcome;
use super::player::{
    Frame, Pace, PlayRequest, RoutingMoment, RulePlay, TickEvent, PAST_LIGHTER, PLAYER_ENTRIES,
    PLAYER_TICKS,
};
use super::tick::{run_observed, Routed};
use super::Config;
use crate::engine::{EngineEvent, Replica};
use crate::labs::work::Meter;
use crate::routing::{Reason, RuleKind};
use crate::time::Tick;
use crate::workload::Workload;

/// The requests of `workload` as the player draws them.
pub(super) fn requests(workload: &Workload) -> Vec<PlayRequest> {
    workload
        .requests
        .iter()
        .map(|r| PlayRequest {
            arrival: r.arrival.0,
            prompt_tokens: r.prompt_tokens,
            output_tokens: r.output_tokens,
        })
        .collect()
}

/// Run `rule` on `workload`, recording its first [`PLAYER_TICKS`] ticks;
/// `config` must have been validated. Returns the frames and the run's
/// metrics (one tick loop for both).
pub(super) fn record_rule(
    config: &Config,
    workload: &Workload,
    rule: RuleKind,
    meter: &Meter,
) -> (RulePlay, RuleOutcome) {
    let mut frames: Vec<Frame> = Vec::new();
    let mut played = 0;
    let mut assigned: Vec<u32> = Vec::new();
    let mut completed: Vec<u32> = Vec::new();
    let mut cached: Vec<Option<u32>> = Vec::new();
    // What the frames hold so far, in entries (`PLAYER_ENTRIES`).
    let mut entries = 0usize;
    let mut observe =
        |now: Tick, replicas: &[Replica], routed: &[Routed], engine: &[(u32, EngineEvent)]| {
            if now.0 >= PLAYER_TICKS || entries >= PLAYER_ENTRIES {
                return;
            }
            played = now.0 + 1;
            let n = replicas.len();
            // Queues change only through these events (admissions among
            // them) and the pool only by a replica joining: a tick with
            // neither looks like the frame before it (`RulePlay::at`).
            let same = frames.last().is_some_and(|f| f.waiting.len() == n);
            if same && routed.is_empty() && engine.is_empty() {
                return;
            }
            assigned.resize(n, 0);
            completed.resize(n, 0);
            let mut moment = None;
            let mut events: Vec<TickEvent> = routed
                .iter()
                .map(|r| {
                    let replica = r.decision.replica;
                    assigned[replica as usize] += 1;
                    if matches!(
                        r.decision.reason,
                        Reason::ImbalanceEscape { .. } | Reason::AffinityDropped { .. }
                    ) {
                        moment.get_or_insert(RoutingMoment::Escape {
                            request: r.request,
                            replica,
                        });
                    }
                    let (lighter, lighter_load) = r.lightest;
                    if r.load >= lighter_load + PAST_LIGHTER {
                        moment.get_or_insert(RoutingMoment::SentPastLighter {
                            request: r.request,
                            replica,
                            load: r.load,
                            lighter,
                            lighter_load,
                        });
                    }
                    TickEvent::Routed {
                        request: r.request,
                        replica,
                        reason: r.decision.reason,
                    }
                })
                .collect();
            for &(replica, e) in engine {
                match e {
                    EngineEvent::FirstToken { request, .. } => {
                        events.push(TickEvent::FirstToken { request, replica });
                    }
                    EngineEvent::Finished { request, .. } => {
                        completed[replica as usize] += 1;
                        events.push(TickEvent::Finished { request, replica });
                    }
                    EngineEvent::Preempted { request } => {
                        events.push(TickEvent::Preempted { request, replica });
                        moment.get_or_insert(RoutingMoment::Preemption { replica, request });
                    }
                    EngineEvent::Admitted {
                        request,
                        cached_tokens,
                    } => {
                        // The first admission's match, as the metrics count
                        // it (a preempted request may be admitted again).
                        let at = request as usize;
                        if cached.len() <= at {
                            cached.resize(at + 1, None);
                        }
                        cached[at].get_or_insert(cached_tokens);
                    }
                }
            }
            let pace = paces(replicas);
            let frame = Frame {
                tick: now.0,
                waiting: replicas
                    .iter()
                    .map(|r| r.waiting_requests().collect())
                    .collect(),
                running: replicas
                    .iter()
                    .map(|r| r.running_requests().collect())
                    .collect(),
                events,
                moment,
                assigned: assigned.clone(),
                completed: completed.clone(),
                pace,
            };
            entries += frame.entries();
            frames.push(frame);
        };
    let outcome = run_observed(config, workload, rule, Some(&mut observe), meter, false);
    let play = RulePlay {
        rule,
        frames,
        played,
        ticks: outcome.ticks,
        cached: cached.into_iter().map(Option::unwrap_or_default).collect(),
    };
    (play, outcome)
}

/// Milliseconds mode: every replica's iteration under way (empty in ticks
/// mode, where no replica has one).
fn paces(replicas: &[Replica]) -> Vec<Pace> {
    let pace: Vec<Pace> = replicas
        .iter()
        .map(|r| {
            r.iteration_us()
                .map_or(Pace::default(), |(step, done, tick)| Pace {
                    step_us: clamp_u32(step),
                    done_us: clamp_u32(done),
                    tick_us: clamp_u32(tick),
                })
        })
        .collect();
    if pace.iter().all(|p| p.tick_us == 0) {
        Vec::new()
    } else {
        pace
    }
}

/// A µs count as the frame keeps it (an iteration is far below an hour).
fn clamp_u32(us: u64) -> u32 {
    u32::try_from(us).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::super::sim::simulate;
    use super::super::{Config, TraceSource};
    use crate::labs::work::Meter;
    use crate::routing::RuleKind;
    use crate::workload::generator;

    /// `rules` run and recorded on `config`'s generated workload.
    fn recorded(config: &Config, rules: &[RuleKind]) -> super::super::player::Timeline {
        let workload = generator::generate(&config.generator(), config.seed);
        let out = simulate(
            config,
            &workload,
            rules,
            TraceSource::Generated,
            rules,
            &|_, _| {},
            &Meter::unlimited(),
        );
        out.timeline.expect("recorded")
    }

    /// The recording keeps what each admission found cached: the
    /// prefix-aware rule finds more of its prompts' tokens cached than least
    /// outstanding on the same requests, and a miss reads 0.
    #[test]
    fn the_recording_keeps_each_admissions_cache_hit() {
        let tl = recorded(
            &Config::default(),
            &[RuleKind::PrefixAware, RuleKind::LeastOutstanding],
        );
        let share = |k: usize| {
            let play = &tl.rules[k];
            let cached: u64 = play.cached.iter().map(|&c| u64::from(c)).sum();
            let prompt: u64 = (0..play.cached.len())
                .map(|i| u64::from(tl.requests[i].prompt_tokens))
                .sum();
            let hits = play.cached.iter().filter(|&&c| c > 0).count();
            (
                cached as f64 / prompt.max(1) as f64,
                hits,
                play.cached.len(),
            )
        };
        let (aware, lo) = (share(0), share(1));
        std::println!(
            "cached share of admitted prompts: prefix-aware {aware:?}, least outstanding {lo:?}"
        );
        assert!(aware.1 > 0 && aware.0 > lo.0, "{aware:?} against {lo:?}");
        assert!(tl.rules[0].cached.contains(&0), "some misses");
    }

    /// In milliseconds mode the player covers the whole generated run (the
    /// issue's example: Llama 3.1 8B on one H100, 9,694 ms), and a replica
    /// with a fuller batch is recorded taking longer steps than one with a
    /// single sequence.
    #[test]
    fn a_milliseconds_recording_plays_to_the_end_with_each_replicas_pace() {
        let pairs = [("gpu", "h100"), ("model", "llama-3.1-8b"), ("tp", "1")];
        let (config, errors) = crate::params::from_pairs::<Config>(pairs);
        assert!(errors.is_empty(), "{errors:?}");
        crate::params::Configurable::validate(&config).expect("valid");
        let tl = recorded(&config, &[RuleKind::RoundRobin]);
        let play = &tl.rules[0];
        let entries: usize = play.frames.iter().map(super::Frame::entries).sum();
        // (batch size, step µs) of every decode-only replica in a frame.
        let mut lone = u32::MAX;
        let mut full = 0u32;
        for f in &play.frames {
            for (run, p) in f.running.iter().zip(&f.pace) {
                if p.step_us == 0 || run.iter().any(|&(_, prefilling)| prefilling) {
                    continue;
                }
                if run.len() == 1 {
                    lone = lone.min(p.step_us);
                } else if run.len() >= 6 {
                    full = full.max(p.step_us);
                }
            }
        }
        std::println!(
            "ms run: played {} of {} ticks in {} frames ({entries} entries); decode step alone ≥ {lone} µs, with 6+ sequences up to {full} µs",
            play.played,
            play.ticks,
            play.frames.len()
        );
        assert_eq!(play.played, play.ticks, "the player covers the whole run");
        assert!(
            full > lone,
            "a fuller batch steps slower: {full} against {lone}"
        );
    }
}
