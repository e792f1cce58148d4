//! An API Management backend's circuit breaker (Microsoft's "Backends in
//! API Management", circuit breaker rules): a rule counts failures of the
//! status codes it names within an interval; `count` of them trip it, and
//! the backend is out for `tripDuration`, or, with `acceptRetryAfter`, for
//! what the backend's Retry-After said. Microsoft's Azure OpenAI sample
//! trips on one failure in a minute for a minute. Whether the interval
//! slides is not documented; it slides here.

use super::Gate;

/// Count a failure of `d` with `status` at `now`; trip when due. Returns
/// the time `d` is out from now, ms (0: still in service).
pub fn failed(g: &mut Gate, d: usize, status: u16, retry_after_ms: Option<u64>, now: u64) -> u64 {
    let counted = status >= 500 || (status == 429 && g.rules.breaker_429);
    if !counted {
        return 0;
    }
    let window = g.rules.window_ms;
    let f = &mut g.failures[d];
    f.push_back(now);
    while f.front().is_some_and(|&t| t + window <= now) {
        f.pop_front();
    }
    if (f.len() as u32) < g.rules.breaker_count {
        return 0;
    }
    f.clear();
    let ms = match retry_after_ms {
        Some(ra) if g.rules.retry_after => ra.max(1),
        _ => g.rules.trip_ms,
    };
    g.out_until[d] = g.out_until[d].max(now + ms);
    ms
}
