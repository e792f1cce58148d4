//! llm-d's `active-request-scorer` (llm-d-inference-scheduler v0.8.0,
//! `pkg/epp/framework/plugins/scheduling/scorer/activerequest/
//! active_request.go`): an idle endpoint scores 1; a busy one
//! `(max − n) / max × max_busy_score`, where `n` is its requests in flight
//! (counted by the gateway itself) and `max` the most any endpoint has.

use alloc::vec::Vec;

/// Upstream's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActiveRequestSettings {
    /// In-flight requests at or below which an endpoint counts as idle.
    pub idle_threshold: u32,
    /// The most a busy endpoint can score. Upstream documents 1.0, and
    /// that is what its constructor gives; its configuration loader starts
    /// from zeroed parameters, so a configuration that leaves the key out
    /// gets 0 (every busy endpoint then scores 0).
    pub max_busy_score: f64,
}

impl Default for ActiveRequestSettings {
    fn default() -> Self {
        ActiveRequestSettings {
            idle_threshold: 0,
            max_busy_score: 1.0,
        }
    }
}

/// Per endpoint, its score given its in-flight count (`None`: never
/// counted, which reads as 0).
pub fn scores(in_flight: &[Option<u32>], s: &ActiveRequestSettings) -> Vec<f64> {
    let max = in_flight.iter().map(|c| c.unwrap_or(0)).max().unwrap_or(0);
    in_flight
        .iter()
        .map(|c| {
            let n = c.unwrap_or(0);
            if n <= s.idle_threshold || max == 0 {
                1.0
            } else {
                f64::from(max - n) / f64::from(max) * s.max_busy_score
            }
        })
        .collect()
}
