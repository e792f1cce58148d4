//! The simulation worker: sim-core's lab registry in a wasm module of its
//! own, which the page starts in a module Web Worker (`web/src/platform/worker.rs`).
//! It holds no page code (no Leptos, no views), and it is built for speed
//! (the `wasm-worker` profile: `opt-level = 3`) where the page is built for
//! size.
//!
//! Everything it does with a request is [`sim_core::labs::serve::Server`]'s
//! or, for a router's configuration, [`router_config::answer`]'s, tested
//! natively there; this file is the glue: messages in and out as
//! postcard bytes, the trace file read from its `Blob`, and the clock.
//!
//! A message from the page is `{ id, ask, key?, blob? }`: `ask` is a
//! postcard [`Ask`], `blob` a trace file the worker does not hold yet (read
//! and parsed here, once, under `key`). Each answer goes back as
//! `{ id, answer }`, `answer` a postcard [`Answer`].

use std::cell::RefCell;

use js_sys::{Object, Reflect, Uint8Array};
use sim_core::labs::serve::{Answer, Ask, Server};
use sim_core::labs::{decode, encode};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static SERVER: RefCell<Server> = RefCell::new(Server::new());
}

/// How long a run goes before its progress is worth a message, in ms (the
/// page shows a progress bar only after a third of a second anyway).
const QUIET_MS: f64 = 100.0;

fn main() {
    console_error_panic_hook::set_once();
}

fn scope() -> web_sys::DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// `performance.now()` of the worker, in milliseconds.
fn now_ms() -> f64 {
    scope()
        .performance()
        .map_or_else(js_sys::Date::now, |p| p.now())
}

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn post(id: f64, answer: &Answer) {
    let bytes = encode(answer).unwrap_or_default();
    let msg = Object::new();
    let _ = Reflect::set(&msg, &"id".into(), &JsValue::from(id));
    let _ = Reflect::set(&msg, &"answer".into(), &Uint8Array::from(bytes.as_slice()));
    let _ = scope().post_message(&msg);
}

/// A trace file's bytes, read here rather than on the page's thread.
fn read_blob(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    if blob.size() > sim_core::workload::trace::MAX_TRACE_BYTES as f64 {
        return Err(sim_core::workload::trace::too_big(Some(blob.size() as usize)).0);
    }
    let reader = web_sys::FileReaderSync::new().map_err(|_| "the file cannot be read here")?;
    let buffer = reader
        .read_as_array_buffer(blob)
        .map_err(|_| "the file cannot be read")?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// The worker's entry point: answer one message from the page.
#[wasm_bindgen]
pub fn lblab_worker_message(data: JsValue) {
    let id = get(&data, "id").as_f64().unwrap_or(0.0);
    if let (Some(key), Ok(blob)) = (
        get(&data, "key").as_f64(),
        get(&data, "blob").dyn_into::<web_sys::Blob>(),
    ) {
        let bytes = read_blob(&blob);
        SERVER.with(|s| s.borrow_mut().hold_trace(key as u32, bytes));
    }
    let ask: Result<Ask, String> = get(&data, "ask")
        .dyn_into::<Uint8Array>()
        .map_err(|_| String::from("no request"))
        .and_then(|a| decode(&a.to_vec()));
    let ask = match ask {
        Ok(ask) => ask,
        Err(why) => {
            return post(
                id,
                &Answer::Failed {
                    why: format!("the worker could not read the request: {why}"),
                    trace: false,
                },
            )
        }
    };
    if let Some(answer) = router_config::answer(&ask) {
        return post(id, &answer);
    }
    let start = now_ms();
    SERVER.with(|s| {
        s.borrow().answer(&ask, &now_ms, &mut |answer| {
            // A run that is over in a blink has no progress worth a message.
            if matches!(answer, Answer::Progress { .. }) && now_ms() - start < QUIET_MS {
                return;
            }
            post(id, &answer);
        })
    });
}
