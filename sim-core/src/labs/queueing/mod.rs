//! Queueing and overload explorables (article §1.2–1.3, §9.1–9.2, §10.2): the
//! formulas the article shows as static figures, each beside a seeded simulation
//! that shows the formula holds.
//!
//! - [`knee`]: Pollaczek–Khinchine and Kingman waits, usable utilisation at a
//!   tolerable wait, and a discrete-event M/G/1 check.
//! - [`cascade`]: what escalating the slowest share of an exponential workload does
//!   to the service-time distribution the large pool sees.
//! - [`little`]: Little's law sizing of one replica.
//! - [`hedging`]: hedged requests and what the tail reduction costs.
//! - [`retries`]: per-layer retries multiply; an incident simulation compares
//!   retrying everywhere, at one layer, and at one layer under a budget.

pub mod cascade;
pub mod hedging;
pub mod knee;
pub mod little;
pub mod retries;
