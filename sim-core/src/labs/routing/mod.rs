//! The Routing Lab (article §4.2): one seeded arrival trace replayed under every
//! selection rule, on identical replica engines, with TTFT, E2E, SLO, cache and
//! balance metrics per rule.
//!
//! Data flow: [`Config`] → [`crate::workload::generator`] → for each rule: router →
//! [`crate::engine::Replica`]s, stepped tick by tick → [`RuleOutcome`] → [`Outcome`].
//!
//! Order within a tick (total and fixed): arrivals of this tick are routed in
//! arrival order, each seeing the queues left by the previous one; then every
//! replica, in index order, runs one engine step; then outstanding requests are
//! sampled for the queue-evolution series. A run ends when every request has
//! finished, or at `max_ticks`, when unfinished requests are reported outstanding.

mod config;
mod outcome;
mod sim;

pub use config::Config;
pub use outcome::{Outcome, QueueSeries, ReasonCount, ReplicaOutcome, RuleOutcome, TraceSummary};
pub use sim::{run, run_rules, run_rules_on};
