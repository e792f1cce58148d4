//! The size of a canvas, as the browser lays it out, without asking for it:
//! reading `clientWidth` after the page changed forces a synchronous layout,
//! and a chart redrawn at every player step would pay for one each time. A
//! `ResizeObserver` reports the size after layout instead, and the drawing
//! effects read it from a signal.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Keep `size` at `el`'s content size in CSS pixels (it stays `(0, 0)` until
/// the browser first reports it). `size` must be owned by the component, not
/// by an effect: an effect's own signals are dropped when it runs again.
pub fn observe_size(el: &web_sys::Element, size: RwSignal<(f64, f64)>) {
    let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        if let Ok(e) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
            let r = e.content_rect();
            let next = (r.width(), r.height());
            // A canvas whose page is gone (a tour's earlier step) has a
            // disposed signal: nothing to update.
            if size.try_get_untracked().is_some_and(|s| s != next) {
                size.try_set(next);
            }
        }
    });
    let Ok(observer) = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()) else {
        return;
    };
    observer.observe(el);
    // The observer and its callback live as long as the component that
    // asked: leaving the page disconnects one and drops the other.
    let held = send_wrapper::SendWrapper::new((observer, on_resize));
    on_cleanup(move || {
        let (observer, on_resize) = held.take();
        observer.disconnect();
        drop(on_resize);
    });
}
