//! Least outstanding requests: a full scan for the fewest waiting + running (§4.1).
//! Counting queued work is what makes it robust where a KV gauge is not (§4.2).

use super::{argmin_random_tie, Decision, Reason, RouteContext, Router};
use crate::rng::Rng;

/// Fewest outstanding requests; ties broken at random.
#[derive(Clone, Debug)]
pub struct LeastOutstanding {
    rng: Rng,
}

impl LeastOutstanding {
    /// A least-outstanding router breaking ties with `rng`.
    pub fn new(rng: Rng) -> LeastOutstanding {
        LeastOutstanding { rng }
    }
}

impl Router for LeastOutstanding {
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision> {
        let loads = ctx.replicas.iter().map(|r| r.outstanding()).enumerate();
        let (i, load) = argmin_random_tie(loads, &mut self.rng)?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::LeastLoaded { load },
        })
    }
}
