//! The browser's clock, for timing what the page does (compute times, frame
//! costs, the age of a run). The simulation never reads it.

/// `performance.now()` in milliseconds (0 where there is no window, e.g. in
/// native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}
