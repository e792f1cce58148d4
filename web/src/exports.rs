//! What the visible lab last computed, for the share bar's exports and for
//! the browser tests: its JSON (exactly `lblab <lab> --json`), its CSV
//! (`--csv`), and how long the worker took. Producers are kept, not texts:
//! the CSV is written only when someone asks for it.

use std::cell::RefCell;

thread_local! {
    static LAST_JSON: RefCell<Option<Box<dyn Fn() -> String>>> = RefCell::new(None);
    static LAST_CSV: RefCell<Option<Box<dyn Fn() -> String>>> = RefCell::new(None);
    static LAST_MS: RefCell<f64> = const { RefCell::new(f64::NAN) };
}

/// Record what the visible lab last computed: JSON and CSV producers (run
/// lazily, only when asked) and how long the computation took.
pub fn publish(json: impl Fn() -> String + 'static, csv: impl Fn() -> String + 'static, ms: f64) {
    LAST_JSON.with(|j| *j.borrow_mut() = Some(Box::new(json)));
    LAST_CSV.with(|c| *c.borrow_mut() = Some(Box::new(csv)));
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

/// The JSON of the last published outcome, as `lblab <lab> --json` prints it
/// (empty when none).
pub fn last_outcome_json() -> String {
    LAST_JSON.with(|j| j.borrow().as_ref().map(|f| f()).unwrap_or_default())
}

/// The CSV of the last published outcome, as `lblab <lab> --csv` prints it
/// (empty when none).
pub fn last_outcome_csv() -> String {
    LAST_CSV.with(|c| c.borrow().as_ref().map(|f| f()).unwrap_or_default())
}

/// Milliseconds of the last published computation (NaN when none).
pub fn last_compute_ms() -> f64 {
    LAST_MS.with(|m| *m.borrow())
}
