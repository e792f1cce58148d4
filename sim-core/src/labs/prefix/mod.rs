//! The prefix-affinity player (article §6.1): one trace routed by two routers
//! side by side, a load-only router and a prefix-aware router with an escape
//! hatch, on replicas whose prefix caches hold only a few prefixes.
//!
//! Model:
//! - `replicas` replicas, each with an LRU cache of `slots` prefixes (one prefix
//!   per slot). A request whose prefix is in its replica's cache *hits*: its
//!   prefill is the suffix alone; otherwise it prefills the whole prompt and its
//!   prefix enters the cache, evicting the least recently used one.
//! - Load is cumulative assignments (requests never finish in this player, which
//!   isolates the placement decision from timing).
//! - **Load-only** router: the shared least-outstanding rule over assignment
//!   counts; ties go to the lowest index, so on an idle pool it deals round robin.
//! - **Prefix-aware** router: the shared prefix-aware rule with the holder gap
//!   ([`crate::routing::GapRule::Holder`]). A prefix never seen before goes to
//!   the least-loaded replica (*first sight*); a cached prefix goes to the
//!   least-loaded replica holding it (*affinity*) unless that replica's load
//!   exceeds the least-loaded replica's by more than `threshold` (*affinity
//!   dropped on load gap*: it goes to the least-loaded replica instead); a prefix
//!   seen before but no longer cached anywhere goes by *load*. Ties go to the
//!   lowest index. (First sight and evicted are the same decision, "no cached
//!   match"; the player names them apart because it knows the history.)
//!
//! The default trace ([`default_trace`]) reproduces the article's figures exactly
//! (4 vs 6 hits of 12, 29,180 vs 21,180 prefill tokens, two escapes that both
//! miss, 8/2/2 at an infinite threshold); `tests/prefix_player.rs` checks each.

mod config;
mod outcome;
mod report;
mod sim;
mod trace;

pub use config::{Config, TraceChoice, MAX_REQUESTS, RANDOM_LEN};
pub use outcome::{
    CacheEntry, Outcome, PrefixMoment, PrefixReason, RouterKind, RouterRun, Step, SweepPoint,
    Totals,
};
pub use sim::{run, simulate};
pub use trace::{default_trace, random_trace, trace_from_ids, PrefixRequest, PREFIXES};

use alloc::string::String;

use super::lab::{
    Input, Lab, LabInfo, Layer, Nothing, Opening, Panel, PlayerInfo, RunError, Tally,
};
use super::work::Work;

/// The prefix-affinity player in the lab registry.
pub struct PrefixLab;

impl Lab for PrefixLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "prefix",
        title: "Prefix affinity",
        section: "§6.1",
        layer: Layer::EndpointSelection,
        summary: "Two routers, one trace: follow the cached prefix or balance the load, and the threshold between.",
        units: "Load counts requests assigned so far; prefill in tokens; each replica caches one prefix.",
        player: Some(PlayerInfo {
            unit: "request",
            first: 1,
            speed: 1.0,
            vs: None,
            opens: Opening::Start,
        }),
        embed_view: &[Panel::Player, Panel::Controls, Panel::Cards],
    };

    /// A dozen requests on a few replicas: microseconds.
    fn work(_: &Config, _: &Input<'_, Nothing>) -> Work {
        Work::light("the prefix player's requests")
    }

    fn run(config: &Config, _input: &Input<'_, Nothing>) -> Result<Outcome, RunError> {
        Ok(run(config)?)
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> String {
        report::csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    /// Per router: requests never finish in this lab (each stays as its
    /// cached prefix), so every arrival must be one replica's assignment.
    fn tally(o: &Outcome) -> alloc::vec::Vec<Tally> {
        o.routers
            .iter()
            .map(|r| Tally {
                what: alloc::format!("router {}", crate::choice::Choice::name(r.router)),
                arrived: o.trace.len() as u64,
                finished: 0,
                rejected: 0,
                outstanding: r.assignments.iter().map(|&a| u64::from(a)).sum(),
            })
            .collect()
    }
}
