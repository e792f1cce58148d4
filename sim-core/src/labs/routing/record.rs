//! Recording a rule's run for the player: the tick loop of [`super::tick`]
//! with an observer that keeps each of the first [`PLAYER_TICKS`] ticks as a
//! [`Frame`], so the player and the metrics describe one and the same run.

use alloc::vec::Vec;

use super::outcome::RuleOutcome;
use super::player::{
    Frame, PlayRequest, RoutingMoment, RulePlay, TickEvent, PAST_LIGHTER, PLAYER_TICKS,
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
    let mut observe =
        |now: Tick, replicas: &[Replica], routed: &[Routed], engine: &[(u32, EngineEvent)]| {
            if now.0 >= PLAYER_TICKS {
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
                    EngineEvent::Admitted { .. } => {}
                }
            }
            frames.push(Frame {
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
            });
        };
    let outcome = run_observed(config, workload, rule, Some(&mut observe), meter, false);
    let play = RulePlay {
        rule,
        frames,
        played,
        ticks: outcome.ticks,
    };
    (play, outcome)
}
