//! The evaluate lab's settings and their defaults.

use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};
use crate::routing::RuleKind;

/// What the page sets when a reader loads a trace: the Routing Lab's
/// engine for traces (eight replicas of sixteen slots, 8,192 prompt tokens
/// a prefill step, a 262,144-token prefix cache, a 50-tick objective), and
/// a window short enough for the bundled Mooncake excerpt (2,000 requests
/// over some 6,700 ticks at 100 ms a tick), and an outage early enough to
/// see the pool recover before the excerpt, sent 2.3 times faster while
/// the semantic cache absorbs 57% of it, runs out (near tick 2,900).
pub const TRACE_SETTINGS: &[(&str, &str)] = &[
    ("replicas", "8"),
    ("slots", "16"),
    ("prefill", "8192"),
    ("cache", "262144"),
    ("slo", "50"),
    // The outage moves first: the page applies these one by one, and a
    // shorter run must never end before the outage does.
    ("outage-at", "1200"),
    ("outage-for", "800"),
    ("warm", "1000"),
    ("measure", "5000"),
];

/// The evaluate lab's configuration; ranges are in [`Config::PARAMS`].
/// Times are in ticks, one engine iteration each, as in the Routing Lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// The rule the pool runs today (the control arm).
    pub current: RuleKind,
    /// The rule under test (the canary arm).
    pub candidate: RuleKind,
    /// Share of traffic (requests or sessions) the canary takes.
    pub canary: f64,
    /// New conversations per tick (Poisson, or gamma with `burstiness`).
    pub rate: f64,
    /// Gamma shape of the gaps between new conversations: 1 is Poisson,
    /// lower is burstier (vLLM's `--burstiness`; CV = 1/√shape).
    pub burstiness: f64,
    /// Mean turns of a conversation (geometric, at least one).
    pub turns: f64,
    /// Mean ticks between an answer and the user's next turn (exponential).
    pub think: f64,
    /// Shared system prompts (Zipf popularity, exponent 1).
    pub systems: u32,
    /// Tokens of each system prompt.
    pub system_tokens: u32,
    /// Mean tokens of a user message (gamma, CV 0.5).
    pub message: u32,
    /// Mean tokens of an answer (gamma, CV 0.5).
    pub output: u32,
    /// Replicas in the pool.
    pub replicas: u32,
    /// Batch slots per replica.
    pub slots: u32,
    /// Prompt tokens a prefill step computes.
    pub prefill: u32,
    /// Prefix-cache capacity per replica, in tokens (LRU).
    pub cache: u32,
    /// Ticks of traffic before measuring (the warm-up).
    pub warm: u32,
    /// Ticks measured after the warm-up.
    pub measure: u32,
    /// TTFT objective, in ticks: a request within it counts toward goodput.
    pub slo: u32,
    /// Load points of the open- and closed-loop curves.
    pub points: u32,
    /// Highest load of the curves, as a multiple of `rate`.
    pub peak: f64,
    /// Semantic cache: the share of requests a perfect match would absorb.
    pub hits: f64,
    /// Semantic cache: the similarity threshold (APIM's score-threshold;
    /// lower is stricter).
    pub threshold: f64,
    /// Semantic cache: the tick its outage starts (0: no outage).
    pub outage_at: u32,
    /// Semantic cache: ticks the outage lasts.
    pub outage_for: u32,
    /// Rate limit after the lookup, as a multiple of the rate the pool
    /// sees while the cache works.
    pub limit: f64,
    /// Seed of every random stream.
    pub seed: u64,
}

/// The defaults tell the section's story in one run: eight replicas of
/// eight slots, 0.07 new conversations a tick of four turns on average
/// (about 0.28 requests a tick, some 60% of the 0.45 the pool carries at
/// most), each starting with one of four 512-token system prompts, and a
/// prefix cache of 16,384 tokens per replica, so a conversation's own
/// history is most of what a cache can save; prefix-aware routing tested
/// against least outstanding with a 5% canary, as §15 puts it. The
/// semantic cache would answer 70% of requests with a perfect match (57%
/// at the 0.05 threshold), so while it is down the pool is offered more
/// than twice what it normally sees.
impl Default for Config {
    #[inline(never)]
    fn default() -> Self {
        Config {
            current: RuleKind::LeastOutstanding,
            candidate: RuleKind::PrefixAware,
            canary: 0.05,
            rate: 0.07,
            burstiness: 1.0,
            turns: 4.0,
            think: 200.0,
            systems: 4,
            system_tokens: 512,
            message: 150,
            output: 100,
            replicas: 8,
            slots: 8,
            prefill: 192,
            cache: 16384,
            warm: 4000,
            measure: 16000,
            slo: 60,
            points: 8,
            peak: 2.5,
            hits: 0.7,
            threshold: 0.05,
            outage_at: 8000,
            outage_for: 3000,
            limit: 1.2,
            seed: 1,
        }
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

fn set_rule(slot: &mut RuleKind, x: &str) {
    if let Some(r) = RuleKind::from_name(x) {
        *slot = r;
    }
}

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::choice("current", "Current rule", RuleKind::options, |c| c.current.name(), |c, x| set_rule(&mut c.current, x))
            .doc("The rule the pool runs today: the control arm."),
        P::choice("candidate", "New rule", RuleKind::options, |c| c.candidate.name(), |c, x| set_rule(&mut c.candidate, x))
            .doc("The rule under test: the canary arm."),
        P::real("canary", "Canary share", "", (0.01, 0.5, 0.01), |c| c.canary, |c, x| c.canary = x)
            .doc("Share of requests (or of conversations, per session) the new rule takes; split pools always go half and half.")
            .show(Show::Percent(0)),
        P::real("rate", "Conversations", "per tick", (0.005, 0.3, 0.005), |c| c.rate, |c, x| c.rate = x)
            .doc("New conversations per tick, open loop."),
        P::real("hits", "Semantic cache hits", "", (0.0, 0.9, 0.05), |c| c.hits, |c, x| c.hits = x)
            .doc("Share of requests a semantic cache in front of the pool would answer with a perfect match; 0 removes the cache.")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("outage-for", "Cache outage", "ticks", (0, 20_000, 500), |c| c.outage_for.into(), |c, x| c.outage_for = narrow(x))
            .doc("Ticks the semantic cache is down; 0 keeps it up.")
            .advanced(),
        P::real("limit", "Rate limit", "× normal", (1.0, 3.0, 0.1), |c| c.limit, |c, x| c.limit = x)
            .doc("The rate limit placed after the cache lookup, as a multiple of what reaches the pool while the cache works.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
        P::real("burstiness", "Burstiness", "", (0.1, 10.0, 0.1), |c| c.burstiness, |c, x| c.burstiness = x)
            .doc("Gamma shape of the gaps between new conversations (vLLM's --burstiness): 1 is Poisson, 0.1 a stress burst.")
            .advanced(),
        P::real("turns", "Turns", "per conversation", (1.0, 10.0, 0.5), |c| c.turns, |c, x| c.turns = x)
            .doc("Mean turns of a conversation (geometric); each turn's prompt holds the whole conversation so far.")
            .advanced(),
        P::real("think", "Between turns", "ticks", (0.0, 5000.0, 10.0), |c| c.think, |c, x| c.think = x)
            .doc("Mean ticks between an answer and the next turn (exponential); in the closed loop, a client's pause.")
            .advanced(),
        P::whole("systems", "System prompts", "", (1, 64, 1), |c| c.systems.into(), |c, x| c.systems = narrow(x))
            .doc("Distinct system prompts conversations start with (Zipf popularity).")
            .advanced(),
        P::whole("system-tokens", "System prompt", "tokens", (0, 8192, 64), |c| c.system_tokens.into(), |c, x| c.system_tokens = narrow(x))
            .doc("Tokens of each system prompt.")
            .advanced(),
        P::whole("message", "User message", "tokens", (1, 4096, 10), |c| c.message.into(), |c, x| c.message = narrow(x))
            .doc("Mean tokens of a user message.")
            .advanced(),
        P::whole("output", "Answer", "tokens", (1, 2048, 10), |c| c.output.into(), |c, x| c.output = narrow(x))
            .doc("Mean tokens of an answer.")
            .advanced(),
        P::whole("replicas", "Replicas", "", (2, 32, 1), |c| c.replicas.into(), |c, x| c.replicas = narrow(x))
            .doc("Replicas in the pool.")
            .advanced(),
        P::whole("slots", "Batch slots", "per replica", (1, 64, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Sequences one replica runs at once.")
            .advanced(),
        P::whole("prefill", "Prefill step", "tokens", (16, 8192, 16), |c| c.prefill.into(), |c, x| c.prefill = narrow(x))
            .doc("Prompt tokens one prefill step computes.")
            .advanced(),
        P::whole("cache", "Prefix cache", "tokens", (0, 1_000_000, 1024), |c| c.cache.into(), |c, x| c.cache = narrow(x))
            .doc("Prefix-cache capacity of one replica, least recently used evicted first.")
            .advanced(),
        P::whole("warm", "Warm-up", "ticks", (0, 50_000, 500), |c| c.warm.into(), |c, x| c.warm = narrow(x))
            .doc("Ticks of traffic before measuring begins.")
            .advanced(),
        P::whole("measure", "Measured", "ticks", (1000, 100_000, 1000), |c| c.measure.into(), |c, x| c.measure = narrow(x))
            .doc("Ticks measured after the warm-up.")
            .advanced(),
        P::whole("slo", "TTFT objective", "ticks", (1, 10_000, 5), |c| c.slo.into(), |c, x| c.slo = narrow(x))
            .doc("A request whose first token comes within this many ticks counts toward goodput.")
            .advanced(),
        P::whole("points", "Load points", "", (3, 12, 1), |c| c.points.into(), |c, x| c.points = narrow(x))
            .doc("Loads tried for the open- and closed-loop curves.")
            .advanced(),
        P::real("peak", "Highest load", "× rate", (1.0, 4.0, 0.1), |c| c.peak, |c, x| c.peak = x)
            .doc("The highest load of the curves, as a multiple of the conversation rate; the lowest is a fifth of it.")
            .advanced(),
        P::real("threshold", "Similarity threshold", "", (0.0, 1.0, 0.01), |c| c.threshold, |c, x| c.threshold = x)
            .doc("How far a cached question may be from the new one (lower is stricter; 0.05 is the usual start, above 0.2 mismatches).")
            .advanced(),
        P::whole("outage-at", "Outage starts", "tick", (0, 100_000, 500), |c| c.outage_at.into(), |c, x| c.outage_at = narrow(x))
            .doc("The tick the semantic cache goes down.")
            .advanced(),
    ];

    /// The outage must fall inside the run, and the candidate must differ
    /// from the current rule.
    fn cross_check(&self) -> Result<(), ParamError> {
        if self.candidate == self.current {
            return Err(ParamError {
                key: "candidate",
                given: self.candidate.name().into(),
                problem: Problem::Invalid(
                    "the new rule is the current one: there is nothing to compare".into(),
                ),
            });
        }
        let end = self.warm + self.measure;
        if self.outage_for > 0 && self.outage_at + self.outage_for > end {
            return Err(ParamError {
                key: "outage-for",
                given: alloc::format!("{}", self.outage_for),
                problem: Problem::Invalid(alloc::format!(
                    "the outage ends at tick {}, after the run's {} ticks",
                    self.outage_at + self.outage_for,
                    end
                )),
            });
        }
        Ok(())
    }
}
