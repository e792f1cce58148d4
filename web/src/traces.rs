//! Traces on the page: the bundled excerpts (fetched from `traces/` beside the
//! app), files a reader picks or drops, and what the URL says about them.
//!
//! Only a bundled excerpt can be part of a link (`trace=<id>`); a dropped file
//! stays in the page, and the page says so. Parsing and replay happen in the
//! worker through sim-core (`workload::trace`), never here.

use std::sync::Arc;

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
        /// The whole text.
        text: Arc<str>,
        /// Which excerpt, if it is a bundled one (then it is in the URL).
        bundled: Option<&'static str>,
    },
    /// Reading failed; the generator is used.
    Failed(String),
}

impl TraceState {
    /// The text to replay, if a trace is loaded.
    pub fn text(&self) -> Option<Arc<str>> {
        match self {
            TraceState::Loaded { text, .. } => Some(Arc::clone(text)),
            _ => None,
        }
    }
}

/// Engine settings applied when a reader loads a trace (sim-core owns them,
/// so the CLI bench and the tests replay with the same engine).
pub use sim_core::labs::routing::TRACE_ENGINE;

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
            let text = resp.text().map_err(|_| "no body")?;
            let text = JsFuture::from(text).await.map_err(|_| "cannot be read")?;
            text.as_string().ok_or_else(|| "not text".to_string())
        }
        .await;
        state.set(match got {
            Ok(t) => TraceState::Loaded {
                name: b.title.to_string(),
                text: t.into(),
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
    state.set(TraceState::Loading(name.clone()));
    wasm_bindgen_futures::spawn_local(async move {
        let text = JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|t| t.as_string());
        state.set(match text {
            Some(t) => TraceState::Loaded {
                name,
                text: t.into(),
                bundled: None,
            },
            None => TraceState::Failed(format!("{name} cannot be read as text")),
        });
    });
}
