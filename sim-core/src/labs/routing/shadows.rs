//! Counterfactual decisions: what every other rule would have picked for the
//! same request, on the same replicas, at the same moment.
//!
//! Each other rule runs as a *shadow*: it is asked with [`Router::peek`] (so its
//! own choice leaves no trace), then told where the request really went
//! ([`Router::observe`]), so rules with history (a rotation, a router-side tree)
//! stay in step with the run being explained. Shadows draw from their own
//! streams, so asking them never moves the real run's randomness.

use alloc::vec::Vec;

use super::outcome::Alternative;
use super::Config;
use crate::choice::Choice;
use crate::engine::Replica;
use crate::rng::{stream, Rng};
use crate::routing::{AnyRouter, Chooser, RouteContext, Router, RuleKind, Ties};

/// Offset of the shadows' streams from the rules' own tie-break streams.
const SHADOW_STREAMS: u64 = 1_000;

/// Every rule but the one being run, as shadows.
pub(super) struct Shadows {
    routers: Vec<(RuleKind, AnyRouter, Rng)>,
}

impl Shadows {
    /// Shadows of every registered rule other than `rule`.
    pub(super) fn new(config: &Config, rule: RuleKind) -> Shadows {
        Shadows {
            routers: RuleKind::ALL
                .iter()
                .filter(|&&k| k != rule)
                .map(|&k| {
                    let rng = Rng::new(
                        config.seed,
                        stream::TIE_BREAKS + SHADOW_STREAMS + k.index() as u64,
                    );
                    (k, k.build(&config.rules), rng)
                })
                .collect(),
        }
    }

    /// Ask every shadow about this request, then tell each where it went.
    pub(super) fn consult(
        &mut self,
        ctx: &RouteContext<'_, Replica>,
        chosen: u32,
    ) -> Vec<Alternative> {
        let mut out = Vec::with_capacity(self.routers.len());
        for (rule, router, rng) in self.routers.iter_mut() {
            if let Some(decision) = router.peek(ctx, &mut Chooser::new(rng, Ties::Random)) {
                out.push(Alternative {
                    rule: *rule,
                    decision,
                });
            }
            router.observe(ctx, chosen);
        }
        out
    }
}
