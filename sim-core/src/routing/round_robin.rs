//! Round robin: replicas in a fixed rotation. Equal counts, blind to work (§4.1).

use super::{Chooser, Rule, Decision, ReplicaState, Reason, RouteContext, Router, HasRules, Rows};

/// Rotation starting at replica 0.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    next: usize,
}

impl Router for RoundRobin {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        _choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let n = ctx.replicas.len();
        if n == 0 {
            return None;
        }
        let replica = self.next % n;
        self.next = (replica + 1) % n;
        Some(Decision {
            replica: replica as u32,
            reason: Reason::RoundRobin,
        })
    }

    fn observe<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>, _chosen: u32) {
        // The rotation moves on with every request, wherever it went.
        let n = ctx.replicas.len().max(1);
        self.next = (self.next % n + 1) % n;
    }
}

impl Rule for RoundRobin {
    const NAME: &'static str = "round-robin";
    const TITLE: &'static str = "Round robin";
    const SIGNAL: &'static str = "Reads nothing but its own position: replicas take turns.";
    type Settings = ();
    fn build(_settings: &()) -> Self {
        RoundRobin::default()
    }
}

impl<C: HasRules> Rows<C> for RoundRobin {}
