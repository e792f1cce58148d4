//! The player bar shared by every step-through lab: first, back, play/pause,
//! forward, last (⇤ ← ▶/❚❚ → ⇥, glyphs every system font has), a scrub slider
//! with the key moments marked on it, "Previous key moment" / "Next key
//! moment", "tick n of N", a speed choice, and the step's narration in a
//! polite live region. Space plays or pauses, ←/→ step and [ / ] jump between
//! key moments wherever focus is, but in a field that takes those keys itself
//! (a slider, a text field; a focused button keeps Space to press it). The
//! player only moves an index; the lab shows the recorded snapshot at that
//! index and its key moments come from sim-core (the UI never re-simulates).
//! Playback runs on the `use_interval` hook while playing.

use std::time::Duration;

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Speeds offered, in steps per second.
/// The fastest ones are for milliseconds mode, where a run is thousands of
/// steps long (a GPU preset's default run, about 10,000).
const SPEEDS: [f64; 7] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0];

/// The player's signals, and the moves its buttons, slider and keys make.
#[derive(Clone, Copy)]
struct Moves {
    step: Signal<usize>,
    wanted: RwSignal<usize>,
    len: Signal<usize>,
    playing: RwSignal<bool>,
    moments: Signal<Vec<usize>>,
}

impl Moves {
    /// The last index.
    fn last(self) -> usize {
        self.len.get().saturating_sub(1)
    }

    /// Ask for index `i` (clamped to the run).
    fn go(self, i: usize) {
        self.wanted.set(i.min(self.last()));
    }

    /// Stop playing and go to `i`: what every button and key but play does.
    fn jump(self, i: usize) {
        self.playing.set(false);
        self.go(i);
    }

    /// One step on while playing; stops at the end.
    fn forward(self) {
        let at = self.step.get_untracked();
        if self.len.get_untracked() == 0 {
            // The run is not in yet: keep playing, from where it will be.
        } else if at >= self.last() {
            self.playing.set(false);
        } else {
            // The step's cost: the move and every update it sets off, which
            // the reactive system runs as tasks queued behind this one.
            let began = crate::platform::clock::now_ms();
            self.wanted.set(at + 1);
            leptos::task::spawn_local(async move {
                crate::ui::stage::record_step(began, crate::platform::clock::now_ms() - began);
            });
        }
    }

    /// The first key moment after the current step.
    fn next_moment(self) -> Option<usize> {
        let at = self.step.get_untracked();
        self.moments
            .with_untracked(|m| m.iter().copied().find(|&i| i > at))
    }

    /// The last key moment before the current step.
    fn previous_moment(self) -> Option<usize> {
        let at = self.step.get_untracked();
        self.moments
            .with_untracked(|m| m.iter().rev().copied().find(|&i| i < at))
    }

    /// Play or pause; play from the start again once at the end.
    fn toggle(self) {
        if !self.playing.get_untracked() && self.step.get_untracked() >= self.last() {
            self.wanted.set(0);
        }
        self.playing.update(|p| *p = !*p);
    }

    /// A key pressed anywhere: Space plays or pauses, ← → step, [ ] jump
    /// between key moments; not in fields that use these keys themselves
    /// (arrows move a slider, type in a text field), and a focused button or
    /// link keeps Space and Enter to press it.
    fn key(self, e: &web_sys::KeyboardEvent) {
        let tag = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|el| el.tag_name())
            .unwrap_or_default();
        let in_field = matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA");
        let pressable = matches!(tag.as_str(), "BUTTON" | "A" | "SUMMARY");
        if in_field || e.alt_key() || e.ctrl_key() || e.meta_key() {
            return;
        }
        let to = match e.key().as_str() {
            " " if !pressable => {
                e.prevent_default();
                self.toggle();
                return;
            }
            "ArrowRight" => {
                e.prevent_default();
                Some(self.step.get_untracked() + 1)
            }
            "ArrowLeft" => {
                e.prevent_default();
                Some(self.step.get_untracked().saturating_sub(1))
            }
            "]" => self.next_moment(),
            "[" => self.previous_moment(),
            _ => None,
        };
        if let Some(i) = to {
            self.jump(i);
        }
    }
}

/// First, back, play/pause, forward, last.
fn buttons(m: Moves) -> impl IntoView {
    let playing = m.playing;
    view! {
        <div class="player-buttons">
            <button title="First" aria-label="First" on:click=move |_| m.jump(0)>"⇤"</button>
            <button title="Step back (←)" aria-label="Step back" id="player-back"
                on:click=move |_| m.jump(m.step.get().saturating_sub(1))>"←"</button>
            <button class="play" id="player-play" title="Play or pause (space)"
                aria-label=move || if playing.get() { "Pause" } else { "Play" }
                on:click=move |_| m.toggle()>
                {move || if playing.get() { "❚❚" } else { "▶" }}
            </button>
            <button title="Step forward (→)" aria-label="Step forward" id="player-forward"
                on:click=move |_| m.jump(m.step.get() + 1)>"→"</button>
            <button title="Last" aria-label="Last" on:click=move |_| m.jump(m.last())>"⇥"</button>
        </div>
    }
}

/// The scrub slider with the key moments marked under it.
fn scrub(m: Moves, unit: Signal<&'static str>, label: Signal<String>) -> impl IntoView {
    let marks = move || {
        let span = m.last().max(1) as f64;
        m.moments
            .get()
            .into_iter()
            .map(|i| view! { <span class="scrub-mark" style=format!("left:{:.3}%", 100.0 * i as f64 / span)></span> })
            .collect_view()
    };
    view! {
        <div class="scrub-wrap">
            <input type="range" class="player-scrub" id="player-scrub" aria-label=move || format!("Scrub {}", unit.get())
                aria-valuetext=label
                min="0" max=move || m.last().to_string() step="1"
                // Read the length too: when a run arrives after the link's
                // step was set, the value must be written again under the
                // new maximum (the browser clamped it to the old one).
                prop:value=move || { m.len.track(); m.step.get().to_string() }
                on:input=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                        m.jump(v);
                    }
                } />
            <div class="scrub-marks" aria-hidden="true">{marks}</div>
        </div>
    }
}

/// "Previous key moment", "Next key moment" and how many there are.
fn moment_buttons(m: Moves) -> impl IntoView {
    let none = move || m.moments.with(|v| v.is_empty());
    view! {
        <div class="moment-buttons">
            <button id="moment-previous" title="Previous key moment ([)" aria-label="Previous key moment"
                disabled=move || { m.step.get(); none() || m.previous_moment().is_none() }
                on:click=move |_| if let Some(i) = m.previous_moment() { m.jump(i) }>
                "◆ Previous" <span class="wide">" key moment"</span>
            </button>
            <button id="moment-next" title="Next key moment (])" aria-label="Next key moment"
                disabled=move || { m.step.get(); none() || m.next_moment().is_none() }
                on:click=move |_| if let Some(i) = m.next_moment() { m.jump(i) }>
                "Next" <span class="wide">" key moment"</span> " ◆"
            </button>
            <span class="small muted moment-count">{move || match m.moments.with(Vec::len) {
                0 => "no key moments in this run".to_string(),
                1 => "1 key moment".to_string(),
                n => format!("{n} key moments"),
            }}</span>
        </div>
    }
}

/// The speed choice.
fn speed_select(speed: RwSignal<f64>) -> impl IntoView {
    let options = SPEEDS
        .iter()
        .map(|&s| {
            view! {
                <option value=crate::ui::format::real_text(s) selected=s == speed.get_untracked()>{format!("{}/s", s)}</option>
            }
        })
        .collect_view();
    view! {
        <label class="player-speed">
            "Speed "
            <select on:change=move |ev| {
                if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                    speed.set(v);
                }
            }>{options}</select>
        </label>
    }
}

/// A player bar over indices `0..len`.
#[component]
pub fn Player(
    /// The current index (0-based), as shown.
    #[prop(into)]
    step: Signal<usize>,
    /// The index asked for: what the buttons and keys set.
    wanted: RwSignal<usize>,
    /// How many steps there are.
    #[prop(into)]
    len: Signal<usize>,
    /// What one step is called ("tick", "step", "iteration"; "ms" when a
    /// GPU preset makes a tick a millisecond).
    #[prop(into)]
    unit: Signal<&'static str>,
    /// Whether it is playing.
    playing: RwSignal<bool>,
    /// Steps per second.
    speed: RwSignal<f64>,
    /// Whether steps are shown 0-based (ticks) or 1-based (requests, iterations).
    #[prop(optional)]
    zero_based: bool,
    /// Indices of the key moments, ascending (from sim-core's records).
    #[prop(into)]
    moments: Signal<Vec<usize>>,
    /// What the current step means, in a sentence or two.
    #[prop(into)]
    narration: Signal<String>,
) -> impl IntoView {
    let m = Moves {
        step,
        wanted,
        len,
        playing,
        moments,
    };
    // Playback: a timer that runs only while playing.
    super::timer::use_interval(
        move || {
            playing
                .get()
                .then(|| Duration::from_millis((1000.0 / speed.get()).round() as u64))
        },
        move || m.forward(),
    );
    let handle = window_event_listener(ev::keydown, move |e| m.key(&e));
    on_cleanup(move || handle.remove());
    let label = Signal::derive(move || {
        let n = len.get();
        let unit = unit.get();
        if zero_based {
            format!("{unit} {} of {}", step.get(), n.saturating_sub(1))
        } else {
            format!("{unit} {} of {}", step.get() + 1, n)
        }
    });
    view! {
        <div class="player" role="group" aria-label="Player">
            {buttons(m)}
            {scrub(m, unit, label)}
            {moment_buttons(m)}
            <span class="player-label" id="player-label">{label}</span>
            {speed_select(speed)}
        </div>
        <p class="narration" id="narration" aria-live="polite" aria-atomic="true">{narration}</p>
    }
}
