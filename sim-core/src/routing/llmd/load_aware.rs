//! llm-d's `load-aware-scorer` (llm-d-inference-scheduler v0.8.0,
//! `pkg/epp/framework/plugins/scheduling/scorer/loadaware/load_aware.go`):
//! half a point for an empty queue, falling linearly to 0 at `threshold`
//! waiting requests. It never gives more than 0.5.

/// Upstream's default threshold; 0 or less falls back to it.
pub const THRESHOLD: u32 = 128;

/// The score of an endpoint with `waiting` requests queued.
pub fn score(waiting: u32, threshold: u32) -> f64 {
    let t = if threshold == 0 { THRESHOLD } else { threshold };
    if waiting == 0 {
        0.5
    } else {
        0.5 * (1.0 - f64::from(waiting.min(t)) / f64::from(t))
    }
}
