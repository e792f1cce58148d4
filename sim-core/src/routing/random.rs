//! Random: a uniform draw, reading no signal. The baseline every rule must beat.

use super::{Chooser, Rule, Decision, ReplicaState, Reason, RouteContext, Router, HasRules, Rows};

/// Uniformly random replica.
#[derive(Clone, Debug, Default)]
pub struct Random;

impl Router for Random {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        if ctx.replicas.is_empty() {
            return None;
        }
        Some(Decision {
            replica: choose.index(ctx.replicas.len()) as u32,
            reason: Reason::Random,
        })
    }
}

impl Rule for Random {
    const NAME: &'static str = "random";
    const TITLE: &'static str = "Random";
    const SIGNAL: &'static str = "Reads nothing: every replica is equally likely.";
    type Settings = ();
    fn build(_settings: &()) -> Self {
        Random
    }
}

impl<C: HasRules> Rows<C> for Random {}
