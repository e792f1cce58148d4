//! Power of two choices: sample two distinct replicas, keep the less loaded
//! (Azar, Broder, Karlin & Upfal 1994; Mitzenmacher 1996; §4.1).
//!
//! Which load is compared follows SGLang's gateway (`sgl-project/sglang`
//! commit `065f331f`, `sgl-model-gateway/src/policies/power_of_two.rs`): when
//! a load monitor reports tokens in flight for *both* sampled replicas, those
//! tokens are compared; if either report is missing, both fall back to
//! outstanding requests, so a token count is never weighed against a request
//! count. The lab's own engines have no monitor and always compare requests.

use super::{Chooser, Decision, ReplicaState, Reason, RouteContext, Router, Rule, HasRules, Rows};

/// Lighter of two distinct random replicas; on a tie, the first sampled (which
/// is itself a uniform draw, so no extra coin is needed — and what SGLang's
/// `load1 <= load2` does too).
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
                let (ra, rb) = (&ctx.replicas[a], &ctx.replicas[b]);
                // The lighter of the two keeps the request; the first drawn on a tie.
                let order = |la: u64, lb: u64| if lb < la { (b, a) } else { (a, b) };
                let (pick, reason) = match (ra.token_load(), rb.token_load()) {
                    (Some(ta), Some(tb)) => {
                        let (pick, other) = order(ta, tb);
                        let (tokens, other_tokens) = if pick == a { (ta, tb) } else { (tb, ta) };
                        let reason = Reason::TwoChoicesTokens {
                            other: other as u32,
                            tokens,
                            other_tokens,
                        };
                        (pick, reason)
                    }
                    _ => {
                        let (la, lb) = (ra.outstanding(), rb.outstanding());
                        let (pick, other) = order(la.into(), lb.into());
                        let (load, other_load) = if pick == a { (la, lb) } else { (lb, la) };
                        let reason = Reason::TwoChoices {
                            other: other as u32,
                            load,
                            other_load,
                        };
                        (pick, reason)
                    }
                };
                Some(Decision {
                    replica: pick as u32,
                    reason,
                })
            }
        }
    }
}

impl Rule for PowerOfTwo {
    const NAME: &'static str = "power-of-two";
    const TITLE: &'static str = "Power of two choices";
    const SIGNAL: &'static str = "Samples two replicas at random and keeps the one with fewer outstanding requests (or fewer tokens, when a monitor reports them for both).";
    type Settings = ();
    fn build(_settings: &()) -> Self {
        PowerOfTwo
    }
}

impl<C: HasRules> Rows<C> for PowerOfTwo {}
