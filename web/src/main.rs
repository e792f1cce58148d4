//! Browser front end of the LLM Load-Balancing Lab: presentation only.
//!
//! Every number comes from `sim-core`; this crate turns URL query parameters into
//! lab configs, runs the lab, and draws cards, tables and charts. State lives in
//! the URL so every view is a shareable link.

mod app;

/// Talc instead of the standard library's dlmalloc: the same service in
/// fewer bytes of the page's bundle, and faster in its benchmarks. Not with
/// wasm threads (atomics), which the page does not use.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

mod charts;
#[cfg(test)]
mod checks;
mod clock;
mod components;
mod embed;
mod exports;
mod format;
mod home;
mod html;
mod labs;
mod page;
mod panels;
mod scenes;
mod theme;
mod tours;
mod traces;
mod url;
mod validate;
mod worker;

pub use worker::lblab_worker_message;

/// The latest outcome a lab computed, as the JSON `lblab <lab> --json` prints.
/// Exported so browser tests (and authors) can read exactly what the page shows.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn lblab_outcome_json() -> String {
    exports::last_outcome_json()
}

/// Milliseconds the latest recomputation of the visible lab took in wasm.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn lblab_last_compute_ms() -> f64 {
    exports::last_compute_ms()
}

fn main() {
    console_error_panic_hook::set_once();
    // The same module also runs as the simulation worker (see `worker`), where
    // there is no page to mount.
    if web_sys::window().is_some() {
        leptos::mount::mount_to_body(app::App);
    }
}
