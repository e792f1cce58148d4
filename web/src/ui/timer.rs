//! A `use_interval` hook, as Leptos's examples write one: a timer that runs
//! only while its period says so, and is cleared when the period changes or
//! the component goes away. The effect only starts and stops the browser's
//! interval; what each tick does is the caller's callback.

use std::time::Duration;

use leptos::prelude::*;

/// Call `tick` every `period()` while that is `Some`.
pub fn use_interval(
    period: impl Fn() -> Option<Duration> + 'static,
    tick: impl Fn() + Clone + 'static,
) {
    Effect::new(move |_| {
        let Some(every) = period() else { return };
        if let Ok(handle) = set_interval_with_handle(tick.clone(), every) {
            on_cleanup(move || handle.clear());
        }
    });
}
