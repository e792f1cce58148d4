//! `usage-based-routing-v2` (`litellm/router_strategy/lowest_tpm_rpm_v2.py`):
//! the deployment with the fewest tokens used this minute, among those
//! with headroom left. Counters are per UTC calendar minute (not a sliding
//! window): requests are counted before the call, tokens after a success.

use alloc::vec::Vec;

/// One deployment's limits and this minute's use.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Minute {
    /// Tokens a minute it may serve (None: no limit).
    pub tpm: Option<u64>,
    /// Requests a minute (None: no limit).
    pub rpm: Option<u32>,
    /// Tokens used this minute.
    pub tokens: u64,
    /// Requests sent this minute.
    pub requests: u32,
}

/// The deployments a request of `input` tokens may go to: those within
/// their limits, then the ones with the fewest tokens used (the router
/// draws among them uniformly). Upstream excludes a deployment once
/// `requests + 1 >= rpm`, so one with `rpm = 10` drops out after 9.
pub fn candidates(m: &[Minute], input: u64) -> Vec<usize> {
    let open: Vec<usize> = (0..m.len())
        .filter(|&i| {
            let d = &m[i];
            d.tpm.is_none_or(|t| d.tokens + input <= t) && d.rpm.is_none_or(|r| d.requests + 1 < r)
        })
        .collect();
    let Some(least) = open.iter().map(|&i| m[i].tokens).min() else {
        return Vec::new();
    };
    open.into_iter().filter(|&i| m[i].tokens == least).collect()
}
