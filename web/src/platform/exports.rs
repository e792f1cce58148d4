//! What the visible lab last computed, for the share bar's exports and for
//! the browser tests: the job that computed it, and how long the worker
//! took. Its JSON (exactly `lblab <lab> --json`) and CSV (`--csv`) are
//! written by the worker when someone asks, by running the job again (the
//! same settings give the same outcome): the page holds no writer of its
//! own.

use std::cell::RefCell;

use wasm_bindgen::JsValue;

thread_local! {
    static LAST: RefCell<Option<crate::platform::worker::Job>> = const { RefCell::new(None) };
    static LAST_MS: RefCell<f64> = const { RefCell::new(f64::NAN) };
}

/// Record what the visible lab last computed: the job, and how long the
/// computation took.
pub fn publish(job: &crate::platform::worker::Job, ms: f64) {
    // The export needs no recording (JSON leaves it out).
    let job = crate::platform::worker::Job {
        record: Vec::new(),
        ..job.clone()
    };
    LAST.with(|l| *l.borrow_mut() = Some(job));
    LAST_MS.with(|m| *m.borrow_mut() = ms);
    // `<html data-runs>` counts published outcomes (with `data-busy`, what
    // tests and scripts wait on).
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let n = root
            .get_attribute("data-runs")
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        let _ = root.set_attribute("data-runs", &(n + 1).to_string());
    }
}

/// The last published outcome as `lblab <lab> --json` (or `--csv`) prints
/// it, handed to `done` once the worker has written it (`Ok("")` when
/// nothing was published yet).
pub fn last_outcome(csv: bool, done: impl FnOnce(Result<String, String>) + 'static) {
    match LAST.with(|l| l.borrow().clone()) {
        None => done(Ok(String::new())),
        Some(job) => crate::platform::worker::export(&job, csv, done),
    }
}

/// [`last_outcome`] as a promise of the text (for `wasm_bindgen` exports).
pub fn last_outcome_promise(csv: bool) -> js_sys::Promise {
    js_sys::Promise::new(&mut |resolve, reject| {
        last_outcome(csv, move |text| {
            let _ = match text {
                Ok(t) => resolve.call1(&JsValue::NULL, &JsValue::from_str(&t)),
                Err(e) => reject.call1(&JsValue::NULL, &JsValue::from_str(&e)),
            };
        });
    })
}

/// Milliseconds of the last published computation (NaN when none).
pub fn last_compute_ms() -> f64 {
    LAST_MS.with(|m| *m.borrow())
}
