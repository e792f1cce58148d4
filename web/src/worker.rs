//! Simulation off the main thread: every lab run goes to a Web Worker, so a
//! slider drag never waits for a simulation, and a long run (a trace replay, a
//! sweep) reports progress and can be cancelled.
//!
//! The worker is this same wasm module, loaded a second time inside a module
//! worker (the browser reuses the compiled module it already fetched, so there
//! is no second download): its start function sees no `window` and does not
//! mount the app, and [`lblab_worker_message`] serves requests through
//! sim-core's lab registry, exactly as the CLI does. Requests and replies are
//! plain JS objects; the outcome travels twice, as the registry's JSON (which
//! the page publishes for the exports) and in `sim_core::wire`'s encoding
//! (which the page decodes into the lab's outcome type).
//!
//! Cancelling terminates the worker (a simulation cannot be interrupted from
//! outside) and starts a fresh one; every job in flight is answered with
//! [`Reply::Cancelled`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::{Object, Reflect};
use sim_core::labs::{self, RunRequest, TraceInput};
use sim_core::params;
use sim_core::workload::trace::ImportOptions;

use crate::traces::TraceFile;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Parameter pairs as the registry takes them: `(key, canonical text)`.
pub type Pairs = Vec<(&'static str, String)>;

/// What a page asks the worker to run.
#[derive(Clone, Debug)]
pub struct Job {
    /// Lab id (`sim_core::labs::LABS`).
    pub lab: &'static str,
    /// Every parameter as `(key, canonical text)`.
    pub pairs: Pairs,
    /// Names of the focus items to run (empty: all of them).
    pub only: Vec<&'static str>,
    /// A trace to replay: its file and the import options' pairs.
    pub trace: Option<(TraceFile, Pairs)>,
    /// Names of the focus items whose step-by-step timeline to record as
    /// well (see `sim_core::labs::Input::record`).
    pub record: Vec<&'static str>,
}

impl PartialEq for Job {
    /// Two jobs are the same run: same lab, settings, items and trace (a
    /// trace compares by its handle, never its contents).
    fn eq(&self, other: &Job) -> bool {
        self.lab == other.lab
            && self.pairs == other.pairs
            && self.only == other.only
            && self.record == other.record
            && self.trace == other.trace
    }
}

/// How a job ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The outcome, and the milliseconds the worker computed.
    Done {
        /// The outcome's values ([`sim_core::wire::encode_values`]): what
        /// the page reads back (an export writes the decoded outcome as
        /// `lblab <lab> --json`'s text, [`sim_core::wire::json_of`]).
        bytes: Arc<[u8]>,
        /// Compute time in the worker.
        ms: f64,
    },
    /// The run refused its input (a parameter, a trace) or the worker died.
    Failed(Failure),
    /// Cancelled before it finished.
    Cancelled,
}

/// Why a job failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// One line for the page.
    pub why: String,
    /// The trace was refused (the page's trace panel says so, not only the
    /// error line, so that the two never disagree).
    pub trace: bool,
}

impl Failure {
    /// A failure that is not about the trace.
    pub fn other(why: String) -> Failure {
        Failure { why, trace: false }
    }
}

/// A trace file's text as the worker read it, or why it could not.
type TraceText = Result<Rc<str>, String>;

type OnProgress = Box<dyn Fn(u32, u32)>;
type OnDone = Box<dyn FnOnce(Reply)>;

/// A job in flight: its callbacks, and what it runs (for a message if the
/// worker dies under it).
struct InFlight {
    progress: OnProgress,
    done: Option<OnDone>,
    lab: &'static str,
    pairs: Pairs,
}

struct Pool {
    worker: web_sys::Worker,
    next: u32,
    jobs: HashMap<u32, InFlight>,
    /// The trace this worker holds (its file is sent once; later jobs name it).
    trace: Option<TraceFile>,
    // Kept alive as long as the worker is.
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
    /// In the worker: the trace the page sent last (its key, and its text or
    /// why it cannot be read).
    static HELD: RefCell<Option<(u32, TraceText)>> = const { RefCell::new(None) };
    static IN_FLIGHT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    static HOOKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Terminate the worker as the page goes away. The browser would do it in its
/// own time, but each instance holds a wasm memory whose address-space
/// reservation is large; a reader (or a test) clicking through many labs in
/// one tab ran out of it while old workers lingered.
fn terminate_on_pagehide() {
    if HOOKED.with(|h| h.replace(true)) {
        return;
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    let on_hide = Closure::<dyn FnMut()>::new(|| {
        if let Some(pool) = POOL.with(|p| p.borrow_mut().take()) {
            pool.worker.terminate();
        }
    });
    let _ = window.add_event_listener_with_callback("pagehide", on_hide.as_ref().unchecked_ref());
    // One listener for the document's lifetime.
    on_hide.forget();
}

/// Mark the document busy while any job is in flight (`<html data-busy>`), so
/// tests and scripts can wait for the page to settle.
fn busy(delta: i32) {
    let n = IN_FLIGHT.with(|c| {
        let n = (c.get() as i32 + delta).max(0) as u32;
        c.set(n);
        n
    });
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = if n > 0 {
            root.set_attribute("data-busy", "")
        } else {
            root.remove_attribute("data-busy")
        };
    }
}

/// The absolute URL of the `link` matching `selector` (Trunk's preload of the
/// app's JS glue and wasm).
fn link_href(doc: &web_sys::Document, selector: &str) -> Option<String> {
    let href = doc.query_selector(selector).ok()??.get_attribute("href")?;
    web_sys::Url::new_with_base(&href, &doc.base_uri().ok()??)
        .ok()
        .map(|u| u.href())
}

/// `s` as a JavaScript string literal. Written out rather than with `{:?}`:
/// Rust's debug quoting would bring Unicode's printable-character tables
/// into the bundle for two URLs.
fn js_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The bootstrap of the module worker: load this app's module, initialise it
/// with its wasm, then hand every message (queued ones first) to
/// `lblab_worker_message`.
fn bootstrap(glue: &str, wasm: &str) -> String {
    let (glue, wasm) = (js_string(glue), js_string(wasm));
    format!(
        "const queue = []; let handle = null;\n\
         self.onmessage = (e) => (handle ? handle(e.data) : queue.push(e.data));\n\
         const m = await import({glue});\n\
         await m.default({{ module_or_path: {wasm} }});\n\
         handle = (d) => m.lblab_worker_message(d);\n\
         for (const d of queue.splice(0)) handle(d);\n"
    )
}

fn spawn() -> Result<Pool, String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let glue = link_href(&doc, "link[rel=modulepreload]").ok_or("cannot find the app's module")?;
    let wasm =
        link_href(&doc, "link[rel=preload][as=fetch]").ok_or("cannot find the app's wasm")?;
    let parts = js_sys::Array::of1(&JsValue::from_str(&bootstrap(&glue, &wasm)));
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag)
        .map_err(|_| "cannot build the worker script")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "no object URL")?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &options);
    // The worker has its script once constructed; the URL is not needed again.
    let _ = web_sys::Url::revoke_object_url(&url);
    let worker = worker.map_err(|_| "the browser refused to start a worker")?;
    terminate_on_pagehide();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_message);
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // A worker that dies (out of memory, a trap) answers nothing again: every
    // job it had fails with a message, and the next job starts a fresh one.
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|e: web_sys::Event| {
        e.prevent_default();
        died(get(&e, "message").as_string().unwrap_or_default());
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    worker.set_onmessageerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Pool {
        worker,
        next: 1,
        jobs: HashMap::new(),
        trace: None,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// The worker stopped under its jobs: drop it and fail each job, saying what
/// to lower (the parameters that drive that lab's work).
fn died(detail: String) {
    let Some(mut pool) = POOL.with(|p| p.borrow_mut().take()) else {
        return;
    };
    pool.worker.terminate();
    let jobs: Vec<InFlight> = pool.jobs.drain().map(|(_, j)| j).collect();
    for job in jobs {
        let pairs: Vec<(&str, &str)> = job.pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let drivers: Vec<&str> = labs::find(job.lab)
            .and_then(|l| (l.work)(&RunRequest::of(&pairs)).ok())
            .map(|w| {
                w.drivers
                    .iter()
                    .map(|d| d.trim_start_matches('+'))
                    .collect()
            })
            .unwrap_or_default();
        let why = format!(
            "the simulation stopped before it finished: the browser's worker ran out of memory or failed ({}). {}Change a setting to run again.",
            if detail.is_empty() { "no detail given".to_string() } else { crate::format::clip(&detail) },
            if drivers.is_empty() {
                String::new()
            } else {
                format!("Lower {} and ", drivers.join(", "))
            }
        );
        if let Some(done) = job.done {
            done(Reply::Failed(Failure::other(why)));
            busy(-1);
        }
    }
}

/// A trace file's text, read in the worker, with the CLI's cap and UTF-8
/// check (`sim_core::workload::trace::text_of`).
fn read_blob(blob: &web_sys::Blob) -> TraceText {
    if blob.size() > sim_core::workload::trace::MAX_TRACE_BYTES as f64 {
        return Err(sim_core::workload::trace::too_big(Some(blob.size() as usize)).0);
    }
    let reader = web_sys::FileReaderSync::new().map_err(|_| "the file cannot be read here")?;
    let buffer = reader
        .read_as_array_buffer(blob)
        .map_err(|_| "the file cannot be read")?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    sim_core::workload::trace::text_of(bytes)
        .map(Rc::from)
        .map_err(|e| e.0)
}

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn on_message(e: web_sys::MessageEvent) {
    let data = e.data();
    let id = get(&data, "id").as_f64().unwrap_or(0.0) as u32;
    let kind = get(&data, "kind").as_string().unwrap_or_default();
    if kind == "progress" {
        let (done, total) = (get(&data, "done").as_f64(), get(&data, "total").as_f64());
        POOL.with(|p| {
            if let Some(job) = p.borrow().as_ref().and_then(|p| p.jobs.get(&id)) {
                (job.progress)(done.unwrap_or(0.0) as u32, total.unwrap_or(0.0) as u32);
            }
        });
        return;
    }
    let reply = match kind.as_str() {
        "done" => Reply::Done {
            bytes: get(&data, "bytes")
                .dyn_into::<js_sys::Uint8Array>()
                .map(|a| a.to_vec())
                .unwrap_or_default()
                .into(),
            ms: get(&data, "ms").as_f64().unwrap_or(f64::NAN),
        },
        _ => Reply::Failed(Failure {
            why: get(&data, "message").as_string().unwrap_or_default(),
            trace: get(&data, "trace").as_bool() == Some(true),
        }),
    };
    // Take the handler out before calling it: it may submit the next job.
    let done = POOL.with(|p| {
        p.borrow_mut()
            .as_mut()
            .and_then(|p| p.jobs.remove(&id))
            .and_then(|j| j.done)
    });
    if let Some(done) = done {
        // The handler may submit the next job before this one stops counting,
        // so the page never looks settled between a job and its successor.
        done(reply);
        busy(-1);
    }
}

fn pairs_js(pairs: &[(&'static str, String)]) -> js_sys::Array {
    pairs
        .iter()
        .map(|(k, v)| js_sys::Array::of2(&JsValue::from_str(k), &JsValue::from_str(v)))
        .collect()
}

/// Run `job` in the worker; `progress` hears `(done, total)` of long runs and
/// `done` the outcome. Returns the job's id.
pub fn submit(
    job: &Job,
    progress: impl Fn(u32, u32) + 'static,
    done: impl FnOnce(Reply) + 'static,
) -> u32 {
    let mut done: Option<OnDone> = Some(Box::new(done));
    let sent = POOL.with(|p| -> Result<u32, String> {
        let mut slot = p.borrow_mut();
        if slot.is_none() {
            *slot = Some(spawn()?);
        }
        let pool = slot.as_mut().expect("just spawned");
        let id = pool.next;
        pool.next += 1;
        let msg = Object::new();
        let set = |k: &str, v: &JsValue| {
            let _ = Reflect::set(&msg, &JsValue::from_str(k), v);
        };
        set("id", &JsValue::from(id));
        set("lab", &JsValue::from_str(job.lab));
        set("pairs", &pairs_js(&job.pairs));
        let names = |v: &[&str]| {
            v.iter()
                .map(|n| JsValue::from_str(n))
                .collect::<js_sys::Array>()
        };
        set("record", &names(&job.record));
        set("only", &names(&job.only));
        if let Some((file, import)) = &job.trace {
            // The file's handle crosses once per worker (the worker reads
            // it; the page never holds its text); later jobs name its key.
            set("trace_key", &JsValue::from(file.key));
            if pool.trace != Some(*file) {
                let blob = crate::traces::blob(*file)
                    .ok_or("the trace file is no longer loaded; load it again")?;
                set("trace_blob", &blob);
                pool.trace = Some(*file);
            }
            set("import", &pairs_js(import));
        }
        pool.worker
            .post_message(&msg)
            .map_err(|_| String::from("cannot post to the worker"))?;
        pool.jobs.insert(
            id,
            InFlight {
                progress: Box::new(progress),
                done: done.take(),
                lab: job.lab,
                pairs: job.pairs.clone(),
            },
        );
        busy(1);
        Ok(id)
    });
    match sent {
        Ok(id) => id,
        Err(why) => {
            // No worker here (or it would not start): say so as a failure.
            if let Some(done) = done {
                done(Reply::Failed(Failure::other(format!(
                    "cannot run the simulation: {why}"
                ))));
            }
            0
        }
    }
}

/// Stop everything the worker is running: it is terminated, each job in
/// flight hears [`Reply::Cancelled`], and the next job starts a fresh worker.
pub fn cancel_all() {
    let pool = POOL.with(|p| p.borrow_mut().take());
    if let Some(mut pool) = pool {
        pool.worker.terminate();
        let jobs: Vec<InFlight> = pool.jobs.drain().map(|(_, j)| j).collect();
        for job in jobs {
            if let Some(done) = job.done {
                done(Reply::Cancelled);
                busy(-1);
            }
        }
    }
}

// ---- The worker side ----

fn post(msg: &Object) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let _ = scope.post_message(msg);
}

fn message(id: u32, kind: &str) -> Object {
    let msg = Object::new();
    let _ = Reflect::set(&msg, &"id".into(), &JsValue::from(id));
    let _ = Reflect::set(&msg, &"kind".into(), &JsValue::from_str(kind));
    msg
}

fn pairs_from(v: &JsValue) -> Vec<(String, String)> {
    if !js_sys::Array::is_array(v) {
        return Vec::new();
    }
    js_sys::Array::from(v)
        .iter()
        .map(|p| {
            let p = js_sys::Array::from(&p);
            (
                p.get(0).as_string().unwrap_or_default(),
                p.get(1).as_string().unwrap_or_default(),
            )
        })
        .collect()
}

/// How long a run goes before it reports progress, in ms.
const QUIET_MS: f64 = 100.0;

/// The worker's entry point: run one request through the lab registry and
/// post its progress and its outcome (or why it failed) back to the page.
#[wasm_bindgen]
pub fn lblab_worker_message(data: JsValue) {
    let id = get(&data, "id").as_f64().unwrap_or(0.0) as u32;
    let lab_id = get(&data, "lab").as_string().unwrap_or_default();
    let pairs = pairs_from(&get(&data, "pairs"));
    let names = |key: &str| -> Vec<String> {
        let v = get(&data, key);
        if js_sys::Array::is_array(&v) {
            js_sys::Array::from(&v)
                .iter()
                .filter_map(|n| n.as_string())
                .collect()
        } else {
            Vec::new()
        }
    };
    let (only, record) = (names("only"), names("record"));
    let only: Vec<&str> = only.iter().map(String::as_str).collect();
    let record: Vec<&str> = record.iter().map(String::as_str).collect();
    // The trace: a file sent with this job (read here, off the page's
    // thread), or the one this worker already read.
    let key = get(&data, "trace_key").as_f64().map(|k| k as u32);
    if let Ok(blob) = get(&data, "trace_blob").dyn_into::<web_sys::Blob>() {
        let text = read_blob(&blob);
        HELD.with(|h| *h.borrow_mut() = key.map(|k| (k, text)));
    }
    let held = HELD.with(|h| match (key, h.borrow().as_ref()) {
        (Some(k), Some((held, text))) if *held == k => Some(text.clone()),
        (Some(_), _) => Some(Err(String::from("the trace file was not received"))),
        (None, _) => None,
    });
    let import_pairs = pairs_from(&get(&data, "import"));
    let fail = |why: String, trace: bool| {
        let msg = message(id, "failed");
        let _ = Reflect::set(&msg, &"message".into(), &JsValue::from_str(&why));
        let _ = Reflect::set(&msg, &"trace".into(), &JsValue::from_bool(trace));
        post(&msg);
    };
    if lab_id == "validate" {
        return validate(id, &pairs, &fail);
    }
    let Some(lab) = labs::find(&lab_id) else {
        return fail(format!("no lab '{lab_id}'"), false);
    };
    let trace = match held {
        Some(Err(why)) => return fail(format!("trace: {why}"), true),
        Some(Ok(text)) => Some(text),
        None => None,
    };
    let (import, errors) = params::from_pairs::<ImportOptions>(
        import_pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    );
    if let Some(e) = errors.first() {
        return fail(e.to_string(), true);
    }
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let start = crate::clock::now_ms_anywhere();
    // A run that is over in a blink has no progress worth a message (the
    // page shows the bar only after a third of a second anyway).
    let progress = |done: u32, total: u32| {
        if crate::clock::now_ms_anywhere() - start < QUIET_MS {
            return;
        }
        let msg = message(id, "progress");
        let _ = Reflect::set(&msg, &"done".into(), &JsValue::from(done));
        let _ = Reflect::set(&msg, &"total".into(), &JsValue::from(total));
        post(&msg);
    };
    let end = std::cell::Cell::new(f64::NAN);
    let computed = || end.set(crate::clock::now_ms_anywhere());
    let request = RunRequest {
        pairs: &pairs,
        only: &only,
        trace: trace.as_deref().map(|text| TraceInput {
            text,
            options: &import,
        }),
        record: &record,
        progress: Some(&progress),
        computed: Some(&computed),
    };
    let out = (lab.run)(&request);
    // The simulation's own time (writing the JSON is not part of it).
    let ms = end.get() - start;
    match out {
        Ok(labs::Written { bytes }) => {
            let msg = message(id, "done");
            let _ = Reflect::set(
                &msg,
                &"bytes".into(),
                &js_sys::Uint8Array::from(bytes.as_slice()),
            );
            let _ = Reflect::set(&msg, &"ms".into(), &JsValue::from(ms));
            post(&msg);
        }
        Err(e) => {
            let trace = matches!(e, sim_core::labs::RunError::Trace(_));
            fail(e.to_string(), trace)
        }
    }
}

/// The validation page's job (`crate::validate`): one published scenario
/// over seeds 1–N (`scenario`, `seeds` ≤ 20), progress after every seed, and
/// every seed's figures packed as sim-core's validation packs them.
fn validate(id: u32, pairs: &[(String, String)], fail: &dyn Fn(String, bool)) {
    use sim_core::labs::validation;
    let value = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let Some(scenario) = value("scenario").and_then(validation::scenarios::find) else {
        return fail(String::from("no such published scenario"), false);
    };
    let seeds: u32 = value("seeds")
        .and_then(|v| v.parse().ok())
        .filter(|n| (1..=20).contains(n))
        .unwrap_or(20);
    let start = crate::clock::now_ms_anywhere();
    let mut all = Vec::new();
    for seed in 1..=seeds {
        match validation::measure(scenario, u64::from(seed)) {
            Ok(figures) => all.extend(figures),
            Err(e) => return fail(e.to_string(), false),
        }
        let msg = message(id, "progress");
        let _ = Reflect::set(&msg, &"done".into(), &JsValue::from(seed));
        let _ = Reflect::set(&msg, &"total".into(), &JsValue::from(seeds));
        post(&msg);
    }
    let msg = message(id, "done");
    let bytes = validation::pack(&all);
    let _ = Reflect::set(
        &msg,
        &"bytes".into(),
        &js_sys::Uint8Array::from(bytes.as_slice()),
    );
    let _ = Reflect::set(
        &msg,
        &"ms".into(),
        &JsValue::from(crate::clock::now_ms_anywhere() - start),
    );
    post(&msg);
}

#[cfg(test)]
mod quoting {
    #[test]
    fn urls_are_quoted_as_javascript_strings() {
        assert_eq!(super::js_string("./web-1.js"), "\"./web-1.js\"");
        assert_eq!(super::js_string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\u000ad\"");
    }
}
