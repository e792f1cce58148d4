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

/// What a session costs the run on average under the mix: slot-seconds,
/// calls, and cache blocks its calls look up and touch (every admitted call
/// walks its system prompt's and its context's blocks through the replica's
/// cache, the run's largest cost when contexts are long). The stages'
/// token counts are those of `sim::stage`.
fn per_session(c: &Config) -> (f64, f64, f64, f64) {
    let mix = c.mix();
    let total: f64 = mix.iter().sum::<f64>().max(1e-9);
    let tpot = c.tpot / 1000.0;
    let block = f64::from(sim::BLOCK);
    // A long-running agent calls until sessions stop starting: on average
    // for half the window (sessions start uniformly), one call per tool
    // wait (five tool-times) plus the call itself (800 new tokens
    // prefilled, 150 decoded, a step to be admitted).
    let call_s = 800.0 / c.prefill + 150.0 * tpot + 2.0 * sim::STEP_MS as f64 / 1000.0;
    let long_calls = (f64::from(c.seconds) / 2.0 / (5.0 * c.tool + call_s)).max(1.0);
    // Its context grows by 950 tokens a call until compaction, so it
    // averages half its length before the first compaction and about half
    // the compaction threshold after.
    let long_ctx = (long_calls * 950.0 / 2.0).min(18_000.0);
    let fan = f64::from(c.fanout);
    // (output tokens, calls, mean new and context tokens per call) by kind.
    let kinds = [
        (250.0, 1.0, 400.0, 0.0),
        (340.0, 2.0, 1_325.0, 300.0),
        (120.0 * 12.0, 12.0, 490.0, 3_700.0),
        (900.0 + 800.0 * fan, 3.0 + 2.0 * fan, 200.0 + 100.0, 300.0),
        (150.0 * long_calls, long_calls, 800.0, long_ctx),
    ];
    // The share of cached tokens a call misses: none while every system
    // prompt and a few hundred contexts fit a replica's cache, all of them
    // when the cache holds a fraction of that.
    let working = f64::from(c.prompts) * f64::from(c.system) + 500.0 * 1_000.0;
    let miss = (1.0 - f64::from(c.cache) / working).clamp(0.0, 1.0);
    let sys_blocks = f64::from(c.system) / block;
    let mut slot_s = 0.0;
    let mut calls = 0.0;
    let mut blocks = 0.0;
    let mut prefill = 0.0;
    for (share, (out, n, new, ctx)) in mix.iter().zip(kinds) {
        let w = share / total;
        slot_s += w * out * tpot;
        calls += w * n;
        blocks += w * n * (sys_blocks + (ctx / block).min(256.0));
        prefill += w * n * (new + miss * (f64::from(c.system) + ctx));
    }
    (slot_s, calls, blocks, prefill)
}

/// Native nanoseconds per cache block a call looks up and touches
/// (release build; fitted on random configurations, see `work`).
const NS_PER_BLOCK: f64 = 20.0;

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
        let (slot_s, calls, blocks, prefill) = per_session(config);
        let replicas = f64::from(config.replicas);
        let capacity = replicas * f64::from(config.slots);
        // Prefill is shared per replica: past its rate, calls pile up in
        // the batches and queues whatever the decode slots could take.
        let prefill_load = config.rate * prefill / config.prefill / replicas;
        let decode_load = config.rate * slot_s / capacity;
        let load = prefill_load.max(decode_load);
        let busy = if prefill_load >= 0.85 {
            capacity
        } else {
            config.rate * slot_s
        };
        // Past capacity the backlog drains after the window (at most
        // DRAIN_S, when the run stops); below it the last sessions finish.
        let drain = if load < 0.85 {
            120.0
        } else {
            (f64::from(config.seconds) * (load - 1.0).max(0.0) + 120.0).min(DRAIN_S as f64)
        };
        let steps = (f64::from(config.seconds) + drain) * 1000.0 / STEP_MS as f64;
        let in_pool = busy.min(capacity) + if busy >= capacity { capacity } else { 0.0 };
        let per_step = 40.0 + replicas * 25.0 + 6.0 * in_pool;
        let sessions = config.rate * f64::from(config.seconds);
        let per_call = 300.0 + replicas * 40.0;
        Work {
            ns: input.items().len() as f64
                * (steps * per_step + sessions * (calls * per_call + blocks * NS_PER_BLOCK)),
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
