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
const SPEEDS: [f64; 5] = [1.0, 2.0, 4.0, 8.0, 16.0];

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
    let last = move || len.get().saturating_sub(1);
    let go = move |i: usize| wanted.set(i.min(last()));
    let forward = move || {
        let at = step.get_untracked();
        if len.get_untracked() == 0 {
            // The run is not in yet: keep playing, from where it will be.
        } else if at >= last() {
            playing.set(false);
        } else {
            // The step's cost: the move and every update it sets off, which
            // the reactive system runs as tasks queued behind this one.
            let began = crate::platform::clock::now_ms();
            wanted.set(at + 1);
            leptos::task::spawn_local(async move {
                crate::ui::stage::record_step(began, crate::platform::clock::now_ms() - began);
            });
        }
    };
    let next_moment = move || {
        let at = step.get_untracked();
        moments.with_untracked(|m| m.iter().copied().find(|&i| i > at))
    };
    let previous_moment = move || {
        let at = step.get_untracked();
        moments.with_untracked(|m| m.iter().rev().copied().find(|&i| i < at))
    };

    // Playback: a timer that runs only while playing.
    super::timer::use_interval(
        move || {
            playing
                .get()
                .then(|| Duration::from_millis((1000.0 / speed.get()).round() as u64))
        },
        forward,
    );
    let toggle = move || {
        if !playing.get_untracked() && step.get_untracked() >= last() {
            // Play from the start again once at the end.
            wanted.set(0);
        }
        playing.update(|p| *p = !*p);
    };

    // Keyboard: everywhere but in fields that use these keys themselves
    // (arrows move a slider, type in a text field); a focused button or
    // link keeps Space and Enter to press it.
    let handle = window_event_listener(ev::keydown, move |e| {
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
        match e.key().as_str() {
            " " if !pressable => {
                e.prevent_default();
                toggle();
            }
            "ArrowRight" => {
                e.prevent_default();
                playing.set(false);
                go(step.get_untracked() + 1);
            }
            "ArrowLeft" => {
                e.prevent_default();
                playing.set(false);
                go(step.get_untracked().saturating_sub(1));
            }
            "]" => {
                if let Some(i) = next_moment() {
                    playing.set(false);
                    go(i);
                }
            }
            "[" => {
                if let Some(i) = previous_moment() {
                    playing.set(false);
                    go(i);
                }
            }
            _ => {}
        }
    });
    on_cleanup(move || handle.remove());

    let label = move || -> String {
        let n = len.get();
        let unit = unit.get();
        if zero_based {
            format!("{unit} {} of {}", step.get(), n.saturating_sub(1))
        } else {
            format!("{unit} {} of {}", step.get() + 1, n)
        }
    };
    view! {
        <div class="player" role="group" aria-label="Player">
            <div class="player-buttons">
                <button title="First" aria-label="First" on:click=move |_| { playing.set(false); go(0) }>"⇤"</button>
                <button title="Step back (←)" aria-label="Step back" id="player-back"
                    on:click=move |_| { playing.set(false); go(step.get().saturating_sub(1)) }>"←"</button>
                <button class="play" id="player-play" title="Play or pause (space)"
                    aria-label=move || if playing.get() { "Pause" } else { "Play" }
                    on:click=move |_| toggle()>
                    {move || if playing.get() { "❚❚" } else { "▶" }}
                </button>
                <button title="Step forward (→)" aria-label="Step forward" id="player-forward"
                    on:click=move |_| { playing.set(false); go(step.get() + 1) }>"→"</button>
                <button title="Last" aria-label="Last" on:click=move |_| { playing.set(false); go(last()) }>"⇥"</button>
            </div>
            <div class="scrub-wrap">
                <input type="range" class="player-scrub" id="player-scrub" aria-label=move || format!("Scrub {}", unit.get())
                    aria-valuetext=label
                    min="0" max=move || last().to_string() step="1"
                    // Read the length too: when a run arrives after the link's
                    // step was set, the value must be written again under the
                    // new maximum (the browser clamped it to the old one).
                    prop:value=move || { len.track(); step.get().to_string() }
                    on:input=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                            playing.set(false);
                            go(v);
                        }
                    } />
                <div class="scrub-marks" aria-hidden="true">
                    {move || {
                        let span = last().max(1) as f64;
                        moments.get().into_iter().map(|i| view! {
                            <span class="scrub-mark" style=format!("left:{:.3}%", 100.0 * i as f64 / span)></span>
                        }).collect_view()
                    }}
                </div>
            </div>
            <div class="moment-buttons">
                <button id="moment-previous" title="Previous key moment ([)" aria-label="Previous key moment"
                    disabled=move || { step.get(); moments.with(|m| m.is_empty()) || previous_moment().is_none() }
                    on:click=move |_| if let Some(i) = previous_moment() { playing.set(false); go(i) }>
                    "◆ Previous" <span class="wide">" key moment"</span>
                </button>
                <button id="moment-next" title="Next key moment (])" aria-label="Next key moment"
                    disabled=move || { step.get(); moments.with(|m| m.is_empty()) || next_moment().is_none() }
                    on:click=move |_| if let Some(i) = next_moment() { playing.set(false); go(i) }>
                    "Next" <span class="wide">" key moment"</span> " ◆"
                </button>
                <span class="small muted moment-count">{move || match moments.with(Vec::len) {
                    0 => "no key moments in this run".to_string(),
                    1 => "1 key moment".to_string(),
                    n => format!("{n} key moments"),
                }}</span>
            </div>
            <span class="player-label" id="player-label">{label}</span>
            <label class="player-speed">
                "Speed "
                <select on:change=move |ev| {
                    if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                        speed.set(v);
                    }
                }>{SPEEDS.iter().map(|&s| view! {
                    <option value=crate::ui::format::real_text(s) selected=s == speed.get_untracked()>{format!("{}/s", s)}</option>
                }).collect_view()}</select>
            </label>
        </div>
        <p class="narration" id="narration" aria-live="polite" aria-atomic="true">{narration}</p>
    }
}
