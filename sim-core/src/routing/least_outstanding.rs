//! Least outstanding requests: a full scan for the fewest waiting + running (§4.1).
//! Counting queued work is what makes it robust where a KV gauge is not (§4.2).

use super::{Chooser, Rule, Decision, ReplicaState, Reason, RouteContext, Router, HasRules, Rows};

/// Fewest outstanding requests; ties broken by the chooser.
#[derive(Clone, Debug, Default)]
pub struct LeastOutstanding;

impl Router for LeastOutstanding {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let loads = ctx.replicas.iter().map(|r| r.outstanding()).enumerate();
        let (i, load) = choose.argmin(loads)?;
        Some(Decision {
            replica: i as u32,
            reason: Reason::LeastLoaded { load },
        })
    }
}

impl Rule for LeastOutstanding {
    const NAME: &'static str = "least-outstanding";
    const TITLE: &'static str = "Least outstanding";
    const SIGNAL: &'static str = "Scans every replica for the fewest requests waiting or running.";
    type Settings = ();
    fn build(_settings: &()) -> Self {
        LeastOutstanding
    }
}

impl<C: HasRules> Rows<C> for LeastOutstanding {}
