//! Where a lab's requests come from: its generator, a bundled excerpt of a
//! public trace (one click), or a file the reader picks or drops. With a trace
//! loaded, the import controls (time scale, window, limit, compression) follow,
//! with what the import read and skipped.

use std::sync::Arc;

use leptos::prelude::*;
use sim_core::params::Configurable;
use sim_core::workload::trace::ImportOptions;
use wasm_bindgen::JsCast;

use super::{ControlSpec, Controls, Getter, Setter};
use crate::platform::traces::{self, TraceState, BUNDLED};

/// The controls of the import options.
fn import_controls(import: RwSignal<ImportOptions>) -> (Vec<ControlSpec>, Getter, Setter) {
    let specs = ControlSpec::for_table(&ImportOptions::specs());
    let get: Getter = Arc::new(move |key: &str| {
        ImportOptions::param(key)
            .map(|p| import.with(|o| p.get_text(o)))
            .unwrap_or_default()
    });
    let set: Setter = Arc::new(move |key: &str, value: &str| {
        let Some(p) = ImportOptions::param(key) else {
            return Ok(());
        };
        let mut next = import.get_untracked();
        p.set_text(&mut next, value)
            .map_err(|e| format!("{} {}", e.key, e.problem))?;
        import.set(next);
        Ok(())
    });
    (specs, get, set)
}

/// The line saying where the requests come from.
fn source_line(state: &TraceState, summary: Option<String>, refused: Option<String>) -> AnyView {
    let plain = |text: String| view! { <p class="small" id="trace-status">{text}</p> }.into_any();
    let alert = |text: String| {
        view! { <p class="small error" id="trace-status" role="alert">{text}</p> }.into_any()
    };
    match state {
        TraceState::Generated => {
            plain("Requests come from the generator (the settings above).".into())
        }
        TraceState::Loading(name) => plain(format!("Loading {name}…")),
        TraceState::Failed(why) => alert(format!(
            "Cannot use that trace: {why}. Requests come from the generator."
        )),
        // The file was read but the run refused it: say so here too, so the
        // panel never claims to replay what the error line says it cannot.
        TraceState::Loaded { name, .. } if refused.is_some() => alert(format!(
            "Cannot replay {name}: {}. Load another file or use the generated requests.",
            refused
                .as_deref()
                .unwrap_or_default()
                .trim_start_matches("trace: ")
        )),
        TraceState::Loaded { name, bundled, .. } => {
            // A summary may end in a sentence of its own (a trace's statistics).
            let summary = summary.map(|s| format!("{}. ", s.trim_end_matches('.')));
            let unlinked = bundled.is_none().then(|| {
                view! {
                    <span class="muted">
                        "A file you loaded is not part of the page's link: a shared link replays the generated requests."
                    </span>
                }
            });
            view! {
                <p class="small" id="trace-status">
                    <strong>{format!("Replaying {name}. ")}</strong>
                    {summary}
                    {unlinked}
                </p>
            }
            .into_any()
        }
    }
}

/// The trace panel of a lab that replays traces.
#[component]
pub fn TracePanel(
    /// Where the requests come from.
    trace: RwSignal<TraceState>,
    /// How a trace is imported.
    import: RwSignal<ImportOptions>,
    /// The lab's setter, to size the engines for real traces on load.
    set: Setter,
    /// The settings that size them (the lab's `TRACE_SETTINGS`).
    settings: &'static [(&'static str, &'static str)],
    /// What the last run's import read, kept and skipped.
    #[prop(into)]
    summary: Signal<Option<String>>,
    /// Why the last run refused the trace, if it did.
    #[prop(into)]
    refused: Signal<Option<String>>,
    /// The trace is fixed in this view (`controls=` does not list it): the
    /// panel is hidden and does nothing.
    #[prop(optional)]
    locked: bool,
) -> impl IntoView {
    let (specs, get_import, set_import) = import_controls(import);
    let apply_engine = {
        let set = Arc::clone(&set);
        move || {
            for (k, v) in settings {
                let _ = set(k, v);
            }
        }
    };
    let buttons = BUNDLED
        .iter()
        .map(|b| {
            let apply = apply_engine.clone();
            let on_click = move |_| {
                if !locked {
                    apply();
                    traces::fetch(b, trace);
                }
            };
            view! {
                <button type="button" id=format!("trace-{}", b.id) data-key=b.id title=b.note on:click=on_click>
                    {b.title}
                </button>
            }
        })
        .collect_view();
    let take_file = {
        let apply = apply_engine.clone();
        move |file: Option<web_sys::File>| {
            if let (Some(f), false) = (file, locked) {
                apply();
                traces::read_file(f, trace);
            }
        }
    };
    let on_pick = {
        let take = take_file.clone();
        move |ev: web_sys::Event| {
            let file = ev
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .and_then(|i| i.files())
                .and_then(|f| f.get(0));
            take(file);
        }
    };
    let dragging = RwSignal::new(false);
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        take_file(
            ev.data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0)),
        );
    };
    let loaded = move || matches!(trace.get(), TraceState::Loaded { .. });
    let status = move || trace.with(|t| source_line(t, summary.get(), refused.get()));
    view! {
        <section class="trace-panel" aria-label="Requests" data-control="trace" hidden=locked>
            <h2>"Requests"</h2>
            <p class="small">"Replay a public trace instead of the generator:"</p>
            <div class="trace-buttons">{buttons}</div>
            <div class="drop-zone" id="trace-drop" class:dragging=move || dragging.get()
                on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); dragging.set(true); }
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <label for="trace-file">"…or drop a Mooncake JSONL or Azure CSV file here, or choose one: "</label>
                <input type="file" id="trace-file" accept=".jsonl,.json,.csv,.txt" on:change=on_pick />
            </div>
            {status}
            <Show when=loaded>
                <button type="button" id="trace-clear" on:click=move |_| if !locked { trace.set(TraceState::Generated) }>
                    "Use generated requests"
                </button>
                <Controls specs=specs.clone() get=get_import.clone() set=set_import.clone() />
            </Show>
        </section>
    }
}
