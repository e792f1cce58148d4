//! The agent-sessions lab's settings and its routing keys.

use serde::{Deserialize, Serialize};

use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};

crate::choices! {
    /// What the gateway keys a model call's replica on.
    pub enum Key {
        /// Load alone: the replica with the fewest calls running or waiting.
        Load = ("load", "Load only", "The replica with the fewest calls running or waiting; the cache is ignored."),
        /// The conversation id: every call of one conversation to one replica.
        Conversation = ("conversation", "Conversation id", "A hash of the conversation id picks the replica; a subagent is a conversation of its own."),
        /// The shared prefix: every call that starts with one system prompt to one replica.
        Prefix = ("prefix", "Prefix", "A hash of the shared prefix (system prompt and tools) picks the replica, whatever its load."),
        /// The longest cached prefix, unless that replica is too busy.
        Bounded = ("bounded", "Prefix, load-bounded", "The replica caching most of the prompt, unless it is more than the balance threshold busier than the least busy one."),
    }
}

/// The agent-sessions lab's configuration; ranges are in
/// [`Config::PARAMS`]. Time runs in steps of [`super::STEP_MS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// New sessions per second (Poisson).
    pub rate: f64,
    /// Seconds during which sessions start; the run then drains.
    pub seconds: u32,
    /// Subagents a fan-out step starts at once.
    pub fanout: u32,
    /// Most calls one session (its subagents included) has at the replicas
    /// at once; the rest wait at the gateway. 0: no cap.
    pub cap: u32,
    /// Replicas.
    pub replicas: u32,
    /// Calls one replica runs at once (its batch, bounded by its KV cache).
    pub slots: u32,
    /// Bounded prefix key: how many more calls than the least busy replica
    /// the best-cached one may hold before the call goes to the least busy.
    pub balance: u32,
    /// Distinct system prompts the sessions share.
    pub prompts: u32,
    /// Tokens of each system prompt (instructions and tool definitions).
    pub system: u32,
    /// Prompt tokens a replica prefills per second.
    pub prefill: f64,
    /// Milliseconds per output token of one call.
    pub tpot: f64,
    /// Mean seconds a tool call takes between two steps of a chain.
    pub tool: f64,
    /// Tokens one replica's prefix cache holds.
    pub cache: u32,
    /// Share of sessions that are one chat turn.
    pub chat: f64,
    /// Share of sessions that are a retrieval-augmented answer (two calls).
    pub rag: f64,
    /// Share of sessions that are a tool-using chain.
    pub chain: f64,
    /// Share of sessions that fan out to parallel subagents.
    pub subagents: f64,
    /// Share of sessions that are long-running agents.
    pub long: f64,
    /// Seed of every random stream.
    pub seed: u64,
}

/// The defaults tell the lab's story in one run: four replicas of twelve
/// slots (a batch bounded by memory, small so that one fan-out overfills
/// it), half a session per second of which 15% fan out to sixteen
/// subagents at once, and four system prompts of 3,000 tokens. The
/// throughputs are a Llama-3-8B-class model on one H100-class GPU, rounded:
/// about 20,000 prompt tokens a second and 20 ms per output token (an
/// assumption stated in the model notes, not a measured preset).
impl Default for Config {
    // Not inlined, as every lab config's (each inlined copy costs the bundle).
    #[inline(never)]
    fn default() -> Self {
        Config {
            rate: 0.5,
            seconds: 180,
            fanout: 16,
            cap: 0,
            replicas: 4,
            slots: 12,
            balance: 8,
            prompts: 4,
            system: 3000,
            prefill: 20_000.0,
            tpot: 20.0,
            tool: 1.0,
            cache: 200_000,
            chat: 0.35,
            rag: 0.2,
            chain: 0.25,
            subagents: 0.15,
            long: 0.05,
            seed: 1,
        }
    }
}

impl Config {
    /// The session mix in [`super::Kind::ALL`] order, as given (not
    /// normalised).
    pub fn mix(&self) -> [f64; 5] {
        [self.chat, self.rag, self.chain, self.subagents, self.long]
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("rate", "Sessions", "per s", (0.05, 5.0, 0.05), |c| c.rate, |c, x| c.rate = x)
            .doc("New sessions per second (Poisson), of every kind in the mix."),
        P::whole("fanout", "Fan-out", "subagents", (1, 64, 1), |c| c.fanout.into(), |c, x| c.fanout = narrow(x))
            .doc("Subagents one fan-out step starts at once; they share the parent's prefix."),
        P::whole("cap", "Per-session cap", "calls", (0, 64, 1), |c| c.cap.into(), |c, x| c.cap = narrow(x))
            .doc("Most calls one session, its subagents included, has at the replicas at once; the rest wait at the gateway. 0: no cap."),
        P::whole("balance", "Balance threshold (bounded)", "calls", (0, 256, 1), |c| c.balance.into(), |c, x| c.balance = narrow(x))
            .doc("Bounded prefix key: the best-cached replica is skipped once it holds this many more calls than the least busy one."),
        P::whole("replicas", "Replicas", "", (1, 16, 1), |c| c.replicas.into(), |c, x| c.replicas = narrow(x))
            .doc("Model replicas behind the gateway.")
            .advanced(),
        P::whole("slots", "Slots per replica", "", (1, 256, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Calls a replica runs at once (its batch, bounded by its KV cache); the rest wait in its queue.")
            .advanced(),
        P::whole("prompts", "System prompts", "", (1, 64, 1), |c| c.prompts.into(), |c, x| c.prompts = narrow(x))
            .doc("Distinct system prompts (apps or tenants), equally popular; sessions with one share its cache.")
            .advanced(),
        P::whole("system", "System prompt", "tokens", (0, 32_768, 100), |c| c.system.into(), |c, x| c.system = narrow(x))
            .doc("Tokens of each system prompt with its tool definitions: the prefix every call of its sessions starts with.")
            .advanced(),
        P::real("prefill", "Prefill speed", "tok/s", (1000.0, 200_000.0, 1000.0), |c| c.prefill, |c, x| c.prefill = x)
            .doc("Prompt tokens a replica prefills per second, shared first come first served by the calls it admitted.")
            .advanced(),
        P::real("tpot", "Time per output token", "ms", (1.0, 200.0, 1.0), |c| c.tpot, |c, x| c.tpot = x)
            .doc("Milliseconds between two output tokens of one call.")
            .advanced(),
        P::real("tool", "Tool call", "s", (0.0, 60.0, 0.1), |c| c.tool, |c, x| c.tool = x)
            .doc("Mean seconds a tool call takes between two steps of a chain (exponential); long-running agents wait five times this.")
            .advanced(),
        P::whole("cache", "Prefix cache", "tokens", (1000, 4_000_000, 1000), |c| c.cache.into(), |c, x| c.cache = narrow(x))
            .doc("Tokens one replica's prefix cache holds; the least recently used prefix goes first.")
            .advanced(),
        P::real("chat", "Chat turns", "", (0.0, 1.0, 0.05), |c| c.chat, |c, x| c.chat = x)
            .doc("Share of sessions that are one chat turn (one call).")
            .show(Show::Percent(0))
            .advanced(),
        P::real("rag", "RAG answers", "", (0.0, 1.0, 0.05), |c| c.rag, |c, x| c.rag = x)
            .doc("Share of sessions that are a retrieval-augmented answer: a short call, then one with the retrieved text.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("chain", "Tool chains", "", (0.0, 1.0, 0.05), |c| c.chain, |c, x| c.chain = x)
            .doc("Share of sessions that are a tool-using agent: twelve calls in a row, the prompt growing by each tool result.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("subagents", "Subagent fan-outs", "", (0.0, 1.0, 0.05), |c| c.subagents, |c, x| c.subagents = x)
            .doc("Share of sessions that plan, fan out to parallel subagents, merge, and do it twice.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("long", "Long-running agents", "", (0.0, 1.0, 0.05), |c| c.long, |c, x| c.long = x)
            .doc("Share of sessions that call the model until the run ends, compacting their context when it grows long.")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("seconds", "Seconds of arrivals", "s", (30, 1800, 30), |c| c.seconds.into(), |c, x| c.seconds = narrow(x))
            .doc("Seconds during which sessions start; the run then lets them finish.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    /// The mix must name at least one kind of session.
    fn cross_check(&self) -> Result<(), ParamError> {
        if self.mix().iter().sum::<f64>() <= 0.0 {
            return Err(ParamError {
                key: "chat",
                given: alloc::format!("{}", self.chat),
                problem: Problem::Invalid(
                    "the session mix is empty: give at least one kind of session a share".into(),
                ),
            });
        }
        Ok(())
    }
}
