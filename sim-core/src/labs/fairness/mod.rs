//! Fairness between tenants sharing one engine (§8 of the reference
//! article): whom a scheduler serves when everyone wants more than their
//! share, counted in requests, in tokens, in weighted token service (VTC)
//! and in GPU time, and what token fairness costs the prefix cache.
//!
//! The model, in engine iterations. One engine runs `slots` sequences with
//! chunked prefill (`budget` tokens an iteration: one per decoding sequence,
//! the rest for prompt chunks) and a prefix cache of `cache` tokens. Up to
//! four tenants with different shapes ([`TENANTS`]): long prompts, long
//! outputs, many small chat requests (the interactive one), and one whose
//! requests share a 1,200-token system prompt and come in bursts. Steady
//! tenants are closed loops of clients that always want more, so every
//! scheduler works under contention. GPU time counts computed prompt tokens
//! and output tokens at `decode-cost` each. Every scheduler sees the same
//! tenants and seed. `tests/fairness_claims.rs` holds the article's claims
//! over seeds 1–100.
//!
//! Status: the model and its claims. The lab's registry entry, page and
//! player wait for room in the page's bundle (issue 28's note says how
//! much).

mod config;
mod sim;

pub use config::{Config, Scheduler, Shape, TENANTS};
pub use sim::{run_schedulers, SchedulerRun, TenantRun};
