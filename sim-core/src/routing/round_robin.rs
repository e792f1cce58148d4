//! Round robin: replicas in a fixed rotation. Equal counts, blind to work (§4.1).

use super::{Decision, Reason, RouteContext, Router};

/// Rotation starting at replica 0.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    next: usize,
}

impl RoundRobin {
    /// A rotation that starts at replica 0.
    pub fn new() -> RoundRobin {
        RoundRobin::default()
    }
}

impl Router for RoundRobin {
    fn select(&mut self, ctx: &RouteContext<'_>) -> Option<Decision> {
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
}
