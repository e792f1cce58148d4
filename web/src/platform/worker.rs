//! Simulation off the main thread: every lab run goes to a Web Worker, so a
//! slider drag never waits for a simulation, and a long run (a trace replay, a
//! sweep) reports progress and can be cancelled.
//!
//! The worker is a wasm module of its own (the `worker` crate: sim-core's
//! registry, built for speed), which this page never links. The page fetches
//! and compiles it as soon as it starts ([`warm`]; `index.html` preloads its
//! files, so they download beside the page's own), starts it in a module
//! worker, and posts it the compiled module. Requests and answers are
//! `sim_core::labs::serve`'s [`Ask`] and [`Answer`] in postcard; the outcome
//! inside a [`Reply::Done`] is the lab's outcome in postcard, which the page
//! decodes into the lab's outcome type.
//!
//! Cancelling terminates the worker (a simulation cannot be interrupted from
//! outside) and starts a fresh one from the module already compiled; every
//! job in flight is answered with [`Reply::Cancelled`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Object, Reflect};
use sim_core::labs::serve::{self, Answer, Ask};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::platform::traces::TraceFile;

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

impl Job {
    /// The request the worker reads (the tours' tests hand it to a
    /// native server).
    pub fn ask(&self) -> Ask {
        let owned = |pairs: &Pairs| -> serve::OwnedPairs {
            pairs
                .iter()
                .map(|(k, v)| (String::from(*k), v.clone()))
                .collect()
        };
        let names = |v: &[&str]| v.iter().map(|n| String::from(*n)).collect();
        Ask::Run(serve::Job {
            lab: self.lab.into(),
            pairs: owned(&self.pairs),
            only: names(&self.only),
            record: names(&self.record),
            trace: self
                .trace
                .as_ref()
                .map(|(file, import)| (file.key, owned(import))),
        })
    }
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The outcome (the lab's outcome in postcard), and the milliseconds the
    /// worker computed.
    Done {
        /// The outcome's bytes.
        bytes: std::sync::Arc<[u8]>,
        /// Compute time in the worker.
        ms: f64,
    },
    /// An export's text.
    Text(String),
    /// A router configuration, read.
    Imported(sim_core::labs::serve::ConfigReport),
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

type OnProgress = Box<dyn Fn(u32, u32)>;
type OnDone = Box<dyn FnOnce(Reply)>;

/// A request in flight: its callbacks, and its lab (whose work drivers are
/// named if the worker dies under it).
struct InFlight {
    progress: OnProgress,
    done: Option<OnDone>,
    lab: String,
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
    /// The worker's module, fetched and compiled once per page.
    static MODULE: RefCell<Option<js_sys::Promise>> = const { RefCell::new(None) };
    static IN_FLIGHT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    static HOOKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Trace files the worker has parsed, as its last outcome said.
    static PARSES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Per lab, the parameters that drove its last run's work, as the
    /// worker said when it started it (kept across workers: a run the
    /// worker dies under names them).
    static DRIVERS: RefCell<Vec<(String, Vec<String>)>> = const { RefCell::new(Vec::new()) };
}

/// Trace files the simulation worker has parsed so far (its last answer's
/// count; tests check that a change of settings does not parse again).
pub fn trace_parses() -> u32 {
    PARSES.with(std::cell::Cell::get)
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

/// The absolute URL of the worker's file `which` (`glue` or `wasm`), from
/// the `<link data-worker>` the build put in `index.html`.
fn worker_file(which: &str) -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let href = doc
        .query_selector(&format!("link[data-worker={which}]"))
        .ok()??
        .get_attribute("href")?;
    web_sys::Url::new_with_base(&href, &doc.base_uri().ok()??)
        .ok()
        .map(|u| u.href())
}

/// Start fetching and compiling the worker's module, once per page: called
/// as the page starts, so the simulation is ready by the time the first
/// view asks for a run.
pub fn warm() {
    let _ = module();
}

/// The worker's compiled module (a promise; `None` when the page has no
/// worker file to fetch).
fn module() -> Option<js_sys::Promise> {
    MODULE.with(|m| {
        if let Some(p) = m.borrow().as_ref() {
            return Some(p.clone());
        }
        // The static shell started the compile as the HTML was read
        // (assets/shell.js); without it (a page with no shell), start it here.
        let window = web_sys::window()?;
        let started = Reflect::get(&window, &JsValue::from_str("lblabWorkerModule"))
            .ok()
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
        let compiled = match started {
            Some(p) => p,
            None => {
                let wasm = worker_file("wasm")?;
                let response = window.fetch_with_str(&wasm);
                js_sys::WebAssembly::compile_streaming(&response)
            }
        };
        *m.borrow_mut() = Some(compiled.clone());
        Some(compiled)
    })
}

fn spawn() -> Result<Pool, String> {
    let glue = worker_file("glue").ok_or("cannot find the simulation's module")?;
    let boot = worker_file("boot").ok_or("cannot find the simulation's first script")?;
    let module = module().ok_or("cannot find the simulation's wasm")?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&boot, &options)
        .map_err(|_| "the browser refused to start a worker")?;
    terminate_on_pagehide();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_message);
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // A worker that dies (out of memory, a trap, a module that would not
    // compile) answers nothing again: every job it had fails with a
    // message, and the next job starts a fresh one.
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|e: web_sys::Event| {
        e.prevent_default();
        died(get(&e, "message").as_string().unwrap_or_default());
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    worker.set_onmessageerror(Some(on_error.as_ref().unchecked_ref()));
    // The module goes to the worker once compiled; requests posted before
    // then wait in the worker's queue.
    let target = worker.clone();
    let send = Closure::<dyn FnMut(JsValue)>::new(move |m: JsValue| {
        let boot = Object::new();
        let _ = Reflect::set(&boot, &"glue".into(), &JsValue::from_str(&glue));
        let _ = Reflect::set(&boot, &"module".into(), &m);
        let msg = Object::new();
        let _ = Reflect::set(&msg, &"boot".into(), &boot);
        let _ = target.post_message(&msg);
    });
    let failed = Closure::<dyn FnMut(JsValue)>::new(|e: JsValue| {
        let why = Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| String::from("the simulation's wasm could not be loaded"));
        died(why);
    });
    let _ = module.then2(&send, &failed);
    send.forget();
    failed.forget();
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
        let drivers = DRIVERS.with(|d| {
            d.borrow()
                .iter()
                .find(|(lab, _)| *lab == job.lab)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        });
        let why = format!(
            "the simulation stopped before it finished: the browser's worker ran out of memory or failed ({}). {}Change a setting to run again.",
            if detail.is_empty() { "no detail given".to_string() } else { crate::platform::clip(&detail) },
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

fn get(o: &JsValue, key: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn on_message(e: web_sys::MessageEvent) {
    let data = e.data();
    let id = get(&data, "id").as_f64().unwrap_or(0.0) as u32;
    let answer: Result<Answer, String> = get(&data, "answer")
        .dyn_into::<js_sys::Uint8Array>()
        .map_err(|_| String::from("no answer"))
        .and_then(|a| sim_core::labs::decode(&a.to_vec()));
    let reply = match answer {
        Ok(Answer::Started { drivers }) => {
            let lab = POOL.with(|p| {
                p.borrow()
                    .as_ref()
                    .and_then(|p| p.jobs.get(&id))
                    .map(|j| j.lab.clone())
            });
            if let Some(lab) = lab {
                DRIVERS.with(|d| {
                    let mut d = d.borrow_mut();
                    d.retain(|(l, _)| *l != lab);
                    d.push((lab, drivers));
                });
            }
            return;
        }
        Ok(Answer::Progress { done, total }) => {
            POOL.with(|p| {
                if let Some(job) = p.borrow().as_ref().and_then(|p| p.jobs.get(&id)) {
                    (job.progress)(done, total);
                }
            });
            return;
        }
        Ok(Answer::Done { bytes, ms, parses }) => {
            PARSES.with(|p| p.set(p.get().max(parses)));
            Reply::Done {
                bytes: bytes.into(),
                ms,
            }
        }
        Ok(Answer::Text(text)) => Reply::Text(text),
        Ok(Answer::Imported(report)) => Reply::Imported(*report),
        Ok(Answer::Failed { why, trace }) => Reply::Failed(Failure { why, trace }),
        Err(why) => Reply::Failed(Failure::other(format!(
            "cannot read the worker's answer: {why}"
        ))),
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

/// Run `job` in the worker; `progress` hears `(done, total)` of long runs and
/// `done` the outcome. Returns the job's id.
pub fn submit(
    job: &Job,
    progress: impl Fn(u32, u32) + 'static,
    done: impl FnOnce(Reply) + 'static,
) -> u32 {
    send(
        &job.ask(),
        job.trace.as_ref().map(|(file, _)| *file),
        Box::new(progress),
        Box::new(done),
    )
}

/// Ask the worker anything (a validation scenario, an export): `progress`
/// hears `(done, total)`, `done` the reply.
pub fn ask(
    ask: &Ask,
    progress: impl Fn(u32, u32) + 'static,
    done: impl FnOnce(Reply) + 'static,
) -> u32 {
    send(ask, None, Box::new(progress), Box::new(done))
}

/// The outcome of `job` as the CLI's JSON (or CSV), written by the worker,
/// which holds the writers the page leaves out: it runs the job again.
pub fn export(job: &Job, csv: bool, done: impl FnOnce(Result<String, String>) + 'static) {
    let Ask::Run(run) = job.ask() else {
        return done(Err(String::from("not a lab run")));
    };
    let request = Ask::Export { job: run, csv };
    let trace = job.trace.as_ref().map(|(file, _)| *file);
    let progress: OnProgress = Box::new(|_, _| {});
    send(
        &request,
        trace,
        progress,
        Box::new(move |reply| {
            done(match reply {
                Reply::Text(text) => Ok(text),
                Reply::Failed(f) => Err(f.why),
                Reply::Cancelled => Err(String::from("cancelled")),
                Reply::Done { .. } | Reply::Imported(_) => {
                    Err(String::from("the worker answered with something else"))
                }
            })
        }),
    );
}

fn send(ask: &Ask, trace: Option<TraceFile>, progress: OnProgress, done: OnDone) -> u32 {
    let done = Rc::new(RefCell::new(Some(done)));
    let kept = Rc::clone(&done);
    let sent = POOL.with(|p| -> Result<u32, String> {
        let mut slot = p.borrow_mut();
        if slot.is_none() {
            *slot = Some(spawn()?);
        }
        let pool = slot.as_mut().expect("just spawned");
        let id = pool.next;
        pool.next += 1;
        let bytes = sim_core::labs::encode(ask)?;
        let msg = Object::new();
        let set = |k: &str, v: &JsValue| {
            let _ = Reflect::set(&msg, &JsValue::from_str(k), v);
        };
        set("id", &JsValue::from(id));
        set("ask", &js_sys::Uint8Array::from(bytes.as_slice()));
        if let Some(file) = trace {
            // The file's handle crosses once per worker (the worker reads
            // and parses it; the page never holds its text); later jobs
            // name its key.
            if pool.trace != Some(file) {
                let blob = crate::platform::traces::blob(file)
                    .ok_or("the trace file is no longer loaded; load it again")?;
                set("key", &JsValue::from(file.key));
                set("blob", &blob);
                pool.trace = Some(file);
            }
        }
        pool.worker
            .post_message(&msg)
            .map_err(|_| String::from("cannot post to the worker"))?;
        pool.jobs.insert(
            id,
            InFlight {
                progress,
                done: kept.borrow_mut().take(),
                lab: match ask {
                    Ask::Run(job) | Ask::Export { job, .. } => job.lab.clone(),
                    Ask::ImportConfig { lab, .. } | Ask::ExportConfig { lab, .. } => lab.clone(),
                    Ask::Validate { .. } => String::new(),
                },
            },
        );
        busy(1);
        Ok(id)
    });
    match sent {
        Ok(id) => id,
        Err(why) => {
            // No worker here (or it would not start): say so as a failure.
            if let Some(done) = done.borrow_mut().take() {
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
