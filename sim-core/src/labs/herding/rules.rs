//! The four rules of the herding lab. They are not four algorithms but the four
//! combinations of two fixes applied to least-outstanding on a stale snapshot:
//! counting the router's own dispatches since its last scrape, and sampling two
//! random replicas instead of scanning all of them (§5.6, fixes 1 and 2).

use serde::{Deserialize, Serialize};

use crate::rng::Rng;

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
    pub const ALL: [HerdingRule; 4] = [
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
        HerdingRule::ALL.into_iter().find(|r| r.name() == name)
    }

    fn counts_own(self) -> bool {
        matches!(self, HerdingRule::OwnDispatches | HerdingRule::Both)
    }

    fn samples_two(self) -> bool {
        matches!(self, HerdingRule::TwoChoices | HerdingRule::Both)
    }

    /// Pick a replica given the router's `snapshot` and its `own` dispatches since
    /// that snapshot; randomness from `rng`. `snapshot` must not be empty.
    pub fn choose(self, snapshot: &[u32], own: &[u32], rng: &mut Rng) -> usize {
        let view = |i: usize| snapshot[i] + if self.counts_own() { own[i] } else { 0 };
        let n = snapshot.len();
        if self.samples_two() && n >= 2 {
            // Always three draws per decision (pair + coin), tie or not: both
            // two-choice rules then sample the very same pairs for the same
            // arrivals (common random numbers), so their difference is the
            // correction alone, not a different draw.
            let a = rng.index(n);
            let mut b = rng.index(n - 1);
            if b >= a {
                b += 1;
            }
            let coin = rng.below(2) == 0;
            return match view(a).cmp(&view(b)) {
                core::cmp::Ordering::Less => a,
                core::cmp::Ordering::Greater => b,
                core::cmp::Ordering::Equal if coin => a,
                core::cmp::Ordering::Equal => b,
            };
        }
        crate::routing::argmin_random_tie((0..n).map(|i| (i, view(i))), rng).map_or(0, |(i, _)| i)
    }
}
