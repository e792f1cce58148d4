//! # sim-core: the simulation behind the LLM Load-Balancing Lab
//!
//! This crate is pure and deterministic. It never reads a clock and never asks the
//! operating system for entropy: time is an integer tick the simulation advances
//! itself ([`time::Tick`]), and every run takes a seed that feeds a small PCG
//! generator with one independent stream per source of randomness ([`rng`]). The
//! same configuration and seed give bit-identical results natively and in wasm;
//! floating-point maths goes through `libm` so no platform intrinsic can differ.
//!
//! ## Data flow of a lab run
//!
//! ```text
//! Config ──validate──▶ workload (seeded requests) ──▶ router (one rule) ──▶ replica engines
//!                                                        ▲     │ reason      │ per tick
//!                                                        └─────┴── views ◀───┘
//!                                     replica engines ──▶ metrics ──▶ Outcome (serde)
//! ```
//!
//! ## Module map
//! - [`time`], [`rng`], [`stats`]: the integer clock, seeded random streams, percentiles.
//! - [`workload`]: the request model (arrival, prompt, output, prefix block chain)
//!   and the seeded generator; real traces fill the same [`workload::Request`].
//! - [`engine`]: one replica's iteration-level scheduler with batch slots, KV blocks,
//!   a FIFO waiting queue and an LRU prefix cache.
//! - [`routing`]: the [`routing::Router`] trait, one file per selection rule, and the
//!   [`routing::RuleKind`] registry that the CLI, the tests and the UI share.
//! - [`labs`]: one module per lab, each with a validated `Config`, a `run` function
//!   and a serialisable `Outcome`.
#![no_std]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// The optimisation level this crate was compiled at (`0`–`3`, `s`, `z`),
/// recorded by its build script so benchmarks report what they measured.
pub const BUILD_OPT_LEVEL: &str = env!("SIM_CORE_OPT_LEVEL");

/// The Cargo profile family this crate was compiled under (`debug` or `release`).
pub const BUILD_PROFILE: &str = env!("SIM_CORE_PROFILE");

pub mod choice;
pub mod engine;
pub mod hardware;
pub mod labs;
pub mod params;
pub mod providers;
pub mod rng;
pub mod routing;
pub mod stats;
pub mod time;
pub mod workload;

/// serde, for the code [`choices!`] generates in other modules and crates.
#[doc(hidden)]
pub use serde as __serde;
