//! The four rules of the herding lab. They are not four algorithms but the four
//! combinations of two fixes applied to least-outstanding on a stale snapshot:
//! counting the router's own dispatches since its last scrape, and sampling two
//! random replicas instead of scanning all of them (§5.6, fixes 1 and 2). The
//! choosing itself is done by the shared selection rules
//! ([`crate::routing::LeastOutstanding`], [`crate::routing::PowerOfTwo`]) over a
//! [`StaleView`] of each replica.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::params::Opt;
use crate::routing::{ReplicaState, RuleKind};
use crate::workload::Request;

/// A selection rule of the herding lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HerdingRule {
    /// Least outstanding, trusting the stale snapshot.
    #[serde(rename = "stale-least-outstanding")]
    Stale,
    /// Least outstanding on the snapshot plus my own dispatches since it.
    OwnDispatches,
    /// Lighter of two random replicas on the stale snapshot.
    TwoChoices,
    /// Two random replicas, each read as snapshot plus my own dispatches.
    Both,
}

impl HerdingRule {
    /// All rules, in table order.
    pub const ALL: &'static [HerdingRule] = &[
        HerdingRule::Stale,
        HerdingRule::OwnDispatches,
        HerdingRule::TwoChoices,
        HerdingRule::Both,
    ];

    /// Name used by the CLI, JSON and URLs.
    pub fn name(self) -> &'static str {
        match self {
            HerdingRule::Stale => "stale-least-outstanding",
            HerdingRule::OwnDispatches => "own-dispatches",
            HerdingRule::TwoChoices => "two-choices",
            HerdingRule::Both => "both",
        }
    }

    /// Human title.
    pub fn title(self) -> &'static str {
        match self {
            HerdingRule::Stale => "Least outstanding, stale view",
            HerdingRule::OwnDispatches => "+ my own dispatches",
            HerdingRule::TwoChoices => "Two random choices",
            HerdingRule::Both => "Both fixes",
        }
    }

    /// One line on what the rule reads.
    pub fn signal(self) -> &'static str {
        match self {
            HerdingRule::Stale => {
                "The lowest count in the last snapshot; every router reading it agrees."
            }
            HerdingRule::OwnDispatches => {
                "The snapshot plus what this router sent since it; blind to the other routers."
            }
            HerdingRule::TwoChoices => {
                "The lighter of two random replicas in the snapshot; no correction."
            }
            HerdingRule::Both => {
                "Two random replicas, each read as snapshot plus this router's own sends."
            }
        }
    }

    /// Look a rule up by name.
    pub fn from_name(name: &str) -> Option<HerdingRule> {
        HerdingRule::ALL.iter().copied().find(|r| r.name() == name)
    }

    /// Every rule as a picker option.
    pub fn options() -> Vec<Opt> {
        HerdingRule::ALL
            .iter()
            .map(|r| Opt {
                name: r.name(),
                title: r.title(),
                doc: r.signal(),
            })
            .collect()
    }

    /// The shared selection rule this combination runs.
    pub fn rule(self) -> RuleKind {
        match self {
            HerdingRule::Stale | HerdingRule::OwnDispatches => RuleKind::LeastOutstanding,
            HerdingRule::TwoChoices | HerdingRule::Both => RuleKind::PowerOfTwo,
        }
    }

    /// Whether the router adds its own dispatches since the snapshot.
    pub fn counts_own(self) -> bool {
        matches!(self, HerdingRule::OwnDispatches | HerdingRule::Both)
    }

    /// How a router applying this rule sees a replica: its count in the
    /// router's last snapshot, plus (when the rule counts them) what the router
    /// itself sent there since.
    pub fn view(self, snapshot: u32, own: u32) -> StaleView {
        StaleView {
            seen: snapshot + if self.counts_own() { own } else { 0 },
        }
    }
}

/// One replica as a herding router sees it. The herding model has no queue,
/// KV or cache: every request in flight counts as outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaleView {
    /// Outstanding requests as the router believes them to be.
    pub seen: u32,
}

impl ReplicaState for StaleView {
    fn outstanding(&self) -> u32 {
        self.seen
    }

    fn waiting(&self) -> u32 {
        self.seen
    }

    fn kv_used(&self) -> u32 {
        0
    }

    fn cached_tokens(&self, _request: &Request, _block_tokens: u32) -> u32 {
        0
    }
}
