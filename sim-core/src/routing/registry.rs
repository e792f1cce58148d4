//! The one list of selection rules. A new rule is one file plus one line here;
//! the CLI, the tests and the web page all iterate [`RuleKind::ALL`].

use serde::{Deserialize, Serialize};

use super::{
    Decision, LeastKv, LeastOutstanding, PowerOfTwo, PrefixAware, PrefixAwareParams, Random,
    RoundRobin, RouteContext, Router,
};
use crate::rng::{stream, Rng};

/// Every selection rule of the Routing Lab, in display order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    /// [`Random`].
    Random,
    /// [`RoundRobin`].
    RoundRobin,
    /// [`LeastOutstanding`].
    LeastOutstanding,
    /// [`PowerOfTwo`].
    PowerOfTwo,
    /// [`LeastKv`].
    LeastKv,
    /// [`PrefixAware`].
    PrefixAware,
}

impl RuleKind {
    /// All rules, in the order tables list them.
    pub const ALL: [RuleKind; 6] = [
        RuleKind::Random,
        RuleKind::RoundRobin,
        RuleKind::LeastOutstanding,
        RuleKind::PowerOfTwo,
        RuleKind::LeastKv,
        RuleKind::PrefixAware,
    ];

    /// The name used everywhere: CLI, JSON, URLs.
    pub fn name(self) -> &'static str {
        match self {
            RuleKind::Random => "random",
            RuleKind::RoundRobin => "round-robin",
            RuleKind::LeastOutstanding => "least-outstanding",
            RuleKind::PowerOfTwo => "power-of-two",
            RuleKind::LeastKv => "least-kv",
            RuleKind::PrefixAware => "prefix-aware",
        }
    }

    /// A human title for tables and pickers.
    pub fn title(self) -> &'static str {
        match self {
            RuleKind::Random => "Random",
            RuleKind::RoundRobin => "Round robin",
            RuleKind::LeastOutstanding => "Least outstanding",
            RuleKind::PowerOfTwo => "Power of two choices",
            RuleKind::LeastKv => "Least KV usage",
            RuleKind::PrefixAware => "Prefix-aware",
        }
    }

    /// One line on the signal the rule reads.
    pub fn signal(self) -> &'static str {
        match self {
            RuleKind::Random => "Reads nothing: every replica is equally likely.",
            RuleKind::RoundRobin => "Reads nothing but its own position: replicas take turns.",
            RuleKind::LeastOutstanding => {
                "Scans every replica for the fewest requests waiting or running."
            }
            RuleKind::PowerOfTwo => {
                "Samples two replicas at random and keeps the one with fewer outstanding requests."
            }
            RuleKind::LeastKv => {
                "Reads the KV blocks in use; queued requests hold none, so it cannot see queues."
            }
            RuleKind::PrefixAware => {
                "Follows the longest cached prefix unless load is imbalanced, then the least loaded."
            }
        }
    }

    /// Look a rule up by [`RuleKind::name`].
    pub fn from_name(name: &str) -> Option<RuleKind> {
        RuleKind::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Position in [`RuleKind::ALL`]; also selects the rule's tie-break stream.
    pub fn index(self) -> usize {
        RuleKind::ALL.iter().position(|&r| r == self).unwrap_or(0)
    }

    /// A fresh router of this kind for a run with `seed`.
    pub fn build(self, seed: u64, prefix: PrefixAwareParams) -> AnyRouter {
        let rng = Rng::new(seed, stream::TIE_BREAKS + self.index() as u64);
        match self {
            RuleKind::Random => AnyRouter::Random(Random::new(rng)),
            RuleKind::RoundRobin => AnyRouter::RoundRobin(RoundRobin::new()),
            RuleKind::LeastOutstanding => AnyRouter::LeastOutstanding(LeastOutstanding::new(rng)),
            RuleKind::PowerOfTwo => AnyRouter::PowerOfTwo(PowerOfTwo::new(rng)),
            RuleKind::LeastKv => AnyRouter::LeastKv(LeastKv::new(rng)),
            RuleKind::PrefixAware => AnyRouter::PrefixAware(PrefixAware::new(prefix, rng)),
        }
    }
}

/// Any rule, dispatched without boxing.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub enum AnyRouter {
    Random(Random),
    RoundRobin(RoundRobin),
    LeastOutstanding(LeastOutstanding),
    PowerOfTwo(PowerOfTwo),
    LeastKv(LeastKv),
    PrefixAware(PrefixAware),
}

impl Router for AnyRouter {
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision> {
        match self {
            AnyRouter::Random(r) => r.select(ctx),
            AnyRouter::RoundRobin(r) => r.select(ctx),
            AnyRouter::LeastOutstanding(r) => r.select(ctx),
            AnyRouter::PowerOfTwo(r) => r.select(ctx),
            AnyRouter::LeastKv(r) => r.select(ctx),
            AnyRouter::PrefixAware(r) => r.select(ctx),
        }
    }
}
