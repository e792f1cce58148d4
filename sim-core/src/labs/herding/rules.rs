//! The four rules of the herding lab. They are not four algorithms but the four
//! combinations of two fixes applied to least-outstanding on a stale snapshot:
//! counting the router's own dispatches since its last scrape, and sampling two
//! random replicas instead of scanning all of them (§5.6, fixes 1 and 2). The
//! choosing itself is done by the shared selection rules
//! ([`crate::routing::LeastOutstanding`], [`crate::routing::PowerOfTwo`]) over a
//! [`StaleView`] of each replica.

use crate::routing::{ReplicaState, RuleKind};
use crate::workload::Request;

crate::choices! {
    /// A selection rule of the herding lab.
    pub enum HerdingRule {
        /// Least outstanding, trusting the stale snapshot.
        Stale = (
            "stale-least-outstanding",
            "Least outstanding, stale view",
            "The lowest count in the last snapshot; every router reading it agrees."
        ),
        /// Least outstanding on the snapshot plus my own dispatches since it.
        OwnDispatches = (
            "own-dispatches",
            "+ my own dispatches",
            "The snapshot plus what this router sent since it; blind to the other routers."
        ),
        /// Lighter of two random replicas on the stale snapshot.
        TwoChoices = (
            "two-choices",
            "Two random choices",
            "The lighter of two random replicas in the snapshot; no correction."
        ),
        /// Two random replicas, each read as snapshot plus my own dispatches.
        Both = (
            "both",
            "Both fixes",
            "Two random replicas, each read as snapshot plus this router's own sends."
        ),
    }
}

impl HerdingRule {
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
