//! The first-token lab's settings, its routing choices and its defaults.

use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};

crate::choices! {
    /// How the gateway reads the effort a request carries at dispatch.
    pub enum Route {
        /// Effort is ignored: the conversation's last replica, unless it runs
        /// two more attempts than the least busy one, then the least busy.
        Ignore = ("ignore", "Ignore effort", "Least busy by attempts in flight, keeping a conversation where it was; effort is not read."),
        /// Load counts the tokens each attempt still has to produce, its
        /// reasoning budget included.
        Weighted = ("weighted", "Effort-weighted load", "Load is the tokens each replica still owes, reasoning budgets included, so a high-effort request weighs what it will cost."),
        /// High effort goes to a pool of its own.
        Pool = ("pool", "Separate high-effort pool", "High-effort requests go to the last replicas of the pool, everything else to the rest, so long reasoning never shares a batch with an interactive turn."),
    }
}

crate::choices! {
    /// When a hedge's losing copy is stopped.
    pub enum HedgeUntil {
        /// At the first visible token: the copy that shows text first wins
        /// and the other is cancelled before the user could see it.
        FirstToken = ("first-token", "The first visible token", "The copy showing text first wins; the other is cancelled unseen."),
        /// At the end of the answer: both copies decode on, the user is
        /// shown whichever is ahead, and the other is cancelled when one
        /// finishes (a hedge on the whole response, as in §9.2).
        End = ("end", "The end of the answer", "Both copies decode on; the user reads the one ahead, and the slower is cancelled when one finishes."),
    }
}

/// The first-token lab's configuration; ranges are in [`Config::PARAMS`].
/// Time runs in steps of [`super::STEP_MS`] milliseconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// New conversations per second (Poisson).
    pub rate: f64,
    /// Seconds during which conversations start; the run then drains.
    pub seconds: u32,
    /// Mean turns of a conversation (geometric, at least one).
    pub turns: f64,
    /// Mean seconds a user reads and types between two turns (exponential).
    pub think: f64,
    /// Replicas behind the gateway.
    pub replicas: u32,
    /// Attempts one replica runs at once (its batch).
    pub slots: u32,
    /// How the gateway reads effort.
    pub route: Route,
    /// Replicas kept for high effort when `route` is the pool.
    pub pool: u32,
    /// Whether the model reasons (hidden tokens before the visible answer).
    pub reasoning: bool,
    /// Hidden reasoning tokens at low effort.
    pub low: u32,
    /// Hidden reasoning tokens at medium effort.
    pub medium: u32,
    /// Hidden reasoning tokens at high effort.
    pub high: u32,
    /// Share of conversations at medium effort.
    pub medium_share: f64,
    /// Share of conversations at high effort (the rest are low).
    pub high_share: f64,
    /// Chance that a turn asks for another effort than its conversation's.
    pub vary: f64,
    /// Tokens of the first prompt (system prompt, tools, first message).
    pub prompt: u32,
    /// Mean visible answer, in tokens (gamma, CV 0.5).
    pub output: u32,
    /// Prompt tokens a replica prefills per second.
    pub prefill: f64,
    /// Milliseconds per output token, hidden or visible.
    pub tpot: f64,
    /// Chance that an attempt on a healthy replica fails.
    pub fail: f64,
    /// Chance that an attempt on the faulty replica (replica 1) fails.
    pub faulty: f64,
    /// How many times slower the slow replica (replica 2) decodes.
    pub slow: f64,
    /// Hedge once no visible token has come after this multiple of the time
    /// the request's effort should take to reach one.
    pub hedge_after: f64,
    /// When a hedge's losing copy is stopped (default at the first visible
    /// token).
    pub hedge_until: HedgeUntil,
    /// Most attempts one request makes (first, retries, hedges and resumes).
    pub attempts: u32,
    /// Conversations one replica's prefix cache holds (least recently used
    /// evicted first).
    pub cache: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

/// The defaults tell the lab's story in one run: six replicas of eight
/// slots, four conversations starting every five seconds for five minutes,
/// four turns each (busy enough for long reasoning to fill slots); a
/// reasoning model whose efforts cost 128, 512 and 2,048 hidden tokens (half
/// the conversations low, 30% medium, 20% high); one replica failing a fifth
/// of its attempts and one three times slower. The throughputs are an
/// 8B-class model on one H100-class GPU, rounded (20,000 prompt tokens a
/// second, 20 ms a token), as in the agent-sessions lab.
impl Default for Config {
    #[inline(never)]
    fn default() -> Self {
        Config {
            rate: 0.8,
            seconds: 300,
            turns: 4.0,
            think: 8.0,
            replicas: 6,
            slots: 8,
            route: Route::Ignore,
            pool: 2,
            reasoning: true,
            low: 128,
            medium: 512,
            high: 2048,
            medium_share: 0.3,
            high_share: 0.2,
            vary: 0.0,
            prompt: 1500,
            output: 250,
            prefill: 20_000.0,
            tpot: 20.0,
            fail: 0.01,
            faulty: 0.2,
            slow: 3.0,
            hedge_after: 1.5,
            hedge_until: HedgeUntil::FirstToken,
            attempts: 3,
            cache: 64,
            seed: 1,
        }
    }
}

impl Config {
    /// Hidden tokens of `effort` (0 low, 1 medium, 2 high); none when the
    /// model does not reason.
    pub fn hidden(&self, effort: u8) -> u32 {
        if !self.reasoning {
            return 0;
        }
        match effort {
            0 => self.low,
            1 => self.medium,
            _ => self.high,
        }
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::choice("route", "Routing", Route::options, |c| c.route.name(), |c, x| {
            if let Some(r) = Route::from_name(x) {
                c.route = r;
            }
        })
            .doc("How the gateway reads the effort field a request carries at dispatch."),
        P::switch("reasoning", "Reasoning model", |c| c.reasoning, |c, x| c.reasoning = x)
            .doc("The model reasons before it answers: hidden tokens first, so the first token a user sees comes later."),
        P::real("vary", "Effort changes in a conversation", "", (0.0, 1.0, 0.05), |c| c.vary, |c, x| c.vary = x)
            .doc("Chance that a turn asks for another effort than its conversation's; the effort is part of the cached prefix, so a change misses.")
            .show(Show::Percent(0)),
        P::real("rate", "Conversations", "per s", (0.05, 5.0, 0.05), |c| c.rate, |c, x| c.rate = x)
            .doc("New conversations per second (Poisson)."),
        P::real("faulty", "Faulty replica's failures", "", (0.0, 1.0, 0.01), |c| c.faulty, |c, x| c.faulty = x)
            .doc("Chance that an attempt on replica 1 fails, at a point drawn anywhere in its output (before the first token, during the reasoning, or mid-answer).")
            .show(Show::Percent(0)),
        P::real("hedge-after", "Hedge after", "× expected", (1.0, 10.0, 0.1), |c| c.hedge_after, |c, x| c.hedge_after = x)
            .doc("Hedging sends a duplicate once no visible token has come after this multiple of the time the request's effort should take to reach one (known at dispatch)."),
        P::choice("hedge-until", "Hedge races until", HedgeUntil::options, |c| c.hedge_until.name(), |c, x| {
            if let Some(h) = HedgeUntil::from_name(x) {
                c.hedge_until = h;
            }
        })
        .doc("When a hedge's losing copy stops: at the first visible token, or when one copy has finished the answer (the classic hedge, fired when the answer is late).")
        .advanced(),
        P::whole("pool", "High-effort pool", "replicas", (1, 15, 1), |c| c.pool.into(), |c, x| c.pool = narrow(x))
            .doc("Replicas kept for high effort when routing uses a separate pool (the last ones of the pool)."),
        P::whole("low", "Low effort", "tokens", (0, 32_768, 16), |c| c.low.into(), |c, x| c.low = narrow(x))
            .doc("Hidden reasoning tokens of a low-effort request (a reasoning budget such as thinking.budget_tokens).")
            .advanced(),
        P::whole("medium", "Medium effort", "tokens", (0, 32_768, 16), |c| c.medium.into(), |c, x| c.medium = narrow(x))
            .doc("Hidden reasoning tokens of a medium-effort request.")
            .advanced(),
        P::whole("high", "High effort", "tokens", (0, 32_768, 16), |c| c.high.into(), |c, x| c.high = narrow(x))
            .doc("Hidden reasoning tokens of a high-effort request.")
            .advanced(),
        P::real("medium-share", "Medium-effort share", "", (0.0, 1.0, 0.05), |c| c.medium_share, |c, x| c.medium_share = x)
            .doc("Share of conversations at medium effort.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("high-share", "High-effort share", "", (0.0, 1.0, 0.05), |c| c.high_share, |c, x| c.high_share = x)
            .doc("Share of conversations at high effort; the rest are low.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("turns", "Turns", "per conversation", (1.0, 20.0, 0.5), |c| c.turns, |c, x| c.turns = x)
            .doc("Mean turns of a conversation (geometric); each turn's prompt is the last one, its answer and a new message.")
            .advanced(),
        P::real("think", "Between turns", "s", (0.0, 120.0, 0.5), |c| c.think, |c, x| c.think = x)
            .doc("Mean seconds between an answer and the user's next turn (exponential).")
            .advanced(),
        P::whole("replicas", "Replicas", "", (2, 16, 1), |c| c.replicas.into(), |c, x| c.replicas = narrow(x))
            .doc("Model replicas behind the gateway; replica 1 is the faulty one, replica 2 the slow one.")
            .advanced(),
        P::whole("slots", "Slots per replica", "", (1, 64, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Attempts one replica runs at once; the rest wait in its queue.")
            .advanced(),
        P::whole("prompt", "First prompt", "tokens", (0, 32_768, 100), |c| c.prompt.into(), |c, x| c.prompt = narrow(x))
            .doc("Tokens of a conversation's first prompt: system prompt, tools and the first message.")
            .advanced(),
        P::whole("output", "Visible answer", "tokens", (1, 8_192, 10), |c| c.output.into(), |c, x| c.output = narrow(x))
            .doc("Mean tokens of a visible answer (gamma, CV 0.5).")
            .advanced(),
        P::real("prefill", "Prefill speed", "tok/s", (1000.0, 200_000.0, 1000.0), |c| c.prefill, |c, x| c.prefill = x)
            .doc("Prompt tokens a replica prefills per second, shared first come first served.")
            .advanced(),
        P::real("tpot", "Time per token", "ms", (1.0, 200.0, 1.0), |c| c.tpot, |c, x| c.tpot = x)
            .doc("Milliseconds per token of one attempt, hidden or visible, on a healthy replica.")
            .advanced(),
        P::real("fail", "Healthy replicas' failures", "", (0.0, 1.0, 0.005), |c| c.fail, |c, x| c.fail = x)
            .doc("Chance that an attempt on any other replica fails.")
            .show(Show::Percent(1))
            .advanced(),
        P::real("slow", "Slow replica", "×", (1.0, 20.0, 0.5), |c| c.slow, |c, x| c.slow = x)
            .doc("How many times slower replica 2 produces tokens; 1 makes it healthy.")
            .advanced(),
        P::whole("attempts", "Attempts", "per request", (1, 8, 1), |c| c.attempts.into(), |c, x| c.attempts = narrow(x))
            .doc("Most attempts one request makes: the first, then retries, hedges and resumes.")
            .advanced(),
        P::whole("cache", "Prefix cache", "conversations", (0, 4096, 1), |c| c.cache.into(), |c, x| c.cache = narrow(x))
            .doc("Conversation prefixes one replica's cache holds, for one effort each; the least recently used goes first.")
            .advanced(),
        P::whole("seconds", "Seconds of arrivals", "s", (30, 1800, 30), |c| c.seconds.into(), |c, x| c.seconds = narrow(x))
            .doc("Seconds during which conversations start; the run then lets them finish.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    /// The effort shares must leave room for low effort, and a separate pool
    /// must leave at least one replica for everything else.
    fn cross_check(&self) -> Result<(), ParamError> {
        if self.medium_share + self.high_share > 1.0 + 1e-9 {
            return Err(ParamError {
                key: "high-share",
                given: alloc::format!("{}", self.high_share),
                problem: Problem::Invalid(alloc::format!(
                    "medium and high effort together take {:.0}% of the conversations; at most 100%",
                    100.0 * (self.medium_share + self.high_share)
                )),
            });
        }
        if self.route == Route::Pool && self.pool >= self.replicas {
            return Err(ParamError {
                key: "pool",
                given: alloc::format!("{}", self.pool),
                problem: Problem::Invalid(alloc::format!(
                    "a high-effort pool of {} leaves none of the {} replicas for the other requests",
                    self.pool, self.replicas
                )),
            });
        }
        Ok(())
    }
}
