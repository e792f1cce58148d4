//! The first token (§9.4 and §9.5 of the reference article): every way of
//! recovering from a failure (retry, hedge, failover to another replica) can
//! act only until the user has seen the first token; after it, a failure is
//! a broken stream, unless the application resumes from the text already
//! shown. A reasoning model moves that point later: its hidden tokens come
//! first, so failures during the reasoning are still invisible, a hedge can
//! be cancelled before either copy has shown anything, and the effort the
//! request asks for is a cost hint the gateway can read at dispatch. The
//! effort is also part of the cached prefix: changing it inside one
//! conversation misses.
//!
//! The model, in steps of 10 ms. Conversations start as a Poisson stream;
//! each has a geometric number of turns, each turn's prompt the last one,
//! its answer and a new message. A conversation has an effort (low, medium
//! or high, each a budget of hidden tokens), which a turn may change. A
//! replica runs `slots` attempts at once, prefills first come first served
//! at `prefill` tokens a second (skipping the prefix its cache holds for the
//! conversation at that effort), and produces a token every `tpot` ms per
//! attempt, hidden ones first. Replica 1 fails a share `faulty` of its
//! attempts and replica 2 is `slow` times slower; an attempt that fails does
//! so at a point drawn uniformly over its tokens (before the first, during
//! the reasoning, or mid-answer). Every strategy sees the same
//! conversations and, attempt by attempt, the same failure draws.
//!
//! Strategies (the lab's items): no recovery; retry on another replica
//! before the first visible token (failover); hedge as well, once nothing
//! visible has come after a multiple of what the request's effort should
//! take; and resume, which also re-prompts another replica with the text
//! shown so far after a mid-stream failure (costing that prompt's prefill).
//! `tests/first_token_claims.rs` holds the article's claims over seeds.

mod config;
mod plan;
mod player;
mod report;
mod route;
mod sim;

pub use config::{Config, HedgeUntil, Route};
pub use player::{Dot, Lane, Moment, Phase, Snapshot, Then, FRAME_MS, LANES};
pub use sim::{Fate, Why, DRAIN_S, STEP_MS};

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;
use crate::params::Configurable;

crate::choices! {
    /// What the stack does when an attempt fails.
    pub enum Recovery {
        /// Nothing: the first failure is the user's.
        None = ("none", "No recovery", "One attempt; a failure is an error or a broken stream the user sees."),
        /// Retry on another replica while nothing is shown.
        Retry = ("retry", "Retry before the first token", "A failure before the first visible token is sent again to another replica; after it, the stream breaks."),
        /// Retry, and hedge a request that has shown nothing for too long.
        Hedge = ("hedge", "Retry and hedge", "As retry, and a duplicate goes to another replica when nothing visible has come after a multiple of what the effort should take; the first to show a token wins."),
        /// Retry, hedge, and resume a broken stream from what was shown.
        Resume = ("resume", "Retry, hedge, resume", "As hedge, and a mid-stream failure re-prompts another replica with the text shown so far, which goes on from there."),
    }
}

/// One strategy's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveryRun {
    /// The strategy.
    pub recovery: Recovery,
    /// Requests (turns) sent.
    pub requests: u32,
    /// Requests answered in full.
    pub done: u32,
    /// Requests still going when the run stopped.
    pub open: u32,
    /// Time to the first visible token, median, in ms.
    pub ttfvt_p50: f64,
    /// Its 95th percentile, in ms.
    pub ttfvt_p95: f64,
    /// Its 99th percentile, in ms.
    pub ttfvt_p99: f64,
    /// The 95th percentile of the interactive turns (low effort, or every
    /// turn of a plain model), in ms.
    pub interactive_p95: f64,
    /// Requests that failed before showing anything, with no attempt left:
    /// the user sees an error.
    pub errors: u32,
    /// Streams that broke after the user had seen part of the answer.
    pub broken: u32,
    /// Streams resumed after a mid-stream failure.
    pub resumed: u32,
    /// Requests that met a failure before their first visible token and
    /// still showed one: recovered unseen.
    pub recovered: u32,
    /// Attempt failures before the request's first visible token.
    pub failures_before: u32,
    /// Attempt failures after it.
    pub failures_after: u32,
    /// Hedges sent.
    pub hedges: u32,
    /// Retries sent.
    pub retries: u32,
    /// Tokens decoded by hedge copies cancelled when the other copy showed
    /// its first token, as a share of all tokens decoded.
    pub hedge_share: f64,
    /// What one hedge cost: the tokens its cancelled copies decoded, per
    /// hedge sent, as a share of a whole answer's tokens (hidden and
    /// visible, the mean over requests); 0 without hedges. Near 1 when the
    /// loser ran through its answer (§9.2's hedge on a plain model), lower
    /// when it is stopped before any visible text (§9.5).
    pub hedge_cost: f64,
    /// Tokens decoded for nothing (cancelled or failed attempts), as a
    /// share of all tokens decoded.
    pub wasted_share: f64,
    /// Prompt tokens found in a replica's cache, as a share of prompt
    /// tokens admitted.
    pub cache_share: f64,
    /// The run frame by frame ([`FRAME_MS`]), when the player asked for it
    /// (empty otherwise).
    pub timeline: Vec<Snapshot>,
}

impl RecoveryRun {
    /// Failures the user saw: errors and broken streams.
    pub fn visible_failures(&self) -> u32 {
        self.errors + self.broken
    }
}

/// Every strategy on the same conversations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Conversations that started.
    pub conversations: u32,
    /// One run per strategy, in the order asked.
    pub runs: Vec<RecoveryRun>,
}

impl Outcome {
    /// The run of `recovery`, if it ran.
    pub fn run(&self, recovery: Recovery) -> Option<&RecoveryRun> {
        self.runs.iter().find(|r| r.recovery == recovery)
    }
}

/// Run `items` (every strategy when empty) on `config`, recording the
/// player's frames of those in `record`.
pub fn run(
    config: &Config,
    items: &[Recovery],
    record: &[Recovery],
) -> Result<Outcome, crate::params::ParamError> {
    config.validate()?;
    let convs = plan::conversations(config);
    let items: Vec<Recovery> = if items.is_empty() {
        Recovery::ALL.to_vec()
    } else {
        items.to_vec()
    };
    let runs = items
        .iter()
        .map(|&recovery| one(config, recovery, &convs, record.contains(&recovery)))
        .collect();
    Ok(Outcome {
        config: config.clone(),
        conversations: convs.len() as u32,
        runs,
    })
}

/// One strategy's run; when `record`, run again with the first run's
/// requests to choose the player's lanes from (the runs are the same).
fn one(
    config: &Config,
    recovery: Recovery,
    convs: &[plan::Conversation],
    record: bool,
) -> RecoveryRun {
    let mut w = sim::World::new(config, recovery, convs);
    w.run();
    let mut timeline = Vec::new();
    if record {
        let mut again = sim::World::new(config, recovery, convs);
        again.rec = Some(player::Recorder::after(&w));
        again.run();
        timeline = again.rec.take().map(|r| r.frames).unwrap_or_default();
    }
    let open = w.open_requests();
    let answers = w.requests.len().max(1) as f64;
    let answer = w
        .requests
        .iter()
        .map(|r| f64::from(r.hidden + r.visible))
        .sum::<f64>()
        / answers;
    let t = &mut w.t;
    let share = |x: u64| x as f64 / (t.tokens.max(1)) as f64;
    RecoveryRun {
        recovery,
        requests: t.requests,
        done: t.done,
        open,
        ttfvt_p50: sim::pct(&mut t.ttfvt, 50.0),
        ttfvt_p95: sim::pct(&mut t.ttfvt, 95.0),
        ttfvt_p99: sim::pct(&mut t.ttfvt, 99.0),
        interactive_p95: sim::pct(&mut t.interactive, 95.0),
        errors: t.errors,
        broken: t.broken,
        resumed: t.resumed,
        recovered: t.recovered,
        failures_before: t.failures_before,
        failures_after: t.failures_after,
        hedges: t.hedges,
        retries: t.retries,
        hedge_share: share(t.hedge_tokens),
        hedge_cost: if t.hedges == 0 {
            0.0
        } else {
            t.hedge_tokens as f64 / f64::from(t.hedges) / answer.max(1.0)
        },
        wasted_share: share(t.wasted_tokens),
        cache_share: t.cached_tokens as f64 / (t.prompt_tokens.max(1)) as f64,
        timeline,
    }
}

/// The first-token lab in the lab registry.
pub struct FirstTokenLab;

impl Lab for FirstTokenLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Recovery;
    const INFO: LabInfo = LabInfo {
        id: "first-token",
        title: "The first token",
        section: "§9.4–9.5",
        layer: Layer::Client,
        summary: "Retries, hedges and failover work only until the user sees a token; a reasoning model moves that point and hands the gateway a cost hint.",
        units: "Times in seconds (the simulation steps 10 ms at a time); tokens are hidden reasoning or visible answer tokens.",
        player: Some(PlayerInfo {
            unit: "step",
            first: 0,
            speed: 12.0,
            vs: None,
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Cards],
    };
    const FOCUS: Option<Focus<Recovery>> = Some(Focus {
        key: "recovery",
        label: "Strategy in focus",
        default: Recovery::Hedge,
    });

    /// Each strategy's steps over the arrivals and the drain (past capacity
    /// the drain runs its full [`DRAIN_S`]), each costing a little per
    /// replica and per attempt in a batch or a queue; a recorded strategy
    /// counts twice.
    fn work(config: &Config, input: &Input<'_, Recovery>) -> Work {
        let per_turn_s =
            (f64::from(config.hidden(1)) + f64::from(config.output)) * config.tpot / 1000.0;
        let busy = config.rate * config.turns * per_turn_s;
        let capacity = f64::from(config.replicas * config.slots);
        let load = busy / capacity;
        let drain = if load < 0.85 { 180.0 } else { DRAIN_S as f64 };
        let steps = (f64::from(config.seconds) + drain) * 1000.0 / STEP_MS as f64;
        let in_pool = busy.min(capacity) * if load >= 1.0 { 2.0 } else { 1.0 };
        let per_step = 60.0 + f64::from(config.replicas) * 30.0 + 12.0 * in_pool;
        // The player's strategy runs twice: once for the figures, once to
        // record with lanes chosen from the first run.
        let runs = input.items().len() + input.record.len();
        Work {
            ns: runs as f64 * steps * per_step,
            drivers: &["seconds", "rate", "replicas", "slots", "high"],
            what: alloc::format!(
                "{} strategies × {} s of conversations",
                input.items().len(),
                crate::params::thousands(config.seconds.into())
            ),
        }
    }

    fn run(config: &Config, input: &Input<'_, Recovery>) -> Result<Outcome, RunError> {
        Ok(run(config, &input.items(), input.record)?)
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> String {
        report::csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    /// Per strategy: turns sent against those answered, those that failed
    /// where the user saw it, and those still open.
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("strategy {}", r.recovery.name()),
                arrived: r.requests.into(),
                finished: r.done.into(),
                rejected: r.visible_failures().into(),
                outstanding: r.open.into(),
            })
            .collect()
    }
}
