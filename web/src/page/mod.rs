//! One page template for every lab. A lab's page is a description, a [`Page`]:
//! its introduction, the heading of its inputs, and its panels — the player
//! (stage, narration, key moments), cards, charts, tables and a comparison —
//! each a plain function of a [`View`], the lab's typed state at one moment.
//! [`shell::Shell`] renders any description; the state beneath it (the
//! configuration from and to the URL, the focus, the step, the runs in the
//! worker, a trace) is [`state`] and [`job`], shared by every lab.
//!
//! The shell sees a page through [`AnyPage`], which erases the lab's types so
//! the view code, the reactive wiring and the controls are compiled once for
//! all labs; what stays per lab is the description's functions and the small
//! adapter that hands them a typed [`View`].

pub mod job;
pub mod live;
pub mod shell;
pub mod state;

use std::any::Any;
use std::sync::Arc;

use sim_core::choice::Choice;
use sim_core::labs::{self, Lab, LabEntry};
use sim_core::params::{erased, AnyConfig};

use leptos::prelude::{AnyView, IntoAny};

use crate::ui::html::Html;
use crate::ui::plot::ChartSpec;
use crate::ui::table::{Column, Compare, Pick};
use crate::ui::theme::ChartTheme;
use crate::ui::{Palette, Scene};

/// A lab's configuration or outcome behind one type, so every lab shares one
/// signal type (each distinct signal type instantiates the reactive system's
/// generic code again). Compared by identity.
#[derive(Clone)]
pub struct Shared(pub Arc<dyn Any + Send + Sync>);

impl Shared {
    /// Wrap a value.
    pub fn new<T: Any + Send + Sync>(value: T) -> Shared {
        Shared(Arc::new(value))
    }

    /// Wrap a configuration, stored by its own type (so [`Shared::get`]
    /// finds it).
    pub fn from_config(config: Box<dyn AnyConfig>) -> Shared {
        Shared(Arc::from(config.into_any()))
    }

    /// The value, if it is a `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The player's step as a panel reads it: a panel that asks for the step is
/// redrawn when it changes, one that does not is left alone.
#[derive(Clone, Copy)]
pub struct Step<'a>(pub &'a dyn Fn() -> usize);

/// What a page's panels read: the lab's state at one moment, typed.
pub struct View<'a, L: Lab> {
    /// The configuration the controls edit.
    pub config: &'a L::Config,
    /// The page's run of it (with the player's recording, for pages whose
    /// player plays one: [`Player::records`]).
    pub outcome: &'a L::Outcome,
    /// The item in focus (`None` for labs that compare nothing).
    pub focus: Option<L::Item>,
    /// A second item shown side by side (`vs=`).
    pub vs: Option<L::Item>,
    /// Whether the reader may change the focus here (`controls=` can lock it).
    pub pickable: bool,
    step: Step<'a>,
}

impl<'a, L: Lab> View<'a, L> {
    /// A view of `outcome` under `config`, at `step` (the golden tests'
    /// views; the page builds its own from its signals).
    #[cfg(test)]
    pub fn new(
        config: &'a L::Config,
        outcome: &'a L::Outcome,
        focus: Option<L::Item>,
        step: Step<'a>,
    ) -> View<'a, L> {
        View {
            config,
            outcome,
            focus,
            vs: None,
            pickable: true,
            step,
        }
    }

    /// The player's step, 0-based (reading it makes the panel follow it).
    pub fn step(&self) -> usize {
        (self.step.0)()
    }
}

/// A sentence about the state, if there is one to say.
pub type Words<L> = fn(&View<'_, L>) -> Option<String>;

/// How a click on a chart moves the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seek {
    /// It does not.
    No,
    /// To the step at the chart's x (x counts steps from 0).
    Step,
    /// To the step at x − 1 (x counts requests or iterations from 1).
    FromOne,
}

/// One chart of a page.
pub struct Chart<L: Lab> {
    /// The canvas id.
    pub id: &'static str,
    /// The caption above it.
    pub caption: fn(&View<'_, L>) -> String,
    /// What to draw (`None`: nothing yet).
    pub spec: fn(&View<'_, L>, &ChartTheme) -> Option<ChartSpec>,
    /// The chart in words (its accessible name and text alternative).
    pub summary: fn(&View<'_, L>) -> String,
    /// "What am I looking at?" (empty: no disclosure).
    pub help: &'static str,
    /// What a click does.
    pub seek: Seek,
    /// A short chart (a strip of bars).
    pub short: bool,
    /// Whether there is anything to show (a side-by-side chart without a
    /// second item is collapsed).
    pub shown: fn(&View<'_, L>) -> bool,
}

impl<L: Lab> Chart<L> {
    /// A chart with no help, no seeking, full height, always shown.
    pub const fn new(
        id: &'static str,
        caption: fn(&View<'_, L>) -> String,
        spec: fn(&View<'_, L>, &ChartTheme) -> Option<ChartSpec>,
        summary: fn(&View<'_, L>) -> String,
    ) -> Chart<L> {
        Chart {
            id,
            caption,
            spec,
            summary,
            help: "",
            seek: Seek::No,
            short: false,
            shown: |_| true,
        }
    }

    /// With a "What am I looking at?" text.
    pub const fn help(mut self, help: &'static str) -> Chart<L> {
        self.help = help;
        self
    }

    /// A click moves the player as `seek` says.
    pub const fn seek(mut self, seek: Seek) -> Chart<L> {
        self.seek = seek;
        self
    }

    /// A short strip.
    pub const fn short(mut self) -> Chart<L> {
        self.short = true;
        self
    }

    /// Shown only when `shown` says so.
    pub const fn shown(mut self, shown: fn(&View<'_, L>) -> bool) -> Chart<L> {
        self.shown = shown;
        self
    }
}

/// The player of a page that steps through a run.
pub struct Player<L: Lab> {
    /// A heading above the bar (empty for none).
    pub heading: &'static str,
    /// The player plays a recording the page's run makes on request, of the
    /// item in focus and its side-by-side partner (the Routing Lab records
    /// two rules tick by tick); otherwise the run is the record.
    pub records: bool,
    /// Whether a second item can be shown side by side (`vs=`).
    pub side_by_side: bool,
    /// How many steps there are.
    pub len: fn(&View<'_, L>) -> usize,
    /// Steps that are key moments, ascending.
    pub moments: fn(&View<'_, L>) -> Vec<usize>,
    /// What the current step means, in a sentence or two.
    pub narrate: fn(&View<'_, L>) -> String,
    /// The motion stage's scene of the current step, at a width in pixels.
    pub scene: fn(&View<'_, L>, f64, &Palette) -> Option<Scene>,
    /// Trusted markup under the stage: its legend.
    pub legend: &'static str,
    /// The step in detail, under the stage.
    pub detail: fn(&View<'_, L>) -> AnyView,
    /// The step the player opens on when its lab opens at the first
    /// difference (`Opening::FirstDifference`; `None`: the first step).
    pub difference: fn(&View<'_, L>) -> Option<usize>,
}

impl<L: Lab> Player<L> {
    /// The player most labs have: one item at a time, its run the record,
    /// no heading and no detail under the stage. Descriptions start from it
    /// (`Player { len, moments, narrate, scene, legend, ..Player::PLAIN }`).
    pub const PLAIN: Player<L> = Player {
        heading: "",
        records: false,
        side_by_side: false,
        len: |_| 0,
        moments: |_| Vec::new(),
        narrate: |_| String::new(),
        scene: |_, _, _| None,
        legend: "",
        detail: |_| ().into_any(),
        difference: |_| None,
    };
}

/// Settings to apply, in order: `(key, value)`.
pub type Settings = Vec<(&'static str, String)>;

/// What an editor's inputs and buttons call with the reader's edit.
pub type Edits = leptos::prelude::Callback<Edit>;

/// An edit the reader made in a trace editor.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// An input of request `row` changed field `field` to `value`.
    Change {
        /// Row index.
        row: usize,
        /// Field name.
        field: String,
        /// New value, as typed.
        value: String,
    },
    /// The button with this key was pressed.
    Click(String),
}

/// A small trace the reader edits in the controls panel (its rows are the
/// lab's `trace` parameter).
pub struct Editor<L: Lab> {
    /// The fieldset's legend.
    pub legend: &'static str,
    /// The rows as inputs and buttons, each calling the [`Edits`] it is
    /// given with what the reader did.
    pub view: fn(&View<'_, L>, Edits) -> AnyView,
    /// The settings an edit makes, in order (usually the `trace`
    /// parameter's new text; none when nothing changes).
    pub edit: fn(&View<'_, L>, &Edit) -> Settings,
}

/// The comparison section under the page's grid.
pub struct Comparison<L: Lab> {
    /// Its heading (empty for none).
    pub heading: &'static str,
    /// The table (a row whose key is an item's name picks that item).
    pub table: fn(&View<'_, L>, Pick) -> AnyView,
    /// The note under it.
    pub note: fn(&View<'_, L>) -> AnyView,
}

/// A lab that has a page: each lab folder implements it for sim-core's lab
/// type, and `crate::labs::PAGES` is built from sim-core's one list of lab
/// types ([`sim_core::with_labs!`]), so a lab without a page does not compile.
pub trait LabPage: Lab + Sized {
    /// The lab's page description.
    const PAGE: &'static Page<Self>;
}

/// A row of a lab's comparison that stands for one of its focus items.
pub trait FocusRow {
    /// The item the row is about.
    type Item: Choice;
    /// The row's item.
    fn item(&self) -> Self::Item;
}

/// The comparison most labs show: one row per item of the lab's focus, the
/// one in focus highlighted, and a row's title picking that item when the
/// reader may (`controls=` can lock it).
pub fn compare_items<L: Lab, R: FocusRow<Item = L::Item>>(
    v: &View<'_, L>,
    pick: Pick,
    id: &'static str,
    first: &'static str,
    items: &[R],
    columns: &[Column<R>],
) -> AnyView {
    let focus = v.focus;
    Compare {
        id,
        caption: "",
        first,
        items,
        title: |r| r.item().title(),
        key: Some(|r| r.item().name()),
        selected: &|r: &R| Some(r.item()) == focus,
        columns,
        so_far: false,
    }
    .view(v.pickable.then_some(pick))
}

/// A page's [`Page::intro`]: the function written, except in the page's
/// wasm module, which reads the same HTML back from index.html's shell data
/// (`crate::platform::shell`, written from these functions by
/// `app::static_shell`), so the introductions download once.
#[macro_export]
macro_rules! intro {
    ($f:expr) => {{
        let written: fn() -> $crate::ui::html::Html = $f;
        if cfg!(target_arch = "wasm32") {
            $crate::ui::html::Html::new as fn() -> $crate::ui::html::Html
        } else {
            written
        }
    }};
}

/// A lab's page, as data.
pub struct Page<L: Lab> {
    /// The header: title, what to try, what the units are (wrapped in
    /// [`intro!`]: the page's module reads it from index.html instead).
    pub intro: fn() -> Html,
    /// The heading of the inputs panel.
    pub inputs: &'static str,
    /// Lines under the controls (the offered load), reading the run.
    pub under_controls: Option<fn(&View<'_, L>) -> AnyView>,
    /// For labs that replay traces: what the import read and skipped.
    pub imported: Option<Words<L>>,
    /// What one step of a run's progress is ("rules", "runs").
    pub progress: &'static str,
    /// A trace editor in the inputs panel.
    pub editor: Option<Editor<L>>,
    /// The player, for labs whose [`sim_core::labs::LabInfo::player`] is set.
    pub player: Option<Player<L>>,
    /// Headline numbers.
    pub cards: Option<fn(&View<'_, L>) -> AnyView>,
    /// Charts, in order.
    pub charts: &'static [Chart<L>],
    /// Tables under the charts (a row whose key names an item picks it).
    pub tables: &'static [fn(&View<'_, L>, Pick) -> AnyView],
    /// A comparison of every item, under the grid.
    pub comparison: Option<Comparison<L>>,
    /// Range controls whose recomputation is too slow to follow a drag.
    pub defer: fn(&L::Config, &str) -> bool,
    /// Widgets of this lab alone (the Routing Lab's decision explorer),
    /// shown with the tables.
    pub extras: &'static [fn(&state::State) -> leptos::prelude::AnyView],
}

impl<L: Lab> Page<L> {
    /// A page with nothing but an empty header: descriptions start from it
    /// (`Page { intro, cards, .., ..Page::EMPTY }`).
    pub const EMPTY: Page<L> = Page {
        intro: Html::new,
        inputs: "Inputs",
        under_controls: None,
        imported: None,
        progress: "steps",
        editor: None,
        player: None,
        cards: None,
        charts: &[],
        tables: &[],
        comparison: None,
        defer: |_, _| false,
        extras: &[],
    };
}

/// The erased snapshot the shell hands a page: its signals' values.
pub struct Snap<'a> {
    /// The configuration (`L::Config`).
    pub config: &'a Shared,
    /// The run (`L::Outcome`).
    pub outcome: &'a Shared,
    /// The focus item's index in the lab's items.
    pub focus: Option<usize>,
    /// The side-by-side item's index.
    pub vs: Option<usize>,
    /// Whether the focus may be changed.
    pub pickable: bool,
    /// The player's step.
    pub step: Step<'a>,
}

/// What the shell needs to know of a chart before there is anything to draw.
#[derive(Clone, Copy, Debug)]
pub struct ChartMeta {
    /// The canvas id.
    pub id: &'static str,
    /// "What am I looking at?" text.
    pub help: &'static str,
    /// What a click does.
    pub seek: Seek,
    /// Whether it is a short strip.
    pub short: bool,
}

/// What the shell needs to know of a player before there is a run.
#[derive(Clone, Copy, Debug)]
pub struct PlayerMeta {
    /// See [`Player::records`].
    pub records: bool,
    /// See [`Player::side_by_side`].
    pub side_by_side: bool,
    /// See [`Player::heading`].
    pub heading: &'static str,
    /// See [`Player::legend`].
    pub legend: &'static str,
}

/// A page with its lab's types erased: what the shell calls. Every method
/// that reads state takes a [`Snap`] and returns `None` (or nothing) when the
/// snapshot is not of this lab.
pub trait AnyPage: Sync {
    /// The lab's registry entry.
    fn entry(&self) -> &'static LabEntry;
    /// The header.
    fn intro(&self) -> Html;
    /// The heading of the inputs panel.
    fn inputs(&self) -> &'static str;
    /// A new configuration at the lab's defaults.
    fn fresh_config(&self) -> Box<dyn AnyConfig>;
    /// The configuration in `config`, if it is this lab's (the one generic
    /// step: the methods on `dyn AnyPage` below do the rest once for all
    /// labs).
    fn config_of<'a>(&self, config: &'a Shared) -> Option<&'a dyn AnyConfig>;
    /// Read the worker's bytes back into the outcome of a run of `config`
    /// (the outcome's configuration is not in the bytes: it is put back from
    /// the one the page sent).
    fn decode(&self, bytes: &[u8], config: &Shared) -> Result<Shared, String>;
    /// Whether range `key` applies on release only.
    fn defers(&self, config: &Shared, key: &str) -> bool;
    /// What the shell needs of the player before there is a run, if the
    /// page has one.
    fn player(&self) -> Option<PlayerMeta>;
    /// The player's length, key moments, narration, scene and detail.
    fn player_len(&self, s: &Snap<'_>) -> usize;
    /// Key moments, ascending.
    fn moments(&self, s: &Snap<'_>) -> Vec<usize>;
    /// Where the player opens with no step in the link: the first step, the
    /// first key moment or the first difference, as the lab's
    /// `PlayerInfo::opens` says.
    fn opening(&self, s: &Snap<'_>) -> usize;
    /// The current step in words.
    fn narrate(&self, s: &Snap<'_>) -> String;
    /// The stage's scene.
    fn scene(&self, s: &Snap<'_>, width: f64, palette: &Palette) -> Option<Scene>;
    /// The step in detail.
    fn detail(&self, s: &Snap<'_>) -> AnyView;
    /// Lines under the controls.
    fn under_controls(&self, s: &Snap<'_>) -> Option<AnyView>;
    /// What a trace import read and skipped.
    fn imported(&self, s: &Snap<'_>) -> Option<String>;
    /// What one step of progress is.
    fn progress_unit(&self) -> &'static str;
    /// The editor's legend, if there is one.
    fn editor(&self) -> Option<&'static str>;
    /// The editor's inputs.
    fn editor_view(&self, s: &Snap<'_>, edits: Edits) -> AnyView;
    /// The settings an edit makes.
    fn edit(&self, s: &Snap<'_>, edit: &Edit) -> Vec<(&'static str, String)>;
    /// Whether the page has cards.
    fn has_cards(&self) -> bool;
    /// The cards.
    fn cards(&self, s: &Snap<'_>) -> AnyView;
    /// The charts' ids and flags.
    fn charts(&self) -> Vec<ChartMeta>;
    /// Chart `i`'s caption.
    fn chart_caption(&self, i: usize, s: &Snap<'_>) -> String;
    /// Chart `i`'s spec.
    fn chart_spec(&self, i: usize, s: &Snap<'_>, theme: &ChartTheme) -> Option<ChartSpec>;
    /// Chart `i` in words.
    fn chart_summary(&self, i: usize, s: &Snap<'_>) -> String;
    /// Whether chart `i` has anything to show.
    fn chart_shown(&self, i: usize, s: &Snap<'_>) -> bool;
    /// How many tables.
    fn table_count(&self) -> usize;
    /// Table `i`.
    fn table(&self, i: usize, s: &Snap<'_>, pick: Pick) -> AnyView;
    /// The comparison's heading, if there is one.
    fn comparison(&self) -> Option<&'static str>;
    /// The comparison's table.
    fn comparison_table(&self, s: &Snap<'_>, pick: Pick) -> AnyView;
    /// The note under the comparison.
    fn comparison_note(&self, s: &Snap<'_>) -> AnyView;
    /// The lab's own widgets.
    fn extras(&self) -> &'static [fn(&state::State) -> leptos::prelude::AnyView];
    /// Every chart at the lab's defaults, run natively (first step, default
    /// focus, light theme): `(chart id, spec)`, for the golden tests.
    #[cfg(test)]
    fn default_charts(&self) -> Vec<(&'static str, Option<ChartSpec>)>;
}

impl<L> Page<L>
where
    L: Lab,
    L::Config: Send + Sync,
{
    /// The typed view of an erased snapshot. Not inlined: some twenty
    /// methods per lab start with it, and one call each is smaller than
    /// twenty copies of the two downcasts (the page's bundle).
    #[inline(never)]
    fn view<'a>(&self, s: &'a Snap<'a>) -> Option<View<'a, L>> {
        let item = |i: Option<usize>| i.and_then(|i| L::Item::ALL.get(i).copied());
        Some(View {
            config: s.config.get::<L::Config>()?,
            outcome: s.outcome.get::<L::Outcome>()?,
            focus: item(s.focus),
            vs: item(s.vs),
            pickable: s.pickable,
            step: s.step,
        })
    }
}

/// The configuration as the shell reads and edits it: written once for
/// every lab over [`AnyConfig`] (generic methods here were compiled once per
/// lab, which the page's bundle paid for a dozen times).
impl dyn AnyPage {
    /// The configuration `pairs` describe, and a sentence per value that
    /// fell back to its default.
    pub fn read_config(&self, pairs: &[(String, String)], notices: &mut Vec<String>) -> Shared {
        let mut config = self.fresh_config();
        state::read_into(&mut *config, pairs, notices);
        Shared::from_config(config)
    }

    /// Every parameter's canonical text (what the worker runs).
    pub fn all_pairs(&self, config: &Shared) -> Vec<(&'static str, String)> {
        self.config_of(config)
            .map(erased::all_pairs)
            .unwrap_or_default()
    }

    /// The values that differ from the defaults (what the URL keeps).
    pub fn url_pairs(&self, config: &Shared) -> Vec<(&'static str, String)> {
        self.config_of(config)
            .map(erased::to_pairs)
            .unwrap_or_default()
    }

    /// One parameter's canonical text.
    pub fn get_text(&self, config: &Shared, key: &str) -> Option<String> {
        erased::text_of(self.config_of(config)?, key)
    }

    /// `config` with `key` set to `value`, or why not.
    pub fn set_text(
        &self,
        config: &Shared,
        key: &str,
        value: &str,
    ) -> Option<Result<Shared, String>> {
        let mut next = self.config_of(config)?.boxed();
        Some(match erased::set_checked(&mut *next, key, value)? {
            Ok(()) => Ok(Shared::from_config(next)),
            Err(e) => {
                let kept = self.get_text(config, key).unwrap_or_default();
                Err(refusal(key, &kept, &e))
            }
        })
    }
}

/// The sentence shown beside a control whose new value is refused: what is
/// wrong, and that the value the results are of stays.
pub fn refusal(key: &str, kept: &str, e: &sim_core::params::ParamError) -> String {
    let what = match &e.problem {
        // A clause that names the whole problem (a model too big for its
        // GPUs): it stands as the sentence's start.
        sim_core::params::Problem::Unfit(why) => capitalised(why),
        _ => format!("{} {}", e.key, e.problem),
    };
    let kept = if kept.is_empty() { "empty" } else { kept };
    format!("{what}. {} stays {kept}.", capitalised(key))
}

/// `text` with its first letter a capital (ASCII: the words are ours and
/// the presets' names; Unicode case tables would cost the bundle).
fn capitalised(text: &str) -> String {
    let mut t = text.to_string();
    if let Some(first) = t.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    t
}

impl<L> AnyPage for Page<L>
where
    L: Lab + 'static,
    L::Config: Send + Sync,
    L::Outcome: Send + Sync,
{
    fn entry(&self) -> &'static LabEntry {
        // Every page is of a registered lab (a native test checks it).
        labs::find(L::INFO.id).unwrap_or(&labs::LABS[0])
    }

    fn intro(&self) -> Html {
        // In the browser the introduction comes from index.html's shell data
        // (the page's module does not carry it, see `intro!`).
        match crate::platform::shell::intro(L::INFO.id) {
            Some(html) => Html::from_shell(html),
            None => (self.intro)(),
        }
    }

    fn inputs(&self) -> &'static str {
        self.inputs
    }

    fn fresh_config(&self) -> Box<dyn AnyConfig> {
        Box::new(L::Config::default())
    }

    fn config_of<'a>(&self, config: &'a Shared) -> Option<&'a dyn AnyConfig> {
        config.get::<L::Config>().map(|c| c as &dyn AnyConfig)
    }

    fn decode(&self, bytes: &[u8], config: &Shared) -> Result<Shared, String> {
        let mut outcome = labs::decode::<L::Outcome>(bytes)?;
        if let (Some(slot), Some(sent)) = (L::config_mut(&mut outcome), config.get::<L::Config>()) {
            *slot = sent.clone();
        }
        Ok(Shared::new(outcome))
    }

    fn defers(&self, config: &Shared, key: &str) -> bool {
        config
            .get::<L::Config>()
            .is_some_and(|c| (self.defer)(c, key))
    }

    fn player(&self) -> Option<PlayerMeta> {
        self.player.as_ref().map(|p| PlayerMeta {
            records: p.records,
            side_by_side: p.side_by_side,
            heading: p.heading,
            legend: p.legend,
        })
    }

    fn player_len(&self, s: &Snap<'_>) -> usize {
        match (&self.player, self.view(s)) {
            (Some(p), Some(v)) => (p.len)(&v),
            _ => 0,
        }
    }

    fn moments(&self, s: &Snap<'_>) -> Vec<usize> {
        match (&self.player, self.view(s)) {
            (Some(p), Some(v)) => (p.moments)(&v),
            _ => Vec::new(),
        }
    }

    fn opening(&self, s: &Snap<'_>) -> usize {
        use sim_core::labs::Opening;
        let opens = L::INFO.player.map_or(Opening::Start, |p| p.opens);
        match (opens, &self.player, self.view(s)) {
            (Opening::FirstMoment, Some(p), Some(v)) => (p.moments)(&v).first().copied(),
            (Opening::FirstDifference, Some(p), Some(v)) => (p.difference)(&v),
            _ => None,
        }
        .unwrap_or(0)
    }

    fn narrate(&self, s: &Snap<'_>) -> String {
        match (&self.player, self.view(s)) {
            (Some(p), Some(v)) => (p.narrate)(&v),
            _ => String::new(),
        }
    }

    fn scene(&self, s: &Snap<'_>, width: f64, palette: &Palette) -> Option<Scene> {
        (self.player.as_ref()?.scene)(&self.view(s)?, width, palette)
    }

    fn detail(&self, s: &Snap<'_>) -> AnyView {
        match (&self.player, self.view(s)) {
            (Some(p), Some(v)) => (p.detail)(&v),
            _ => ().into_any(),
        }
    }

    fn under_controls(&self, s: &Snap<'_>) -> Option<AnyView> {
        Some((self.under_controls?)(&self.view(s)?))
    }

    fn imported(&self, s: &Snap<'_>) -> Option<String> {
        (self.imported?)(&self.view(s)?)
    }

    fn progress_unit(&self) -> &'static str {
        self.progress
    }

    fn editor(&self) -> Option<&'static str> {
        self.editor.as_ref().map(|e| e.legend)
    }

    fn editor_view(&self, s: &Snap<'_>, edits: Edits) -> AnyView {
        match (&self.editor, self.view(s)) {
            (Some(e), Some(v)) => (e.view)(&v, edits),
            _ => ().into_any(),
        }
    }

    fn edit(&self, s: &Snap<'_>, edit: &Edit) -> Vec<(&'static str, String)> {
        match (&self.editor, self.view(s)) {
            (Some(e), Some(v)) => (e.edit)(&v, edit),
            _ => Vec::new(),
        }
    }

    fn has_cards(&self) -> bool {
        self.cards.is_some()
    }

    fn cards(&self, s: &Snap<'_>) -> AnyView {
        match (self.cards, self.view(s)) {
            (Some(f), Some(v)) => f(&v),
            _ => ().into_any(),
        }
    }

    fn charts(&self) -> Vec<ChartMeta> {
        self.charts
            .iter()
            .map(|c| ChartMeta {
                id: c.id,
                help: c.help,
                seek: c.seek,
                short: c.short,
            })
            .collect()
    }

    fn chart_caption(&self, i: usize, s: &Snap<'_>) -> String {
        match (self.charts.get(i), self.view(s)) {
            (Some(c), Some(v)) => (c.caption)(&v),
            _ => String::new(),
        }
    }

    fn chart_spec(&self, i: usize, s: &Snap<'_>, theme: &ChartTheme) -> Option<ChartSpec> {
        (self.charts.get(i)?.spec)(&self.view(s)?, theme)
    }

    fn chart_summary(&self, i: usize, s: &Snap<'_>) -> String {
        match (self.charts.get(i), self.view(s)) {
            (Some(c), Some(v)) => (c.summary)(&v),
            _ => String::new(),
        }
    }

    fn chart_shown(&self, i: usize, s: &Snap<'_>) -> bool {
        match (self.charts.get(i), self.view(s)) {
            (Some(c), Some(v)) => (c.shown)(&v),
            _ => true,
        }
    }

    fn table_count(&self) -> usize {
        self.tables.len()
    }

    fn table(&self, i: usize, s: &Snap<'_>, pick: Pick) -> AnyView {
        match (self.tables.get(i), self.view(s)) {
            (Some(t), Some(v)) => t(&v, pick),
            _ => ().into_any(),
        }
    }

    fn comparison(&self) -> Option<&'static str> {
        self.comparison.as_ref().map(|c| c.heading)
    }

    fn comparison_table(&self, s: &Snap<'_>, pick: Pick) -> AnyView {
        match (&self.comparison, self.view(s)) {
            (Some(c), Some(v)) => (c.table)(&v, pick),
            _ => ().into_any(),
        }
    }

    fn comparison_note(&self, s: &Snap<'_>) -> AnyView {
        match (&self.comparison, self.view(s)) {
            (Some(c), Some(v)) => (c.note)(&v),
            _ => ().into_any(),
        }
    }

    fn extras(&self) -> &'static [fn(&state::State) -> leptos::prelude::AnyView] {
        self.extras
    }

    #[cfg(test)]
    fn default_charts(&self) -> Vec<(&'static str, Option<ChartSpec>)> {
        let config = L::Config::default();
        // A player that plays a recording has the page's run record the item
        // in focus, as the page does.
        let focus: Vec<L::Item> = L::FOCUS.map(|f| f.default).into_iter().collect();
        let records = self.player.as_ref().is_some_and(|p| p.records);
        let input = labs::Input {
            record: if records { &focus } else { &[] },
            ..labs::Input::all()
        };
        let outcome = L::run(&config, &input).expect("the defaults run");
        let first = || 0;
        let view = View::<L>::new(&config, &outcome, L::FOCUS.map(|f| f.default), Step(&first));
        let theme = ChartTheme::default();
        self.charts
            .iter()
            .map(|c| (c.id, (c.spec)(&view, &theme)))
            .collect()
    }
}

#[cfg(test)]
mod refusal_tests {
    use sim_core::labs::routing::Config;
    use sim_core::params::{erased, AnyConfig};

    /// A model too big for its GPU, picked in milliseconds mode: the
    /// sentence says why and what stays, with no "gpu must be …" in front.
    #[test]
    fn a_model_that_does_not_fit_is_refused_in_a_sentence() {
        let mut c = Config::default();
        let c: &mut dyn AnyConfig = &mut c;
        for (k, v) in [("gpu", "h100"), ("model", "llama-3.1-8b"), ("tp", "1")] {
            erased::set_checked(c, k, v).unwrap().unwrap();
        }
        let e = erased::set_checked(c, "model", "llama-3-70b")
            .unwrap()
            .unwrap_err();
        let said = super::refusal("model", "llama-3.1-8b", &e);
        println!("{said}");
        assert!(said.starts_with("Llama 3 70B in BF16 needs"), "{said}");
        assert!(
            said.ends_with("raise tp or use fp8. Model stays llama-3.1-8b."),
            "{said}"
        );
        assert!(!said.contains("must be"), "{said}");
    }
}
