//! When LiteLLM takes a deployment out of rotation
//! (`litellm/router_utils/cooldown_handlers.py`, its default path: no
//! `allowed_fails` set explicitly). A cooled-down deployment is skipped for
//! the cooldown time (5 s by default); when every deployment of a group is
//! cooling down, the router answers 429 itself.

/// What the router knows when a call fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The HTTP status (500 for an error without one).
    pub status: u16,
    /// Whether the deployment is the only one its group has.
    pub single: bool,
    /// Calls to it that succeeded this minute.
    pub successes: u32,
    /// Calls to it that failed this minute, this one included.
    pub failures: u32,
}

/// Whether an error of `status` counts at all: a 4xx only for 429, 401,
/// 402, 404 and 408 (a bad request or a content-policy refusal says nothing
/// about the deployment); everything else does.
pub fn counts(status: u16) -> bool {
    !(400..500).contains(&status) || matches!(status, 401 | 402 | 404 | 408 | 429)
}

/// Whether LiteLLM retries after `status` (`litellm.should_retry`).
fn retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// Whether the failure `f` cools the deployment down.
pub fn cools(f: &Failure) -> bool {
    if !counts(f.status) || (f.single && f.status == 402) {
        return false;
    }
    let n = f.successes + f.failures;
    let all_failed = f.failures == n && n >= 1000;
    let most_failed = 2 * f.failures > n && n >= 5;
    (f.status == 429 && !f.single)
        || all_failed
        || (most_failed && !f.single)
        || !retryable(f.status)
}
