//! `least-busy` (`litellm/router_strategy/least_busy.py`): the deployment
//! with the fewest calls in flight; a tie goes to the first in list order
//! (`min` over the indices), with no random draw.

/// The first deployment with the fewest in-flight calls.
pub fn pick(in_flight: &[u32]) -> Option<usize> {
    (0..in_flight.len()).min_by_key(|&i| in_flight[i])
}
