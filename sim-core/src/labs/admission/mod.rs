//! Admission control and backpressure (§9.3 of the reference article, with
//! the knee of §1.2 on a live pool): one pool behind a gateway, arrivals that
//! can exceed its capacity, and the gateway's policies side by side on the
//! same requests.
//!
//! The model, in ticks. The pool has `replicas × slots` servers; a request
//! holds one for its service time (Gamma, mean `service`, spread
//! `service-cv`), and its first token comes `first-token` mean service
//! times after dispatch, so its TTFT is its wait in the gateway's queue plus
//! that fixed time. A request meets the SLO when its TTFT is at most `slo` mean
//! service times. Arrivals are Poisson at `load` times the pool's capacity
//! (servers ÷ mean service), times `1 + surge` during the surge window. One
//! replica can fail during an incident: each request it takes then fails
//! after a tick with probability `failure`. Every policy sees the same
//! arrivals, service times and failure draws.
//!
//! Status: the model and its claims (`tests/admission_claims.rs`); the lab's
//! registry entry, page and player come next (issue 28).

mod config;
mod sim;

pub use config::{Config, Policy};
pub use sim::{run, run_policies, PolicyRun, Snapshot, SWEEP};

use alloc::vec::Vec;
use serde::Serialize;

/// Every policy on the same requests, and goodput against offered load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The validated configuration.
    pub config: Config,
    /// Pool capacity, requests per tick (servers ÷ mean service time).
    pub capacity: f64,
    /// One run per policy, in [`Policy::ALL`] order.
    pub policies: Vec<PolicyRun>,
    /// Goodput per policy at each swept load: `(load, goodput per policy)`.
    pub sweep: Vec<(f64, Vec<f64>)>,
}
