//! Agent sessions (§13 of the reference article): the unit of work is a
//! session of many model calls, not one request, and what the gateway keys
//! a call's replica on decides both the cache it finds and how a fan-out
//! of subagents spreads.
//!
//! The model, in steps of 10 ms. Sessions start as a Poisson stream, each
//! one of five kinds from the article's table: a chat turn (one call), a
//! retrieval-augmented answer (two), a tool-using chain (twelve calls in a
//! row, each prompt adding a tool result to everything before it), a
//! subagent session (a plan, then `fanout` subagents at once that share
//! the parent's context, then a merge, twice: about forty calls), and a
//! long-running agent that calls until the run ends and compacts its
//! context past 32k tokens. Every session starts with one of `prompts`
//! system prompts. A replica runs `slots` calls at once, prefills its
//! admitted calls first come first served at `prefill` tokens a second
//! (skipping what its cache holds: the system prompt, then as much of the
//! conversation as it saw last), and decodes each call at `tpot` ms a
//! token. Its cache holds `cache` tokens of prefixes, least recently used
//! evicted first. The gateway keys each call on load alone, on the
//! conversation id (a subagent is a conversation of its own), on the shared
//! prefix (every call of one system prompt to one replica, rendezvous
//! hashing), or on the longest cached prefix bounded by load; a per-session
//! cap holds a session's calls beyond `cap` at the gateway. Every key sees
//! the same sessions and tool times. `tests/agents_claims.rs` holds the
//! article's claims over seeds.

mod config;
mod report;
mod sim;

pub use config::{Config, Key};
pub use report::moment_text;
pub use sim::{run, run_keys, KeyRun, KindRow, Moment, Snapshot, Spot, DRAIN_S, FRAME_MS, STEP_MS};

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Opening, Panel, PlayerInfo, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;

crate::choices! {
    /// The kinds of session (article §13's table of units of work).
    pub enum Kind {
        /// One chat turn: one call.
        Chat = ("chat", "Chat turn", "One call."),
        /// A retrieval-augmented answer: two calls in a row.
        Rag = ("rag", "RAG answer", "A short call, then one over the retrieved text."),
        /// A tool-using agent: twelve calls, the prompt growing each step.
        Chain = ("chain", "Tool chain", "Twelve calls in a row; each adds a tool result to the prompt."),
        /// Parallel subagents: plan, fan out, merge, twice.
        Subagents = ("subagents", "Subagents", "A plan, then the fan-out at once on a shared prefix, then a merge; twice."),
        /// A long-running agent that compacts its context.
        Long = ("long", "Long-running", "Calls until the run ends; compacts its context past 32k tokens."),
    }
}

/// Every key on the same sessions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// One run per key, in the order asked (every key: [`Key::ALL`]).
    pub runs: Vec<KeyRun>,
}

impl Outcome {
    /// The run of `key`, if it ran.
    pub fn run(&self, key: Key) -> Option<&KeyRun> {
        self.runs.iter().find(|r| r.key == key)
    }
}

/// Slot-seconds a session asks for on average under the mix, and the
/// calls it issues: what the work estimate sizes the run from.
fn per_session(c: &Config) -> (f64, f64) {
    let mix = c.mix();
    let total: f64 = mix.iter().sum::<f64>().max(1e-9);
    let tpot = c.tpot / 1000.0;
    // Output tokens and calls per kind (the stages in `sim.rs`); a
    // long-running agent is counted for the whole arrival window.
    let long_calls = f64::from(c.seconds) / (5.0 * c.tool + 3.0).max(1.0);
    let fan = f64::from(c.fanout);
    let kinds = [
        (250.0, 1.0),
        (340.0, 2.0),
        (120.0 * 12.0, 12.0),
        (900.0 + 800.0 * fan, 3.0 + 2.0 * fan),
        (150.0 * long_calls, long_calls),
    ];
    let mut slot_s = 0.0;
    let mut calls = 0.0;
    for (share, (out, n)) in mix.iter().zip(kinds) {
        slot_s += share / total * out * tpot;
        calls += share / total * n;
    }
    (slot_s, calls)
}

/// The agent-sessions lab in the lab registry.
pub struct AgentsLab;

impl Lab for AgentsLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Key;
    const INFO: LabInfo = LabInfo {
        id: "agents",
        title: "Agent sessions",
        section: "§13",
        layer: Layer::EndpointSelection,
        summary: "Sessions of many calls instead of single requests: key on the prefix or the conversation, and watch a fan-out of subagents bury one replica.",
        units: "One step is 100 ms; times are in seconds.",
        player: Some(PlayerInfo {
            unit: "step",
            first: 0,
            speed: 10.0,
            vs: None,
            opens: Opening::FirstMoment,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Key>> = Some(Focus {
        key: "key",
        label: "Key in the player",
        default: Key::Prefix,
    });

    /// Each key's steps (100 a second, over the arrivals and a drain that
    /// a pool past its capacity stretches to the full [`DRAIN_S`]), each
    /// costing a little per replica and per call in its batch or queue,
    /// plus the cache lookups of each call. Fitted to `lblab agents`
    /// release runs with room above them.
    fn work(config: &Config, input: &Input<'_, Key>) -> Work {
        let (slot_s, calls) = per_session(config);
        let replicas = f64::from(config.replicas);
        let capacity = replicas * f64::from(config.slots);
        let busy = config.rate * slot_s;
        let drain = if busy < 0.85 * capacity {
            120.0
        } else {
            DRAIN_S as f64
        };
        let steps = (f64::from(config.seconds) + drain) * 1000.0 / STEP_MS as f64;
        let in_pool = busy.min(capacity) + if busy >= capacity { capacity } else { 0.0 };
        let per_step = 40.0 + replicas * 25.0 + 6.0 * in_pool;
        let sessions = config.rate * f64::from(config.seconds);
        let per_call = 300.0 + replicas * 40.0;
        Work {
            ns: input.items().len() as f64 * (steps * per_step + sessions * calls * per_call),
            drivers: &["seconds", "rate", "replicas", "slots", "fanout"],
            what: alloc::format!(
                "{} keys × {} s of sessions",
                input.items().len(),
                crate::params::thousands(config.seconds.into())
            ),
        }
    }

    fn run(config: &Config, input: &Input<'_, Key>) -> Result<Outcome, RunError> {
        Ok(run(config, &input.items())?)
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

    /// Per key: model calls issued against those finished and those held,
    /// waiting or running at the end (nothing is refused).
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.runs
            .iter()
            .map(|r| Tally {
                what: alloc::format!("key {}", r.key.name()),
                arrived: r.calls.into(),
                finished: r.finished.into(),
                rejected: 0,
                outstanding: r.unfinished.into(),
            })
            .collect()
    }
}
