//! Power of two choices: sample two distinct replicas, keep the less loaded
//! (Azar, Broder, Karlin & Upfal 1994; Mitzenmacher 1996; §4.1).

use super::{Decision, Reason, RouteContext, Router};
use crate::rng::Rng;

/// Lighter of two distinct random replicas; on a tie, the first sampled.
#[derive(Clone, Debug)]
pub struct PowerOfTwo {
    rng: Rng,
}

impl PowerOfTwo {
    /// A two-choices router sampling with `rng`.
    pub fn new(rng: Rng) -> PowerOfTwo {
        PowerOfTwo { rng }
    }
}

impl Router for PowerOfTwo {
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision> {
        let n = ctx.replicas.len();
        match n {
            0 => None,
            1 => Some(Decision {
                replica: 0,
                reason: Reason::LeastLoaded {
                    load: ctx.replicas[0].outstanding(),
                },
            }),
            _ => {
                let a = self.rng.index(n);
                // Draw from the n - 1 others so the pair is always distinct.
                let mut b = self.rng.index(n - 1);
                if b >= a {
                    b += 1;
                }
                let (la, lb) = (ctx.replicas[a].outstanding(), ctx.replicas[b].outstanding());
                let (pick, other, load, other_load) = if lb < la {
                    (b, a, lb, la)
                } else {
                    (a, b, la, lb)
                };
                Some(Decision {
                    replica: pick as u32,
                    reason: Reason::TwoChoices {
                        other: other as u32,
                        load,
                        other_load,
                    },
                })
            }
        }
    }
}
