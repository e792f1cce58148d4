//! LiteLLM's router (BerriAI/litellm, the 1.110.2 release on PyPI; the
//! retry and fallback rules from 1.79.3, the last release whose router is
//! all Python). One file per routing strategy, plus the cooldown rule that
//! takes a failing deployment out of rotation.
//!
//! Defaults (`litellm/constants.py`, `litellm/__init__.py`): simple-shuffle,
//! 2 retries, at most 5 fallbacks, a 5 s cooldown; a deployment is cooled
//! down at once on a 429 when its group has another, or when more than half
//! of at least 5 calls this minute failed.

pub mod cooldown;
pub mod cost;
pub mod latency;
pub mod least_busy;
pub mod shuffle;
pub mod usage;

/// Seconds a cooled-down deployment stays out (`DEFAULT_COOLDOWN_TIME_SECONDS`).
pub const COOLDOWN_S: f64 = 5.0;
/// Retries of a failed call (`num_retries`).
pub const RETRIES: u32 = 2;
/// Fallback groups tried at most (`ROUTER_MAX_FALLBACKS`).
pub const MAX_FALLBACKS: u32 = 5;
