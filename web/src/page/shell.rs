//! The one lab page: any [`AnyPage`] description rendered in the house
//! layout. Header and notices; the inputs (controls from the parameter table,
//! the focus picker, lines under them, the trace panel, an editor); the
//! player (bar, stage, narration, detail); cards; charts; tables and the
//! lab's own widgets; the comparison. Panels carry `data-panel` so `view=`
//! and embeds can choose among them.

use std::sync::Arc;

use leptos::html::{Canvas, P};
use leptos::prelude::*;

use super::state::State;
use super::{AnyPage, ChartMeta, Edit, Edits, Seek};
use crate::ui::chart::{draw_linked, PickFn};
use crate::ui::html::{Html, Markup};
use crate::ui::table::Pick;
use crate::ui::{
    Allows, ConfigPanel, ControlKind, ControlSpec, Controls, Deferred, ErrorLine, Getter, Notice,
    Player, RunStatus, SceneFn, Setter, Stage, TracePanel,
};

/// The lab's controls: every parameter (main ones first, the rest under
/// "More settings"), a "New seed" button, and the focus picker last.
fn control_specs(page: &'static dyn AnyPage) -> Vec<ControlSpec> {
    let entry = page.entry();
    let mut specs = ControlSpec::for_table(&(entry.params)());
    if let Some(f) = entry.focus {
        specs.push(ControlSpec {
            key: f.key,
            label: f.label,
            hint: "",
            kind: ControlKind::Radio((f.options)()),
            advanced: false,
            when: sim_core::params::When::Always,
        });
    }
    specs
}

/// Picking a row whose key names an item puts that item in focus.
fn pick_focus(state: State) -> Pick {
    Callback::new(move |name: &'static str| {
        let Some(focus) = state.page.entry().focus else {
            return;
        };
        if (focus.options)().iter().any(|o| o.name == name) {
            let _ = state.set(focus.key, name);
        }
    })
}

/// The controls panel.
fn inputs(state: State) -> impl IntoView {
    let page = state.page;
    let entry = page.entry();
    let get: Getter = Arc::new(move |k: &str| state.get(k));
    let set: Setter = Arc::new(move |k: &str, v: &str| state.set(k, v));
    let defer: Deferred =
        Arc::new(move |k: &str| state.config.with_untracked(|c| page.defers(c, k)));
    let locked = state.embed.with_value(|e| e.controls.is_some());
    let allows: Option<Allows> =
        locked.then(|| -> Allows { Arc::new(move |k: &str| state.allows(k)) });
    let under = move || state.with_snap(|s| page.under_controls(s)).flatten();
    let trace = entry.replays_traces.then(|| {
        let summary = Signal::derive(move || state.with_snap(|s| page.imported(s)).flatten());
        let set: Setter = Arc::new(move |k: &str, v: &str| state.set(k, v));
        let locked = !state.allows("trace");
        view! { <TracePanel trace=state.trace import=state.import set=set settings=entry.trace_settings summary=summary refused=state.main.trace_refused locked=locked /> }
    });
    let id = entry.info.id;
    let router = (sim_core::labs::router_formats::formats_for(id)
        .next()
        .is_some()
        && state.allows("router-config"))
    .then(|| {
        let set: Setter = Arc::new(move |k: &str, v: &str| state.set(k, v));
        view! { <ConfigPanel lab=id set=set /> }
    });
    let editor = page.editor().map(|legend| {
        let edits: Edits = Callback::new(move |e: Edit| {
            for (key, value) in state
                .with_settings_snap(|s| page.edit(s, &e))
                .unwrap_or_default()
            {
                let _ = state.set(key, &value);
            }
        });
        view! {
            <fieldset class="trace-editor" data-control="trace" hidden=!state.allows("trace")>
                <legend>{legend}</legend>
                <div>{move || state.with_settings_snap(|s| page.editor_view(s, edits))}</div>
            </fieldset>
        }
    });
    view! {
        <section class="controls" aria-label="Controls" data-panel="controls">
            <h2>{page.inputs()}</h2>
            <Controls specs=control_specs(page) get=get set=set defer=defer allows=allows />
            <div>{under}</div>
            {trace}
            {router}
            {editor}
        </section>
    }
}

/// Where a click on a chart sends the player.
fn seek(state: State, how: Seek) -> Option<PickFn> {
    let to = move |x: f64, back: f64| {
        state.playing.set(false);
        state.wanted_step.set((x.round() - back).max(0.0) as usize);
    };
    match how {
        Seek::No => None,
        Seek::Step => Some(Arc::new(move |x| to(x, 0.0))),
        Seek::FromOne => Some(Arc::new(move |x| to(x, 1.0))),
    }
}

/// One chart: caption, canvas, its words for screen readers, help.
fn chart(state: State, i: usize, meta: ChartMeta) -> impl IntoView {
    let page = state.page;
    let canvas = NodeRef::<Canvas>::new();
    let error = NodeRef::<P>::new();
    let spec = Arc::new(move |theme: &crate::ui::theme::ChartTheme| {
        state.with_snap(|s| page.chart_spec(i, s, theme)).flatten()
    });
    draw_linked(canvas, error, spec, seek(state, meta.seek));
    let summary = move || {
        state
            .with_snap(|s| page.chart_summary(i, s))
            .unwrap_or_default()
    };
    let caption = move || {
        state
            .with_snap(|s| page.chart_caption(i, s))
            .unwrap_or_default()
    };
    let off = move || {
        state
            .with_snap(|s| !page.chart_shown(i, s))
            .unwrap_or(false)
    };
    let help = (!meta.help.is_empty()).then(|| {
        view! {
            <details>
                <summary>"What am I looking at?"</summary>
                <p class="small">{meta.help}</p>
            </details>
        }
    });
    view! {
        // Collapsed rather than hidden when it has nothing to show: the
        // canvas keeps its width, so it is drawn at its real size.
        <figure class="chart" data-panel="chart" class:chart-off=off>
            <figcaption>{caption}</figcaption>
            <canvas node_ref=canvas id=meta.id class:short=meta.short role="img" aria-label=summary></canvas>
            <p class="sr-only" id=format!("{}-summary", meta.id)>{summary}</p>
            <p class="chart-error" node_ref=error hidden></p>
            {help}
        </figure>
    }
}

/// The player: bar, side-by-side picker, stage, legend, the step in detail.
fn player(state: State) -> Option<impl IntoView> {
    let page = state.page;
    let meta = page.player()?;
    let info = page.entry().info.player?;
    let id = page.entry().info.id;
    let len = Signal::derive(move || state.len());
    let step = Signal::derive(move || state.step());
    // A memo: the bar, its buttons and its count all read the moments, and
    // they change only with the run, not with the step.
    let moments: Signal<Vec<usize>> =
        Memo::new(move |_| state.with_snap(|s| page.moments(s)).unwrap_or_default()).into();
    let narration =
        Signal::derive(move || state.with_snap(|s| page.narrate(s)).unwrap_or_default());
    let scene: SceneFn = Arc::new(move |width, palette| {
        state.with_snap(|s| page.scene(s, width, palette)).flatten()
    });
    let heading = (!meta.heading.is_empty()).then(|| view! { <h2>{meta.heading}</h2> });
    let vs = meta.side_by_side.then(|| vs_picker(state));
    // A tick is a millisecond when a GPU preset prices the iterations.
    let unit = Signal::derive(move || if state.in_ms() { "ms" } else { info.unit });
    view! {
        <div data-panel="player" class="player-stage" id=format!("{id}-player")>
            {heading}
            {vs}
            <Stage scene=scene speed=state.speed id=format!("{id}-stage") label=narration />
            <Player step=step wanted=state.wanted_step len=len unit=unit playing=state.playing
                speed=state.speed zero_based=info.first == 0 moments=moments narration=narration />
            <Markup html=Html::trusted(meta.legend) class="player-legend" />
            <div class="player-detail">{move || state.with_snap(|s| page.detail(s))}</div>
        </div>
    }
    .into()
}

/// "Side by side with": a second item for the player.
fn vs_picker(state: State) -> impl IntoView {
    let focus = state.page.entry().focus;
    let open = focus.is_some_and(|f| state.allows(f.key));
    let options = move || {
        let f = focus?;
        let (current, chosen) = (state.focus.get(), state.vs.get());
        let rest = (f.options)()
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != current)
            .map(|(i, o)| view! { <option value=o.name selected=chosen == Some(i)>{o.title}</option> })
            .collect_view();
        Some(view! {
            <option value="" selected=chosen.is_none()>"— one rule —"</option>
            {rest}
        })
    };
    if !open {
        // Locked by `controls=`: the choice is stated as text, not a dead
        // select (and nothing when there is no second item).
        let chosen = move || {
            let f = focus?;
            let title = (f.options)().get(state.vs.get()?)?.title;
            Some(view! { <span class="vs-picker">"Side by side with " {title}</span> })
        };
        return chosen.into_any();
    }
    view! {
        <label class="vs-picker">
            "Side by side with "
            <select id="vs-rule" on:change=move |ev| {
                let v = event_target_value(&ev);
                let pick = focus.and_then(|f| (f.options)().iter().position(|o| o.name == v));
                state.vs.set(pick);
            }>{options}</select>
        </label>
    }
    .into_any()
}

/// One lab's page, from its description.
#[component]
pub fn Shell(
    /// The page's description.
    page: &'static dyn AnyPage,
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let mut notices = Vec::new();
    let state = State::new(page, &pairs, &mut notices);
    super::live::follow(state);
    let id = page.entry().info.id;
    let cards = page.has_cards().then(|| {
        view! {
            <div data-panel="cards" id="headline">
                <div>{move || state.with_snap(|s| page.cards(s))}</div>
            </div>
        }
    });
    let charts = page
        .charts()
        .into_iter()
        .enumerate()
        .map(|(i, meta)| chart(state, i, meta))
        .collect_view();
    let pick = pick_focus(state);
    let tables = (0..page.table_count())
        .map(|i| {
            view! {
                <div data-panel="table">
                    <div>{move || state.with_snap(|s| page.table(i, s, pick))}</div>
                </div>
            }
        })
        .collect_view();
    let extras = page.extras().iter().map(|f| f(&state)).collect_view();
    let comparison = page.comparison().map(|heading| {
        view! {
            <section class="comparison" aria-label=heading data-panel="table">
                {(!heading.is_empty()).then(|| view! { <h2>{heading}</h2> })}
                <div><div>{move || state.with_snap(|s| page.comparison_table(s, pick))}</div></div>
                <div>{move || state.with_snap(|s| page.comparison_note(s))}</div>
            </section>
        }
    });
    let status = Signal::derive(move || state.main.status());
    view! {
        <article class="lab" id=format!("{id}-lab")>
            <header class="lab-header"><Markup html=page.intro() /></header>
            <Notice messages=notices />
            <ErrorLine error=Signal::derive(move || state.main.error()) />
            <RunStatus status=status unit=page.progress_unit() />
            // The results come first in the document (the player early in
            // tab order); the stylesheet puts the controls on the left.
            <div class="lab-grid">
                <section class="results" aria-label="Results">
                    {player(state)}
                    {cards}
                    {charts}
                    {tables}
                    <div data-panel="table">{extras}</div>
                </section>
                {inputs(state)}
            </div>
            {comparison}
        </article>
    }
}
