//! Residency-only LoRA affinity: send a request to a replica that already
//! holds its adapter (in a slot, or queued to load there), the least
//! loaded of them; only when no replica holds it, to the least loaded of
//! all, where it will load. No load guard: this is affinity without the
//! escape hatch, the case article §6.3 warns hot-spots on a popular
//! adapter, since residency is present or absent rather than a share of
//! the prompt.

use super::{Chooser, Decision, Reason, ReplicaState, RouteContext, Router};

/// The residency-only rule (no settings, no history).
#[derive(Clone, Copy, Debug, Default)]
pub struct LoraResidency;

/// Whether replica `r` holds `adapter`: in a slot, running, or waiting.
pub fn holds<S: ReplicaState>(r: &S, adapter: u16) -> bool {
    r.adapters().is_some_and(|v| {
        v.resident.contains(&adapter)
            || v.running.contains(&adapter)
            || v.waiting.contains(&adapter)
    })
}

impl Router for LoraResidency {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let adapter = ctx.request.adapter;
        let loads = ctx.replicas.iter().map(|r| r.outstanding()).enumerate();
        if adapter != 0 {
            let holders = loads
                .clone()
                .filter(|&(i, _)| holds(&ctx.replicas[i], adapter));
            if let Some((i, load)) = choose.argmin(holders) {
                return Some(Decision {
                    replica: i as u32,
                    reason: Reason::AdapterResident { load },
                });
            }
        }
        let (i, load) = choose.argmin(loads)?;
        Some(Decision {
            replica: i as u32,
            reason: if adapter == 0 {
                Reason::LeastLoaded { load }
            } else {
                Reason::AdapterAbsent { load }
            },
        })
    }
}
