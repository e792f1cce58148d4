//! Selection rules: which replica gets the next request.
//!
//! Every rule implements [`Router`] in a file of its own and receives one
//! [`RouteContext`] (the request, the replicas as they are right now, the time), so
//! a new input never changes every signature. Rules return `Option<Decision>`:
//! `None` only when there is no replica. Each [`Decision`] carries a [`Reason`]
//! the UI can show. Rules own their tie-break random stream, seeded once at
//! construction, so all rules replay the very same trace. [`RuleKind`] is the one
//! registry the CLI, the tests and the web page list rules from.

mod least_kv;
mod least_outstanding;
mod power_of_two;
mod prefix_aware;
mod random;
mod reason;
mod registry;
mod round_robin;

pub use least_kv::LeastKv;
pub use least_outstanding::LeastOutstanding;
pub use power_of_two::PowerOfTwo;
pub use prefix_aware::{PrefixAware, PrefixAwareParams};
pub use random::Random;
pub use reason::Reason;
pub use registry::{AnyRouter, RuleKind};
pub use round_robin::RoundRobin;

use crate::engine::Replica;
use crate::rng::Rng;
use crate::time::Tick;
use crate::workload::Request;

/// Everything a rule may look at for one decision.
#[derive(Clone, Copy, Debug)]
pub struct RouteContext<'a> {
    /// The current tick.
    pub now: Tick,
    /// The request to place.
    pub request: &'a Request,
    /// Tokens per hash block of the request's `blocks`.
    pub block_tokens: u32,
    /// Every replica, in index order, as it is at this moment.
    pub replicas: &'a [Replica],
}

/// Where a request goes, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    /// Index of the chosen replica.
    pub replica: u32,
    /// Why the rule chose it.
    pub reason: Reason,
}

/// A selection rule.
pub trait Router {
    /// Choose a replica for `ctx.request`; `None` only if there are no replicas.
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision>;
}

/// Index of the smallest `key` among `candidates`, ties broken uniformly at random
/// with `rng` (reservoir sampling over the tied set, one draw per tie).
pub(crate) fn argmin_random_tie<K: Ord + Copy>(
    candidates: impl Iterator<Item = (usize, K)>,
    rng: &mut Rng,
) -> Option<(usize, K)> {
    let mut best: Option<(usize, K)> = None;
    let mut ties = 0u32;
    for (i, k) in candidates {
        match best {
            None => {
                best = Some((i, k));
                ties = 1;
            }
            Some((_, bk)) if k < bk => {
                best = Some((i, k));
                ties = 1;
            }
            Some((_, bk)) if k == bk => {
                ties += 1;
                if rng.below(ties) == 0 {
                    best = Some((i, k));
                }
            }
            _ => {}
        }
    }
    best
}
