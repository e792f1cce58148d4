//! A rented deployment as its provider runs it: how it refuses (a reserved
//! deployment's utilisation, a metered one's quota, an incident's errors)
//! and its own prompt cache ([`super::cache`]).

use alloc::collections::VecDeque;

use super::cache::Cache;
use super::config::Config;

/// Seconds of capacity a reserved deployment's utilisation may hold before
/// it answers 429. Azure documents a leaky bucket that drains at the
/// deployment's rate and refuses while above 100%, not the bucket's size;
/// ten seconds is this lab's choice, the window Azure rates quotas over.
pub const BURST_S: f64 = 10.0;

/// Why a deployment refused a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Refusal {
    /// HTTP status: 429, 400 or 500.
    pub status: u16,
    /// Retry-After, ms (429 only).
    pub retry_after: Option<u64>,
}

/// One deployment's state.
#[derive(Clone, Debug)]
pub struct Deploy {
    /// Reserved capacity (else metered).
    pub reserved: bool,
    /// Region, 0-based.
    pub region: u8,
    /// Tokens in the reserved bucket, or tokens spent from the metered one.
    level: f64,
    /// Requests spent from the metered request bucket.
    requests: f64,
    /// When `level` was last drained, ms.
    at: u64,
    /// Tokens a millisecond at full capacity.
    rate: f64,
    /// Requests a millisecond (metered).
    rpm_rate: f64,
    /// Tokens charged in the last [`BURST_S`] seconds, with when.
    recent: VecDeque<(u64, f64)>,
    /// Their sum.
    recent_sum: f64,
    /// Calls running.
    pub in_flight: u32,
    /// Its prompt cache.
    pub cache: Cache,
}

impl Deploy {
    /// Deployment `d` of `c`.
    pub fn new(c: &Config, d: usize) -> Deploy {
        let reserved = c.is_reserved(d);
        let tpm = if reserved { c.ptu_tpm } else { c.quota_tpm };
        Deploy {
            reserved,
            region: c.region(d),
            level: 0.0,
            requests: 0.0,
            at: 0,
            rate: f64::from(tpm) / 60_000.0,
            rpm_rate: f64::from(c.quota_rpm) / 60_000.0,
            recent: VecDeque::new(),
            recent_sum: 0.0,
            in_flight: 0,
            cache: Cache::new(c),
        }
    }

    /// Drain the buckets to `now` at `scale` of capacity.
    fn drain(&mut self, now: u64, scale: f64) {
        let ms = now.saturating_sub(self.at) as f64;
        self.level = (self.level - ms * self.rate * scale).max(0.0);
        self.requests = (self.requests - ms * self.rpm_rate * scale).max(0.0);
        self.at = now;
    }

    /// How busy it has been: the tokens charged over the last [`BURST_S`]
    /// seconds against what its capacity (or quota), at `scale`, serves in
    /// that time (1: all of it). What the player draws; refusals follow
    /// the buckets.
    pub fn fill(&mut self, now: u64, scale: f64) -> f64 {
        self.forget(now);
        self.recent_sum / (self.rate * scale * BURST_S * 1000.0).max(1e-9)
    }

    fn forget(&mut self, now: u64) {
        let window = (BURST_S * 1000.0) as u64;
        while let Some(&(t, x)) = self.recent.front() {
            if t + window > now {
                break;
            }
            self.recent_sum -= x;
            self.recent.pop_front();
        }
        if self.recent.is_empty() {
            self.recent_sum = 0.0;
        }
    }

    fn remember(&mut self, now: u64, tokens: f64) {
        self.forget(now);
        self.recent.push_back((now, tokens));
        self.recent_sum += tokens;
    }

    /// Check capacity at `now` for a call of `tokens` (prompt plus output)
    /// with `scale` of capacity left; `Ok` admits it (the caller then
    /// charges it with [`Deploy::charge`]).
    pub fn admit(&mut self, now: u64, tokens: f64, scale: f64) -> Result<(), Refusal> {
        self.drain(now, scale);
        let depth = self.rate * scale * BURST_S * 1000.0;
        let ra = |over: f64, rate: f64| Some(libm::ceil(over / (rate * scale).max(1e-12)) as u64);
        if self.reserved {
            // Azure: refuse while utilisation is above 100%, with
            // Retry-After the time until it is back under.
            if self.level > depth {
                return Err(Refusal {
                    status: 429,
                    retry_after: ra(self.level - depth, self.rate),
                });
            }
            return Ok(());
        }
        // A metered quota counts the prompt and the expected output
        // (cached tokens count too), and requests, over short windows.
        let rdepth = self.rpm_rate * scale * BURST_S * 1000.0;
        if self.level + tokens > depth {
            return Err(Refusal {
                status: 429,
                retry_after: ra(self.level + tokens - depth, self.rate),
            });
        }
        if self.requests + 1.0 > rdepth {
            return Err(Refusal {
                status: 429,
                retry_after: ra(self.requests + 1.0 - rdepth, self.rpm_rate),
            });
        }
        self.level += tokens;
        self.requests += 1.0;
        self.remember(now, tokens);
        Ok(())
    }

    /// Charge an admitted call on a reserved deployment: its prompt tokens
    /// not read from the cache plus its output.
    pub fn charge(&mut self, now: u64, tokens: f64) {
        if self.reserved {
            self.level += tokens;
            self.remember(now, tokens);
        }
    }
}
