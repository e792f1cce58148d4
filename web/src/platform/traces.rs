//! Traces on the page: the bundled excerpts (fetched from `traces/` beside the
//! app), files a reader picks or drops, and what the URL says about them.
//!
//! Only a bundled excerpt can be part of a link (`trace=<id>`); a dropped file
//! stays in the page, and the page says so. Reading, parsing and replay happen
//! in the worker through sim-core (`workload::trace`), never here: the page
//! holds the file as a `Blob` (a handle, not its text) and hands that handle
//! to the worker, which reads it. A trace of tens of megabytes so costs the
//! page's thread nothing when it loads and nothing when a setting changes.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// One bundled excerpt (the files and their licences are in `assets/traces/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bundled {
    /// The `trace=` URL value.
    pub id: &'static str,
    /// File name under `traces/`.
    pub file: &'static str,
    /// Button title.
    pub title: &'static str,
    /// One line on what it is.
    pub note: &'static str,
}

/// Every bundled excerpt.
pub const BUNDLED: &[Bundled] = &[
    Bundled {
        id: "mooncake-conversation",
        file: "mooncake_conversation_first2000.jsonl",
        title: "Mooncake conversations",
        note: "First 2,000 requests of Mooncake's real chat trace (Apache-2.0): long prompts, shared history.",
    },
    Bundled {
        id: "mooncake-synthetic",
        file: "mooncake_synthetic_first500.jsonl",
        title: "Mooncake synthetic",
        note: "First 500 requests of Mooncake's synthetic trace (Apache-2.0): Poisson arrivals, very long prompts.",
    },
    Bundled {
        id: "azure-code",
        file: "azure_code_first500.csv",
        title: "Azure code",
        note: "First 500 requests of Azure's 2023 code-completion trace (CC-BY-4.0, Splitwise): no prefix data.",
    },
    Bundled {
        id: "azure-conv",
        file: "azure_conv_first500.csv",
        title: "Azure conversation",
        note: "First 500 requests of Azure's 2023 conversation trace (CC-BY-4.0, Splitwise): no prefix data.",
    },
];

/// The bundled excerpt with URL value `id`.
pub fn bundled(id: &str) -> Option<&'static Bundled> {
    BUNDLED.iter().find(|b| b.id == id)
}

/// Largest file the page reads (the importer's own cap applies too).
pub const MAX_FILE_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// A loaded trace file, as the page's state holds it: a key to its `Blob`
/// (kept below) and its size. Two handles are the same trace when their keys
/// are, so comparing jobs never touches the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceFile {
    /// Key of the blob in this page's store.
    pub key: u32,
}

thread_local! {
    /// The blobs behind [`TraceFile`] keys: the latest two (a job for the
    /// one before may still be on its way to the worker).
    static FILES: RefCell<Vec<(u32, web_sys::Blob)>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// Keep `blob` and return its handle.
fn keep(blob: web_sys::Blob) -> TraceFile {
    let key = NEXT.with(|n| {
        let k = n.get();
        n.set(k + 1);
        k
    });
    FILES.with(|f| {
        let mut f = f.borrow_mut();
        f.push((key, blob));
        let extra = f.len().saturating_sub(2);
        f.drain(..extra);
    });
    TraceFile { key }
}

/// The blob behind `file`, if it is still kept.
pub fn blob(file: TraceFile) -> Option<web_sys::Blob> {
    FILES.with(|f| {
        f.borrow()
            .iter()
            .find(|(k, _)| *k == file.key)
            .map(|(_, b)| b.clone())
    })
}

/// Where a page's requests come from.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceState {
    /// The lab's own generator.
    Generated,
    /// A trace is being fetched or read.
    Loading(String),
    /// A trace is in memory.
    Loaded {
        /// File name, for the page.
        name: String,
        /// The file (read by the worker).
        file: TraceFile,
        /// Which excerpt, if it is a bundled one (then it is in the URL).
        bundled: Option<&'static str>,
    },
    /// Reading failed; the generator is used.
    Failed(String),
}

impl TraceState {
    /// The file to replay, if a trace is loaded.
    pub fn file(&self) -> Option<TraceFile> {
        match self {
            TraceState::Loaded { file, .. } => Some(*file),
            _ => None,
        }
    }
}

/// Fetch bundled excerpt `b` into `state`.
pub fn fetch(b: &'static Bundled, state: RwSignal<TraceState>) {
    state.set(TraceState::Loading(b.file.to_string()));
    wasm_bindgen_futures::spawn_local(async move {
        let got = async {
            let window = web_sys::window().ok_or("no window")?;
            let resp = JsFuture::from(window.fetch_with_str(&format!("traces/{}", b.file)))
                .await
                .map_err(|_| "cannot be fetched".to_string())?;
            let resp: web_sys::Response = resp.dyn_into().map_err(|_| "no response")?;
            if !resp.ok() {
                return Err(format!("HTTP {}", resp.status()));
            }
            let blob = resp.blob().map_err(|_| "no body")?;
            let blob = JsFuture::from(blob).await.map_err(|_| "cannot be read")?;
            blob.dyn_into::<web_sys::Blob>()
                .map_err(|_| "not a file".to_string())
        }
        .await;
        state.set(match got {
            Ok(blob) => TraceState::Loaded {
                name: b.title.to_string(),
                file: keep(blob),
                bundled: Some(b.id),
            },
            Err(why) => TraceState::Failed(format!("{}: {why}", b.file)),
        });
    });
}

/// Read a file the reader picked or dropped into `state`.
pub fn read_file(file: web_sys::File, state: RwSignal<TraceState>) {
    let name = file.name();
    if file.size() > MAX_FILE_BYTES {
        state.set(TraceState::Failed(format!(
            "{name} is {:.1} MB; files up to {} MB are read",
            file.size() / 1.0e6,
            MAX_FILE_BYTES as u64 / (1024 * 1024)
        )));
        return;
    }
    // A File is a Blob: the worker reads it (as UTF-8 text, like the CLI).
    state.set(TraceState::Loaded {
        name,
        file: keep(file.into()),
        bundled: None,
    });
}
