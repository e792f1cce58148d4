//! The stale-signal herding lab (article §5.6): several routers dispatch on load
//! snapshots that are only refreshed every `scrape_interval` ticks. When every
//! router trusts the same stale minimum, they stampede onto one replica, then all
//! flee it at the next scrape.
//!
//! Model (constants from `shared/notes/herding-model.md`, which found they give the
//! article's magnitudes):
//! - `replicas` replicas; each request occupies its replica for exactly
//!   `service_time` ticks, however busy the replica is, so a replica's outstanding
//!   count is the number of requests dispatched to it in the last `service_time`
//!   ticks. Load in flight is L = λ·S; the oscillation's amplitude is about
//!   min(λ·T, L), so the default S = 2T keeps it at λ·T.
//! - Each tick a Poisson number of requests arrives (mean `arrival_rate`, from its
//!   own stream), dealt to routers round robin in arrival order across ticks.
//! - Router `k` scrapes every `scrape_interval` ticks: in phase, all at multiples
//!   of T; staggered, router k at offsets ⌊k·T/K⌋. All start from an all-zero view.
//! - Order within a tick: completions → scrapes → dispatches (in arrival order)
//!   → skew is measured.
//! - All randomness of decisions (tie-breaks and two-choice samples) comes from one
//!   stream read in arrival order, so with in-phase scrapes the stale rule makes
//!   the very same choices whatever the router count.

mod config;
mod outcome;
mod rules;
mod sim;

pub use config::Config;
pub use outcome::{Outcome, RouterView, RuleSummary, TickSnapshot, Timeline};
pub use rules::HerdingRule;
pub use sim::{run, run_rule};
