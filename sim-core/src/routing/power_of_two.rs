//! Power of two choices: sample two distinct replicas, keep the less loaded
//! (Azar, Broder, Karlin & Upfal 1994; Mitzenmacher 1996; §4.1).

use super::{Chooser, Rule, Decision, ReplicaState, Reason, RouteContext, Router};

/// Lighter of two distinct random replicas; on a tie, the first sampled (which
/// is itself a uniform draw, so no extra coin is needed).
#[derive(Clone, Debug, Default)]
pub struct PowerOfTwo;

impl Router for PowerOfTwo {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        match ctx.replicas.len() {
            0 => None,
            1 => Some(Decision {
                replica: 0,
                reason: Reason::LeastLoaded {
                    load: ctx.replicas[0].outstanding(),
                },
            }),
            n => {
                // Exactly two draws per decision, tie or not: two labs (or two
                // routers) reading the same stream then sample the same pairs.
                let (a, b) = choose.pair(n);
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

impl Rule for PowerOfTwo {
    const NAME: &'static str = "power-of-two";
    const TITLE: &'static str = "Power of two choices";
    const SIGNAL: &'static str = "Samples two replicas at random and keeps the one with fewer outstanding requests.";
    type Settings = ();
    fn build(_settings: &()) -> Self {
        PowerOfTwo
    }
}
