//! llm-d's `lora-affinity-scorer` (llm-d-inference-scheduler v0.8.0,
//! `pkg/epp/framework/plugins/scheduling/scorer/loraaffinity/
//! lora_affinity.go`): an endpoint already running the request's adapter
//! scores 1; one with a free adapter slot 0.8; one where the adapter waits
//! to load but no slot is free 0.6; any other 0. The checks run in that
//! order, so an endpoint where the adapter waits *and* a slot is free scores
//! 0.8, not 0.6.

/// What one endpoint reports of its adapters (vLLM's `lora_requests_info`:
/// `running_lora_adapters`, `waiting_lora_adapters`, `max_lora`).
#[derive(Clone, Copy, Debug)]
pub struct Adapters<'a> {
    /// Adapters running in its batch.
    pub active: &'a [u32],
    /// Adapters waiting to load.
    pub waiting: &'a [u32],
    /// Adapters it can hold at once.
    pub max: u32,
}

/// The score of an endpoint reporting `a` for a request on `adapter`.
pub fn score(adapter: u32, a: &Adapters<'_>) -> f64 {
    // Upstream counts the keys of both maps against the limit, strictly.
    let used = (a.active.len() + a.waiting.len()) as u64;
    if a.active.contains(&adapter) {
        1.0
    } else if used < u64::from(a.max) {
        0.8
    } else if a.waiting.contains(&adapter) {
        0.6
    } else {
        0.0
    }
}
