//! Browser front end of the LLM Load-Balancing Lab: presentation only.
//!
//! Every number comes from `sim-core`; this crate turns URL query parameters into
//! lab configs, runs the lab, and draws cards, tables and charts. State lives in
//! the URL so every view is a shareable link.

mod app;
mod labs;
mod page;
mod platform;
mod ui;

/// The latest outcome a lab computed, as the JSON `lblab <lab> --json` prints
/// (a promise: the simulation worker writes it). Exported so browser tests
/// (and authors) can read exactly what the page shows.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn lblab_outcome_json() -> js_sys::Promise {
    platform::exports::last_outcome_promise(false)
}

/// Trace files the simulation worker has parsed in this page (a loaded
/// trace is parsed once, not on every change of the settings).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn lblab_trace_parses() -> u32 {
    platform::worker::trace_parses()
}

/// Milliseconds the latest recomputation of the visible lab took in wasm.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn lblab_last_compute_ms() -> f64 {
    platform::exports::last_compute_ms()
}

/// Animation callbacks of mounted stages alive now (the leak test reads it
/// as labs are mounted and left: it must stay flat).
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn lblab_live_frames() -> u32 {
    ui::stage::live_frames()
}

fn main() {
    console_error_panic_hook::set_once();
    // The simulation's module downloads beside this one (index.html preloads
    // it): compile it now, so the first run does not wait for it.
    platform::worker::warm();
    leptos::mount::mount_to_body(app::App);
    // The app has drawn itself: the static shell index.html showed until
    // now goes (web/src/app/static_shell.rs).
    if let Some(shell) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("shell"))
    {
        shell.remove();
    }
}
