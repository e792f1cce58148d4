//! The Routing Lab's tick loop: one rule's run on one workload, tick by
//! tick, with its metrics; an observer, if given, sees every tick (the
//! player's timeline is recorded this way, so it replays the very run whose
//! metrics the lab reports).
//!
//! A pass of the loop has named phases, each a method of [`TickLoop`], the
//! state the loop carries from pass to pass: the pool grows if a replica
//! is due to join ([`TickLoop::grow`]); the tick's arrivals are routed
//! (`dispatch.rs`); the replicas step, for one tick or a whole stretch up
//! to the next arrival, and their events are accounted (`step.rs`); the
//! observer sees the tick; an idle pool jumps to its next arrival
//! ([`TickLoop::jump_idle`]). The rule's figures are read off the state at
//! the end (`summary.rs`).

use alloc::vec;
use alloc::vec::Vec;

use super::arrivals::Arrivals;
use super::outcome::{DecisionDetail, RuleOutcome};
use super::player::PLAYER_TICKS;
use super::series::QueueSampler;
use super::shadows::Shadows;
use super::{work, Config};
use crate::choice::Choice;
use crate::engine::{EngineEvent, Replica};
use crate::labs::work::Meter;
use crate::rng::{stream, Rng};
use crate::routing::{AnyRouter, Decision, RuleKind};
use crate::time::Tick;
use crate::workload::Workload;

/// A decision as the observer sees it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Routed {
    /// The request.
    pub request: u32,
    /// The rule's pick and why.
    pub decision: crate::routing::Decision,
    /// Outstanding requests on the pick just before this request joined.
    pub load: u32,
    /// The replica with the fewest outstanding at that moment (lowest index
    /// among ties) and its count.
    pub lightest: (u32, u32),
}

/// What the tick loop shows an observer after each tick: the tick, the
/// replicas after their step, the decisions taken at this tick and the
/// engines' events (replica, event).
pub(super) type Observer<'a> =
    &'a mut dyn FnMut(Tick, &[Replica], &[Routed], &[(u32, EngineEvent)]);

pub(super) fn run_one(
    config: &Config,
    workload: &Workload,
    rule: RuleKind,
    meter: &Meter,
) -> RuleOutcome {
    run_observed(config, workload, rule, None, meter, false)
}

/// One rule's run; with an observer, every tick is shown to it (the
/// player's timeline is recorded this way, so it replays the very run whose
/// metrics the lab reports). `stepwise` runs every tick through this loop
/// (tests compare it with the stretches run in one call).
pub(super) fn run_observed(
    config: &Config,
    workload: &Workload,
    rule: RuleKind,
    mut observer: Option<Observer<'_>>,
    meter: &Meter,
    stepwise: bool,
) -> RuleOutcome {
    let mut run = TickLoop::new(config, workload, rule, meter, observer.is_some(), stepwise);
    while run.now.0 < config.max_ticks {
        if !meter.tick(run.tick_ns) {
            break;
        }
        run.grow();
        run.route();
        let ran = run.now;
        if !run.step() {
            break;
        }
        if let Some(observe) = observer.as_mut() {
            observe(ran, &run.replicas, &run.routed_now, &run.events_now);
            run.routed_now.clear();
            run.events_now.clear();
        }
        let idle = run.replicas.iter().all(Replica::is_idle);
        if run.arrivals.all_routed() && idle && !run.scale_up_pending() {
            break;
        }
        if idle {
            run.jump_idle();
        }
    }
    run.finish()
}

/// What one rule's run carries from pass to pass of the tick loop.
pub(super) struct TickLoop<'a> {
    pub(super) config: &'a Config,
    pub(super) workload: &'a Workload,
    pub(super) rule: RuleKind,
    /// Charged for every tick and preemption; the run stops when it says so.
    pub(super) meter: &'a Meter,
    /// What the meter charges for a tick of the pool (routing/work.rs,
    /// fitted on release runs).
    pub(super) tick_ns: f64,
    /// Whether an observer sees the ticks (it gets the tick's decisions and
    /// events).
    pub(super) watching: bool,
    /// Stretches between arrivals run in one call per replica, and idle
    /// ones are jumped over, from this tick on (a recording sees every tick
    /// it keeps; `stepwise`, for tests, ticks through the whole run).
    pub(super) skip_from: u64,
    pub(super) replicas: Vec<Replica>,
    /// One router per gateway copy, each with its own state; request k
    /// reaches gateway k mod N (round robin, as a load balancer in front of
    /// the gateways spreads connections).
    pub(super) routers: Vec<AnyRouter>,
    /// Its own stream, so a random spread leaves the tie-breaks as they are.
    pub(super) spread: Rng,
    /// Each rule draws from its own stream, so every rule replays the same
    /// trace and a rule's choices do not depend on which other rules ran.
    pub(super) rng: Rng,
    /// The other rules consulted on every decision, when asked for.
    pub(super) shadows: Option<Shadows>,
    pub(super) counterfactuals: Vec<DecisionDetail>,
    /// Per request: TTFT and E2E in ticks, the tick after its last token,
    /// and the prompt tokens its admission found cached.
    pub(super) ttft: Vec<Option<u64>>,
    pub(super) e2e: Vec<Option<u64>>,
    pub(super) finished_at: Vec<Option<u64>>,
    /// Per request: the chunks its output streamed in (0 until it finishes).
    pub(super) chunks: Vec<u32>,
    pub(super) cached: Vec<Option<u32>>,
    pub(super) decisions: Vec<Decision>,
    pub(super) sampler: QueueSampler,
    pub(super) arrivals: Arrivals,
    /// Scratch, reused pass after pass (the loop runs once per arrival;
    /// allocating them anew each time cost about 4% of the Routing Lab's
    /// run in the browser's wasm): one replica's events, and for a stretch
    /// the outstanding counts, finishes (tick, replica) and idle ticks.
    pub(super) events: Vec<EngineEvent>,
    pub(super) counts: Vec<u32>,
    pub(super) finishes: Vec<(u64, usize)>,
    pub(super) idle_from: Vec<u64>,
    /// What the observer is shown of the current tick.
    pub(super) routed_now: Vec<Routed>,
    pub(super) events_now: Vec<(u32, EngineEvent)>,
    pub(super) now: Tick,
    pub(super) last_finish: Option<u64>,
    pub(super) output_done: u64,
    pub(super) completed: u32,
}

impl<'a> TickLoop<'a> {
    /// The run at tick 0: the pool empty, nothing routed.
    pub(super) fn new(
        config: &'a Config,
        workload: &'a Workload,
        rule: RuleKind,
        meter: &'a Meter,
        watching: bool,
        stepwise: bool,
    ) -> Self {
        let n = config.replicas as usize;
        let len = workload.requests.len();
        let gateways = config.gateways.max(1) as usize;
        TickLoop {
            config,
            workload,
            rule,
            meter,
            tick_ns: work::TICK_NS * (n as f64 + f64::from(u8::from(config.scale_up_at > 0))),
            watching,
            skip_from: if stepwise {
                u64::MAX
            } else if watching {
                PLAYER_TICKS
            } else {
                0
            },
            replicas: (0..n)
                .map(|i| config.replica(workload.block_tokens, config.speed(i), Tick::ZERO))
                .collect(),
            routers: (0..gateways).map(|_| rule.build(&config.rules)).collect(),
            spread: Rng::new(config.seed, stream::GATEWAYS + rule.index() as u64),
            rng: Rng::new(config.seed, stream::TIE_BREAKS + rule.index() as u64),
            shadows: config.counterfactuals.then(|| Shadows::new(config, rule)),
            counterfactuals: Vec::new(),
            ttft: vec![None; len],
            e2e: vec![None; len],
            finished_at: vec![None; len],
            chunks: vec![0; len],
            cached: vec![None; len],
            decisions: Vec::with_capacity(len),
            sampler: QueueSampler::new(n),
            arrivals: Arrivals::new(config, workload),
            events: Vec::new(),
            counts: Vec::new(),
            finishes: Vec::new(),
            idle_from: Vec::new(),
            routed_now: Vec::new(),
            events_now: Vec::new(),
            now: Tick::ZERO,
            last_finish: None,
            output_done: 0,
            completed: 0,
        }
    }

    /// A cold replica joins at its tick, before that tick's arrivals are
    /// routed.
    pub(super) fn grow(&mut self) {
        let config = self.config;
        if config.scale_up_at > 0 && self.now.0 == config.scale_up_at {
            let joining = config.replica(self.workload.block_tokens, 1.0, self.now);
            self.replicas.push(joining);
            self.sampler.add_replica();
        }
    }

    /// Whether a replica is still due to join.
    fn scale_up_pending(&self) -> bool {
        self.config.scale_up_at > 0 && self.now.0 <= self.config.scale_up_at
    }

    /// An idle pool waits for the next arrival: jump there rather than tick
    /// through (a trace's quiet night would otherwise cost a tick per
    /// millisecond). Nothing happens in such ticks but the clock, each
    /// replica's speed credit and the queue series' zeros, which the jump
    /// keeps; a recording player sees every tick it records.
    pub(super) fn jump_idle(&mut self) {
        if self.now.0 < self.skip_from {
            return;
        }
        let config = self.config;
        let mut to = self.arrivals.next_at().unwrap_or(config.max_ticks);
        if self.scale_up_pending() {
            to = to.min(config.scale_up_at);
        }
        let to = to.min(config.max_ticks);
        if to > self.now.0 {
            let gap = to - self.now.0;
            for r in self.replicas.iter_mut() {
                r.idle_for(gap);
            }
            self.sampler.push_idle(gap);
            self.now = Tick(to);
        }
    }
}
