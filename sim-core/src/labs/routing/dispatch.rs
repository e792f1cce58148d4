//! The tick loop's dispatch phase: the arrivals due at this tick are routed
//! in arrival order, each by its gateway's router over the replicas as the
//! previous one left them, and join the picked replica's queue.

use super::outcome::DecisionDetail;
use super::tick::{Routed, TickLoop};
use crate::routing::{Chooser, RouteContext, Router, Ties};

impl TickLoop<'_> {
    /// Route every arrival due now. A request whose router picks no replica
    /// stays unrouted, and so do those behind it, until the next pass. With
    /// counterfactuals on, the other rules are asked where they would have
    /// sent it; with an observer, the decision is kept for it with the
    /// pick's load and the lightest replica's.
    pub(super) fn route(&mut self) {
        let config = self.config;
        let workload = self.workload;
        let reqs = &workload.requests;
        let now = self.now;
        let gateways = self.routers.len();
        while let Some(next) = self.arrivals.due(now) {
            let ctx = RouteContext {
                now,
                request: &reqs[next],
                block_tokens: workload.block_tokens,
                kv_block_tokens: config.kv_block_tokens,
                replicas: &self.replicas,
            };
            let gateway = if gateways == 1 {
                0
            } else if config.gateway_random {
                self.spread.index(gateways)
            } else {
                next % gateways
            };
            let router = &mut self.routers[gateway];
            let Some(decision) =
                router.select(&ctx, &mut Chooser::new(&mut self.rng, Ties::Random))
            else {
                break;
            };
            if let Some(shadows) = self.shadows.as_mut() {
                self.counterfactuals.push(DecisionDetail {
                    request: next as u32,
                    tick: now.0,
                    prompt_tokens: reqs[next].prompt_tokens,
                    decision,
                    others: shadows.consult(&ctx, decision.replica),
                });
            }
            if self.watching {
                self.routed_now.push(Routed {
                    request: next as u32,
                    decision,
                    load: self.replicas[decision.replica as usize].outstanding(),
                    lightest: self
                        .replicas
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (r.outstanding(), i as u32))
                        .min()
                        .map_or((0, 0), |(load, i)| (i, load)),
                });
            }
            self.replicas[decision.replica as usize].enqueue(next as u32, reqs[next].prompt_tokens);
            self.decisions.push(decision);
            self.arrivals.take(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::routing::Config;
    use crate::labs::work::Meter;
    use crate::routing::RuleKind;
    use crate::workload::generator;

    /// At a tick, every request due is routed (and joins its replica's
    /// queue) and none later; a second pass at the same tick finds nothing
    /// left to route.
    #[test]
    fn route_sends_exactly_the_arrivals_due() {
        let config = Config {
            rate: 2.0,
            ..Config::default()
        };
        let workload = generator::generate(&config.generator(), config.seed);
        let meter = Meter::unlimited();
        let rule = RuleKind::LeastOutstanding;
        let mut run = TickLoop::new(&config, &workload, rule, &meter, true, false);
        let at = workload.requests[3].arrival;
        run.now = at;
        run.route();
        let due = workload.requests.iter().filter(|r| r.arrival <= at).count();
        assert!(due >= 4);
        assert_eq!(run.decisions.len(), due);
        let queued: u32 = run.replicas.iter().map(|r| r.outstanding()).sum();
        assert_eq!(queued as usize, due);
        // Least outstanding over an empty pool spreads them one by one.
        let most = run.replicas.iter().map(|r| r.outstanding()).max();
        assert_eq!(most, Some(due.div_ceil(run.replicas.len()) as u32));
        assert_eq!(run.routed_now.len(), due, "the observer sees each one");
        run.route();
        assert_eq!(run.decisions.len(), due);
    }
}
