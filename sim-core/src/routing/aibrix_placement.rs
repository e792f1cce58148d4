//! Placement first, then routing among the placed (AIBrix's model-adapter
//! controller and gateway, `pkg/controller/modeladapter/scheduling/
//! least_adapters.go`): the first time an adapter is asked for, the
//! controller places it on `copies` replicas, one at a time, each on the
//! replica with the fewest adapters placed so far (strictly fewer, so ties
//! go to the lowest index, as upstream's loop keeps the first pod it
//! finds). From then on the gateway sends the adapter's requests only to
//! those replicas, the one with the fewest outstanding requests (the
//! gateway's least-request strategy). A replica thus sees a bounded set of
//! adapters, and loads fall; the price is that a popular adapter's load is
//! confined to its copies.

use alloc::vec::Vec;

use super::{Chooser, Decision, Reason, ReplicaState, RouteContext, Router};

/// The placement-first rule and the controller's record of placements.
#[derive(Clone, Debug)]
pub struct AibrixPlacement {
    copies: u32,
    /// Replicas each adapter is placed on, by adapter id.
    placed: Vec<Vec<u32>>,
    /// Adapters placed on each replica.
    per_replica: Vec<u32>,
}

impl AibrixPlacement {
    /// A controller placing each adapter on `copies` replicas (at least 1).
    pub fn new(copies: u32) -> AibrixPlacement {
        AibrixPlacement {
            copies: copies.max(1),
            placed: Vec::new(),
            per_replica: Vec::new(),
        }
    }

    /// The replicas `adapter` is placed on (placing it first if need be).
    pub fn place(&mut self, adapter: u16, replicas: usize) -> &[u32] {
        if self.per_replica.len() < replicas {
            self.per_replica.resize(replicas, 0);
        }
        let a = usize::from(adapter);
        if self.placed.len() <= a {
            self.placed.resize(a + 1, Vec::new());
        }
        if self.placed[a].is_empty() {
            let copies = (self.copies as usize).min(replicas);
            for _ in 0..copies {
                let mut best: Option<(usize, u32)> = None;
                for (i, &n) in self.per_replica.iter().enumerate().take(replicas) {
                    if self.placed[a].contains(&(i as u32)) {
                        continue;
                    }
                    if best.is_none_or(|(_, m)| n < m) {
                        best = Some((i, n));
                    }
                }
                if let Some((i, _)) = best {
                    self.placed[a].push(i as u32);
                    self.per_replica[i] += 1;
                }
            }
        }
        &self.placed[a]
    }

    /// Adapters placed on each replica so far.
    pub fn per_replica(&self) -> &[u32] {
        &self.per_replica
    }
}

impl Router for AibrixPlacement {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let adapter = ctx.request.adapter;
        let loads = ctx.replicas.iter().map(|r| r.outstanding()).enumerate();
        if adapter == 0 {
            let (i, load) = choose.argmin(loads)?;
            return Some(Decision {
                replica: i as u32,
                reason: Reason::LeastLoaded { load },
            });
        }
        let on = self.place(adapter, ctx.replicas.len()).to_vec();
        let copies = on.len() as u32;
        let (i, load) = choose.argmin(loads.filter(|(i, _)| on.contains(&(*i as u32))))?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::Placed { copies, load },
        })
    }
}
