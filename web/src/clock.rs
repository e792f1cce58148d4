//! The browser's clock, for timing what the page does (compute times, frame
//! costs, the age of a run). The simulation never reads it.

use wasm_bindgen::JsCast;

/// `performance.now()` in milliseconds (0 where there is no window, e.g. in
/// native tests).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// `performance.now()` of whatever global this runs in (a window or the
/// worker), in milliseconds.
pub fn now_ms_anywhere() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}
