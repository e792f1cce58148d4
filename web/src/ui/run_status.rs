//! Where a page's simulation stands: a progress bar and a Cancel button while a
//! run is in the worker, a note after a cancel. Quick runs never show it: the
//! bar fades in only after a third of a second (CSS), and is gone by then.

use leptos::prelude::*;

/// Where a page's simulation stands: idle, running (with progress), or
/// cancelled by the reader.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RunState {
    /// Nothing running; the outcome is current.
    Idle,
    /// A run is in the worker: steps done and total (0, 0 before the first
    /// report).
    Running {
        /// Steps done.
        done: u32,
        /// Steps in all (0 when the run does not report).
        total: u32,
    },
    /// The reader cancelled; the outcome shown is from earlier settings.
    Cancelled,
}

/// The status line of a page's runs.
#[component]
pub fn RunStatus(
    /// The page's run state.
    #[prop(into)]
    status: Signal<RunState>,
    /// What one step of progress is ("rules", "runs").
    #[prop(optional)]
    unit: &'static str,
) -> impl IntoView {
    let unit = if unit.is_empty() { "steps" } else { unit };
    let running = move || matches!(status.get(), RunState::Running { .. });
    let cancelled = move || status.get() == RunState::Cancelled;
    let text = move || match status.get() {
        RunState::Running { done, total, .. } if total > 0 => {
            format!("Computing… {done} of {total} {unit}")
        }
        RunState::Running { .. } => String::from("Computing…"),
        _ => String::new(),
    };
    let max = move || match status.get() {
        RunState::Running { total, .. } => total.max(1).to_string(),
        _ => String::from("1"),
    };
    let value = move || match status.get() {
        RunState::Running { done, .. } => done.to_string(),
        _ => String::from("0"),
    };
    view! {
        <div class="run-status" role="status" aria-live="polite">
            <Show when=running>
                <div class="run-progress" id="run-status">
                    <progress id="run-progress" max=max value=value aria-label="Simulation progress"></progress>
                    <span class="small">{text}</span>
                    <button type="button" id="run-cancel" on:click=|_| crate::platform::worker::cancel_all()>"Cancel"</button>
                </div>
            </Show>
            <Show when=cancelled>
                <p class="small notice" id="run-cancelled">
                    "Cancelled. The results shown are from the previous settings; change a setting to run again."
                </p>
            </Show>
        </div>
    }
}
