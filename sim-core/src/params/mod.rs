//! Parameter tables: every lab declares its configuration once.
//!
//! A lab's [`Config`](crate::labs) lists each field as one [`Param`]: its key
//! (the URL query key and the CLI flag, kebab-case), a label and unit for the UI,
//! a one-line doc, its range and step, and a getter/setter pair. Everything that
//! reads or writes a configuration goes through the table:
//!
//! - [`Configurable::validate`] checks every value against its range, then the
//!   constraints between fields ([`Configurable::cross_check`]);
//! - the CLI builds its flags, `--help` lines and range errors from it;
//! - the web page builds its controls and reads/writes its URL with it
//!   ([`from_pairs`], [`to_pairs`]).
//!
//! Defaults are not repeated here: they are whatever the config's `Default`
//! gives, read through the getter. Values travel as text at the edges (URL, CLI,
//! form inputs) and [`Param::set_text`] is the one parser, so a value the CLI
//! accepts is a value the URL accepts and vice versa.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

pub mod erased;
pub(crate) use erased::fix;
pub use erased::AnyConfig;

/// Where a parameter appears in the UI: with the main controls, or under a
/// disclosure of further settings (every parameter is reachable either way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Shown with the lab's main controls.
    Main,
    /// Shown under "More settings".
    Advanced,
}

/// In which time mode a parameter is read (the `gpu` parameter picks the
/// mode of a lab with engines: `none` is ticks, a GPU milliseconds). The
/// page shows only the parameters of the current mode; the CLI accepts
/// both and reports the ones that apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// In either mode.
    Always,
    /// Only in ticks (`gpu=none`).
    Ticks,
    /// Only in milliseconds (a GPU chosen).
    Ms,
}

impl When {
    /// Whether a parameter read `self` applies when milliseconds mode is `in_ms`.
    pub fn applies(self, in_ms: bool) -> bool {
        match self {
            When::Always => true,
            When::Ticks => !in_ms,
            When::Ms => in_ms,
        }
    }
}

/// The key that picks the time mode (see [`When`]).
pub const TIME_MODE_KEY: &str = "gpu";

/// The most characters a number may have, wherever one is read (a URL value,
/// a CLI flag, a trace field, an item of a list): no setting needs more, and
/// refusing a longer one before parsing keeps a crafted link or file from
/// costing time.
pub const MAX_NUMBER_CHARS: usize = 64;

/// The most characters a text value may have (the longest a setting needs is
/// a list of 64 load stages).
pub const MAX_TEXT_CHARS: usize = 2048;

/// `text` (trimmed) as a number, if it is one of at most
/// [`MAX_NUMBER_CHARS`] characters (what lists of numbers read items with).
pub fn real(text: &str) -> Option<f64> {
    let t = text.trim();
    if t.len() > MAX_NUMBER_CHARS {
        return None;
    }
    t.parse().ok()
}

/// How a value is written for people (the UI's live value, the CLI's help).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// Fixed number of decimals.
    Fixed(u8),
    /// Whole number with thousands separators.
    Thousands,
    /// A share (0–1) shown as a percentage with this many decimals.
    Percent(u8),
}

/// One option of a [`Kind::Choice`] parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opt {
    /// The value as written in URLs, the CLI and JSON.
    pub name: &'static str,
    /// A human title.
    pub title: &'static str,
    /// One line on what it means (may be empty).
    pub doc: &'static str,
}

/// The value type and range of a parameter, with typed access to its field.
pub enum Kind<C> {
    /// A real number in `[min, max]`; `step` is the finest step the UI offers.
    Real {
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
        /// Slider step (values in between are still accepted from URL and CLI).
        step: f64,
        /// Reads the field.
        get: fn(&C) -> f64,
        /// Writes the field (the value is already range-checked).
        set: fn(&mut C, f64),
    },
    /// A whole number in `[min, max]`.
    Whole {
        /// Smallest accepted value.
        min: u64,
        /// Largest accepted value.
        max: u64,
        /// Slider step.
        step: u64,
        /// Reads the field.
        get: fn(&C) -> u64,
        /// Writes the field (the value is already range-checked).
        set: fn(&mut C, u64),
    },
    /// A whole number in `[min, max]`, or unbounded (written `inf`).
    WholeOrInf {
        /// Smallest accepted value.
        min: u64,
        /// Largest finite value.
        max: u64,
        /// Reads the field (`None` is unbounded).
        get: fn(&C) -> Option<u64>,
        /// Writes the field.
        set: fn(&mut C, Option<u64>),
    },
    /// On or off, written `1` / `0`.
    Switch {
        /// Reads the field.
        get: fn(&C) -> bool,
        /// Writes the field.
        set: fn(&mut C, bool),
    },
    /// One of a list of named options.
    Choice {
        /// The options, in display order.
        options: fn() -> Vec<Opt>,
        /// Reads the field as an option name.
        get: fn(&C) -> &'static str,
        /// Writes the field from an option name (already checked to be one).
        set: fn(&mut C, &str),
    },
    /// A seed: any 64-bit whole number.
    Seed {
        /// Reads the field.
        get: fn(&C) -> u64,
        /// Writes the field.
        set: fn(&mut C, u64),
    },
    /// Free text that the lab parses (a list, a small trace).
    Text {
        /// What the text may be, for help lines and hints.
        hint: &'static str,
        /// Valid values other than the default (for help and tests).
        examples: &'static [&'static str],
        /// Reads the field in its canonical text form.
        get: fn(&C) -> String,
        /// Parses and writes the field, or says what is wrong with the text.
        set: fn(&mut C, &str) -> Result<(), String>,
    },
}

/// The value type and range of a parameter without its accessors: what a UI or
/// a help text needs to present it.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// See [`Kind::Real`].
    Real {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Slider step.
        step: f64,
    },
    /// See [`Kind::Whole`].
    Whole {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
        /// Slider step.
        step: u64,
    },
    /// See [`Kind::WholeOrInf`].
    WholeOrInf {
        /// Smallest value.
        min: u64,
        /// Largest finite value.
        max: u64,
    },
    /// See [`Kind::Switch`].
    Switch,
    /// See [`Kind::Choice`].
    Choice(Vec<Opt>),
    /// See [`Kind::Seed`].
    Seed,
    /// See [`Kind::Text`].
    Text {
        /// What the text may be.
        hint: &'static str,
        /// Valid values other than the default.
        examples: &'static [&'static str],
    },
}

/// One configuration parameter of a lab: declared once, used by validation, the
/// CLI, the URL codec and the UI.
pub struct Param<C> {
    /// URL key and CLI flag (kebab-case, unique within the lab).
    pub key: &'static str,
    /// Label for the UI.
    pub label: &'static str,
    /// Unit shown after values ("tokens", "req/tick"; may be empty).
    pub unit: &'static str,
    /// One line on what the parameter means.
    pub doc: &'static str,
    /// Main control or further setting.
    pub tier: Tier,
    /// How values are written for people.
    pub show: Show,
    /// The time mode it is read in.
    pub when: When,
    /// Type, range and access.
    pub kind: Kind<C>,
}

// Tables are plain data (names, numbers, function pointers), so parameters copy
// freely: that is what lets a lab's table be assembled at compile time from the
// rows each selection rule declares in its own file (see [`concat`]).
impl<C> Clone for Kind<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Kind<C> {}

impl<C> Clone for Param<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Param<C> {}

/// Total rows of several tables (for the length of a [`concat`]enated table).
pub const fn total_len<C>(tables: &[&[Param<C>]]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < tables.len() {
        n += tables[i].len();
        i += 1;
    }
    n
}

/// Several tables as one, in order, at compile time. `N` must be
/// [`total_len`] of `tables`; a wrong length fails compilation (const panic).
pub const fn concat<C, const N: usize>(tables: &[&[Param<C>]]) -> [Param<C>; N] {
    assert!(
        N == total_len(tables) && N > 0,
        "concat: N must be the total length"
    );
    // Every slot is overwritten below; the first row is only a placeholder.
    let mut first = 0;
    while tables[first].is_empty() {
        first += 1;
    }
    let mut out = [tables[first][0]; N];
    let (mut t, mut k) = (0, 0);
    while t < tables.len() {
        let mut i = 0;
        while i < tables[t].len() {
            out[k] = tables[t][i];
            k += 1;
            i += 1;
        }
        t += 1;
    }
    out
}

/// A parameter's description without accessors (see [`Param::spec`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// URL key and CLI flag.
    pub key: &'static str,
    /// Label for the UI.
    pub label: &'static str,
    /// Unit shown after values.
    pub unit: &'static str,
    /// One line on what it means.
    pub doc: &'static str,
    /// Main control or further setting.
    pub tier: Tier,
    /// How values are written for people.
    pub show: Show,
    /// The time mode it is read in.
    pub when: When,
    /// Type and range.
    pub shape: Shape,
    /// The default value, as text.
    pub default: String,
}

impl<C> Param<C> {
    const fn new(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        kind: Kind<C>,
    ) -> Self {
        Param {
            key,
            label,
            unit,
            doc: "",
            tier: Tier::Main,
            show: Show::Fixed(0),
            when: When::Always,
            kind,
        }
    }

    /// A real number in `[min, max]` with slider step `step`, shown with as many
    /// decimals as the step needs.
    pub const fn real(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        (min, max, step): (f64, f64, f64),
        get: fn(&C) -> f64,
        set: fn(&mut C, f64),
    ) -> Self {
        let mut p = Param::new(
            key,
            label,
            unit,
            Kind::Real {
                min,
                max,
                step,
                get,
                set,
            },
        );
        p.show = Show::Fixed(decimals_of(step));
        p
    }

    /// A whole number in `[min, max]` with slider step `step`.
    pub const fn whole(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        (min, max, step): (u64, u64, u64),
        get: fn(&C) -> u64,
        set: fn(&mut C, u64),
    ) -> Self {
        let mut p = Param::new(
            key,
            label,
            unit,
            Kind::Whole {
                min,
                max,
                step,
                get,
                set,
            },
        );
        p.show = Show::Thousands;
        p
    }

    /// A whole number in `[min, max]` or unbounded (`inf`).
    pub const fn whole_or_inf(
        key: &'static str,
        label: &'static str,
        unit: &'static str,
        (min, max): (u64, u64),
        get: fn(&C) -> Option<u64>,
        set: fn(&mut C, Option<u64>),
    ) -> Self {
        Param::new(key, label, unit, Kind::WholeOrInf { min, max, get, set })
    }

    /// An on/off switch.
    pub const fn switch(
        key: &'static str,
        label: &'static str,
        get: fn(&C) -> bool,
        set: fn(&mut C, bool),
    ) -> Self {
        Param::new(key, label, "", Kind::Switch { get, set })
    }

    /// One of named options.
    pub const fn choice(
        key: &'static str,
        label: &'static str,
        options: fn() -> Vec<Opt>,
        get: fn(&C) -> &'static str,
        set: fn(&mut C, &str),
    ) -> Self {
        Param::new(key, label, "", Kind::Choice { options, get, set })
    }

    /// The seed of a run's random streams.
    pub const fn seed(get: fn(&C) -> u64, set: fn(&mut C, u64)) -> Self {
        let mut p = Param::new("seed", "Seed", "", Kind::Seed { get, set });
        p.doc = "Seed of every random stream: the same seed replays the same run.";
        p
    }

    /// Free text the lab parses; `hint` says what it may be and `examples`
    /// are valid values other than the default.
    pub const fn text(
        key: &'static str,
        label: &'static str,
        (hint, examples): (&'static str, &'static [&'static str]),
        get: fn(&C) -> String,
        set: fn(&mut C, &str) -> Result<(), String>,
    ) -> Self {
        Param::new(
            key,
            label,
            "",
            Kind::Text {
                hint,
                examples,
                get,
                set,
            },
        )
    }

    /// With a one-line doc.
    pub const fn doc(mut self, doc: &'static str) -> Self {
        self.doc = doc;
        self
    }

    /// Under "More settings" rather than with the main controls.
    pub const fn advanced(mut self) -> Self {
        self.tier = Tier::Advanced;
        self
    }

    /// Read only in ticks mode.
    pub const fn ticks_only(mut self) -> Self {
        self.when = When::Ticks;
        self
    }

    /// Read only in milliseconds mode.
    pub const fn ms_only(mut self) -> Self {
        self.when = When::Ms;
        self
    }

    /// Written for people as `show`.
    pub const fn show(mut self, show: Show) -> Self {
        self.show = show;
        self
    }

    /// Type and range, without accessors.
    pub fn shape(&self) -> Shape {
        match self.kind {
            Kind::Real { min, max, step, .. } => Shape::Real { min, max, step },
            Kind::Whole { min, max, step, .. } => Shape::Whole { min, max, step },
            Kind::WholeOrInf { min, max, .. } => Shape::WholeOrInf { min, max },
            Kind::Switch { .. } => Shape::Switch,
            Kind::Choice { options, .. } => Shape::Choice(options()),
            Kind::Seed { .. } => Shape::Seed,
            Kind::Text { hint, examples, .. } => Shape::Text { hint, examples },
        }
    }

    /// The whole description, with the default read from `C::default()`.
    pub fn spec(&self) -> Spec
    where
        C: Default,
    {
        self.spec_of(&C::default())
    }

    /// The whole description, with the default read from `default`.
    pub fn spec_of(&self, default: &C) -> Spec {
        Spec {
            key: self.key,
            label: self.label,
            unit: self.unit,
            doc: self.doc,
            tier: self.tier,
            show: self.show,
            when: self.when,
            shape: self.shape(),
            default: self.get_text(default),
        }
    }

    /// The value in `config`, as canonical text (what URLs and the CLI write).
    pub fn get_text(&self, config: &C) -> String {
        self.value(config).text()
    }

    /// The value in `config`, without its config type. Only the accessors
    /// are generic; parsing, checking and writing values are not, so they are
    /// compiled once rather than once per lab (the page's bundle).
    fn value(&self, config: &C) -> Value<'static> {
        match self.kind {
            Kind::Real { get, .. } => Value::Real(get(config)),
            Kind::Whole { get, .. } | Kind::Seed { get, .. } => Value::Whole(get(config)),
            Kind::WholeOrInf { get, .. } => Value::Inf(get(config)),
            Kind::Switch { get, .. } => Value::Switch(get(config)),
            Kind::Choice { get, .. } => Value::Name(get(config)),
            Kind::Text { get, .. } => Value::Text(Cow::Owned(get(config))),
        }
    }

    /// Write `value` (already parsed and range-checked) into `config`.
    fn put(&self, config: &mut C, value: Value<'_>) -> Result<(), String> {
        match (self.kind, value) {
            (Kind::Real { set, .. }, Value::Real(x)) => set(config, x),
            (Kind::Whole { set, .. } | Kind::Seed { set, .. }, Value::Whole(x)) => set(config, x),
            (Kind::WholeOrInf { set, .. }, Value::Inf(x)) => set(config, x),
            (Kind::Switch { set, .. }, Value::Switch(x)) => set(config, x),
            (Kind::Choice { set, .. }, Value::Name(x)) => set(config, x),
            (Kind::Text { set, .. }, Value::Text(x)) => return set(config, &x),
            _ => return Err(String::from("a value of another kind")),
        }
        Ok(())
    }

    /// The value in `config` as a number, for sliders and charts (`None` for
    /// switches, choices and text; `f64::INFINITY` for unbounded).
    pub fn get_number(&self, config: &C) -> Option<f64> {
        match self.kind {
            Kind::Real { get, .. } => Some(get(config)),
            Kind::Whole { get, .. } | Kind::Seed { get, .. } => Some(get(config) as f64),
            Kind::WholeOrInf { get, .. } => Some(get(config).map_or(f64::INFINITY, |x| x as f64)),
            _ => None,
        }
    }

    /// Parse `text`, check it against the range, and write it into `config`. On
    /// error `config` is unchanged.
    pub fn set_text(&self, config: &mut C, text: &str) -> Result<(), ParamError> {
        let shape = self.shape();
        let value = shape
            .parse(text.trim())
            .ok_or_else(|| ParamError::new(self.key, text, shape.problem()))?;
        self.put(config, value)
            .map_err(|why| ParamError::new(self.key, text, Problem::Invalid(why)))
    }

    /// Check the value in `config` against the range (a config built in code,
    /// or deserialised, may hold anything). Text must parse back through its
    /// own setter.
    pub fn check(&self, config: &C) -> Result<(), ParamError>
    where
        C: Clone,
    {
        match (self.value(config), self.kind) {
            (Value::Text(text), Kind::Text { set, .. }) => {
                let mut scratch = config.clone();
                set(&mut scratch, &text)
                    .map_err(|why| ParamError::new(self.key, &text, Problem::Invalid(why)))
            }
            (value, _) => {
                let shape = self.shape();
                if shape.admits(&value) {
                    Ok(())
                } else {
                    Err(ParamError::new(self.key, &value.text(), shape.problem()))
                }
            }
        }
    }
}

/// A parameter's value without its config type (see [`Param::get_text`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'t> {
    /// A real number.
    Real(f64),
    /// A whole number (or a seed).
    Whole(u64),
    /// A whole number or unbounded (`None`).
    Inf(Option<u64>),
    /// On or off.
    Switch(bool),
    /// An option's name.
    Name(&'t str),
    /// Free text.
    Text(Cow<'t, str>),
}

impl Value<'_> {
    /// Canonical text (what URLs and the CLI write).
    fn text(&self) -> String {
        match self {
            Value::Real(x) => real_text(*x),
            Value::Whole(x) | Value::Inf(Some(x)) => x.to_string(),
            Value::Inf(None) => String::from("inf"),
            Value::Switch(b) => String::from(if *b { "1" } else { "0" }),
            Value::Name(x) => String::from(*x),
            Value::Text(x) => x.to_string(),
        }
    }
}

impl Shape {
    /// The most characters a value of this shape may have: a number's cap
    /// for numbers and switches, the longest name for a choice, the text cap
    /// for text (with room around it for spaces a reader typed).
    pub fn max_chars(&self) -> usize {
        match self {
            Shape::Text { .. } => MAX_TEXT_CHARS,
            Shape::Choice(options) => {
                options.iter().map(|o| o.name.len()).max().unwrap_or(0) + MAX_NUMBER_CHARS
            }
            _ => MAX_NUMBER_CHARS,
        }
    }

    /// `t` (trimmed) as a value of this shape, if it is one in range.
    fn parse<'t>(&self, t: &'t str) -> Option<Value<'t>> {
        let value = match self {
            Shape::Real { .. } => Value::Real(t.parse().ok()?),
            Shape::Whole { .. } | Shape::Seed => Value::Whole(t.parse().ok()?),
            Shape::WholeOrInf { .. } if matches!(t, "inf" | "∞" | "infinity") => Value::Inf(None),
            Shape::WholeOrInf { .. } => Value::Inf(Some(t.parse().ok()?)),
            Shape::Switch => match t {
                "1" | "true" | "on" | "yes" => Value::Switch(true),
                "0" | "false" | "off" | "no" => Value::Switch(false),
                _ => return None,
            },
            Shape::Choice(_) => Value::Name(t),
            Shape::Text { .. } => Value::Text(Cow::Borrowed(t)),
        };
        self.admits(&value).then_some(value)
    }

    /// Whether `value` is in range (text is the lab's to judge).
    fn admits(&self, value: &Value<'_>) -> bool {
        match (self, value) {
            (Shape::Real { min, max, .. }, Value::Real(x)) => x.is_finite() && x >= min && x <= max,
            (Shape::Whole { min, max, .. }, Value::Whole(x))
            | (Shape::WholeOrInf { min, max }, Value::Inf(Some(x))) => (min..=max).contains(&x),
            (Shape::WholeOrInf { .. }, Value::Inf(None))
            | (Shape::Seed, Value::Whole(_))
            | (Shape::Switch, Value::Switch(_))
            | (Shape::Text { .. }, Value::Text(_)) => true,
            (Shape::Choice(options), Value::Name(n)) => options.iter().any(|o| o.name == *n),
            _ => false,
        }
    }

    /// What a value of this shape must be, for an error.
    fn problem(&self) -> Problem {
        match self {
            Shape::Real { min, max, .. } => Problem::Number {
                min: number_text(*min),
                max: number_text(*max),
            },
            Shape::Whole { min, max, .. } => Problem::Whole {
                min: min.to_string(),
                max: max.to_string(),
            },
            Shape::WholeOrInf { min, max } => Problem::WholeOrInf {
                min: min.to_string(),
                max: max.to_string(),
            },
            Shape::Seed => Problem::Whole {
                min: String::from("0"),
                max: u64::MAX.to_string(),
            },
            Shape::Switch => Problem::Switch,
            Shape::Choice(options) => Problem::Option(options.iter().map(|o| o.name).collect()),
            Shape::Text { hint, .. } => Problem::Invalid(String::from(*hint)),
        }
    }
}

impl ParamError {
    /// The error for `given` (text) against parameter `key`.
    fn new(key: &'static str, given: &str, problem: Problem) -> ParamError {
        ParamError {
            key,
            given: String::from(given),
            problem,
        }
    }
}

/// Decimal places a step needs (0.05 → 2, 1 → 0), for [`Show::Fixed`].
const fn decimals_of(step: f64) -> u8 {
    let mut d = 0u8;
    let mut scaled = step;
    while d < 6 {
        let whole = scaled as u64 as f64;
        let diff = scaled - whole;
        if diff < 1e-9 && diff > -1e-9 {
            break;
        }
        scaled *= 10.0;
        d += 1;
    }
    d
}

/// `u64` → `u32` for a whole-number parameter whose range keeps it inside
/// `u32` (the tables read and write whole numbers as `u64`).
pub fn narrow(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// A real value in canonical text: the shortest decimal that reads back to the
/// same `f64` (Rust's `Display`), so text round-trips exactly.
pub fn real_text(x: f64) -> String {
    format!("{}", x)
}

/// A range bound as people type it: no trailing `.0`.
pub fn number_text(x: f64) -> String {
    if x == libm::trunc(x) && libm::fabs(x) < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{}", x)
    }
}

/// What is wrong with a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Not a number in the range.
    Number {
        /// Smallest accepted value, as text.
        min: String,
        /// Largest accepted value, as text.
        max: String,
    },
    /// Not a whole number in the range.
    Whole {
        /// Smallest accepted value.
        min: String,
        /// Largest accepted value.
        max: String,
    },
    /// Not a whole number in the range, nor `inf`.
    WholeOrInf {
        /// Smallest accepted value.
        min: String,
        /// Largest finite value.
        max: String,
    },
    /// Not 0 or 1.
    Switch,
    /// Not one of the options.
    Option(Vec<&'static str>),
    /// Not acceptable text; says why.
    Invalid(String),
    /// Smaller than another parameter it must not be below.
    Below(&'static str),
    /// In conflict with another parameter: what it must be to fit it (`why`
    /// reads after "must be").
    Against {
        /// The other parameter of the pair.
        other: &'static str,
        /// What this one must be, in words.
        why: String,
    },
    /// In range, but the configuration as a whole cannot run with it: why,
    /// as a clause that reads on its own ("Llama 3 70B in BF16 needs 141 GB
    /// of weights, …; raise tp or use fp8").
    Unfit(String),
    /// Longer than any value of the parameter can be: refused unread.
    TooLong {
        /// The most characters a value may have.
        max: usize,
        /// How many it had.
        had: usize,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Number { min, max } => write!(f, "must be a number between {min} and {max}"),
            Problem::Whole { min, max } => {
                write!(f, "must be a whole number between {min} and {max}")
            }
            Problem::WholeOrInf { min, max } => {
                write!(f, "must be a whole number between {min} and {max}, or inf")
            }
            Problem::Switch => write!(f, "must be 0 or 1"),
            Problem::Option(names) => write!(f, "must be one of {}", names.join(", ")),
            Problem::Invalid(why) => write!(f, "must be {why}"),
            Problem::Below(other) => write!(f, "must be at least {other}"),
            Problem::Against { why, .. } => write!(f, "must be {why}"),
            Problem::Unfit(why) => write!(f, "does not fit: {why}"),
            Problem::TooLong { max, had } => write!(
                f,
                "must be at most {max} characters long; this value has {}",
                thousands(*had as u64)
            ),
        }
    }
}

/// A parameter value that cannot be used: which key, what was given, and what
/// is required. Displays as one line, e.g. `rate must be a number between 0.01
/// and 2 (got 'abc')`; the CLI prefixes the key with `--`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    /// The parameter's key.
    pub key: &'static str,
    /// What was given, as text.
    pub given: String,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} (got '{}')",
            self.key,
            self.problem,
            shown(&self.given)
        )
    }
}

/// Longest echo of a given value in a message, in characters.
pub const SHOWN: usize = 60;

/// A value someone gave, fit to be echoed in a one-line message: control
/// characters (line breaks, terminal escapes) written as escapes, and cut to
/// [`SHOWN`] characters with an ellipsis.
pub fn shown(given: &str) -> String {
    let mut out = String::new();
    for (i, c) in given.chars().enumerate() {
        if i == SHOWN {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(feature = "std")]
impl std::error::Error for ParamError {}

/// A configuration described by a parameter table.
pub trait Configurable: Default + Clone + PartialEq + Send + Sync + 'static {
    /// Every parameter, in display order.
    const PARAMS: &'static [Param<Self>];

    /// Constraints between parameters, checked once each value is in range
    /// (e.g. the longest prompt is at least the shortest).
    fn cross_check(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// Check every value against its range, then the cross-constraints.
    fn validate(&self) -> Result<(), ParamError> {
        erased::validate(self)
    }

    /// The parameter with `key`.
    fn param(key: &str) -> Option<&'static Param<Self>> {
        Self::PARAMS.iter().find(|p| p.key == key)
    }

    /// Every parameter's description, defaults included.
    fn specs() -> Vec<Spec> {
        erased::specs(&Self::default())
    }
}

/// Build a config from `(key, text)` pairs (a URL query, CLI flags): every known
/// key is parsed and range-checked; a value that cannot be used leaves the
/// default in place and is reported. Unknown keys are ignored (the caller owns
/// them). A cross-constraint that fails resets the offending key to its default.
pub fn from_pairs<'a, C: Configurable>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> (C, Vec<ParamError>) {
    // Collected first: the work below is then compiled once per config type,
    // not once per config type and kind of iterator (the page's bundle).
    let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
    from_pair_list(&pairs)
}

/// [`from_pairs`] over a slice.
fn from_pair_list<C: Configurable>(pairs: &[(&str, &str)]) -> (C, Vec<ParamError>) {
    let mut config = C::default();
    let errors = erased::from_pairs(&mut config, pairs);
    (config, errors)
}

/// Which key to reset after the cross-check failed with `e`, and the error
/// to report: the key the check names, if the reader gave it; otherwise, or
/// if that did not help (`sweep-from=5` is above even the default
/// `sweep-to`), the value it must not fall below. Not generic (`text_of`
/// reads a value's text), so it is compiled once for every lab.
fn to_reset(
    e: ParamError,
    given: &[&'static str],
    reset: &[&'static str],
    text_of: &dyn Fn(&str) -> String,
) -> (&'static str, ParamError) {
    let partner = match e.problem {
        Problem::Below(p) | Problem::Against { other: p, .. } if !reset.contains(&p) => Some(p),
        _ => None,
    };
    let own_first = given.contains(&e.key) || partner.is_none();
    if own_first && !reset.contains(&e.key) {
        (e.key, e)
    } else if let Some(partner) = partner {
        // The pair is named: the partner goes back to its default, and the
        // reader learns which of its values it had to fit.
        let problem = match &e.problem {
            Problem::Against { why, .. } => Problem::Invalid(format!(
                "consistent with {} ({}), which must be {why}",
                e.key,
                text_of(e.key)
            )),
            _ => Problem::Invalid(format!("at most {}", e.key)),
        };
        (
            partner,
            ParamError::new(partner, &text_of(partner), problem),
        )
    } else {
        (e.key, e)
    }
}

/// The `(key, text)` pairs that rebuild `config` through [`from_pairs`]: only
/// values that differ from the default, so links stay short.
pub fn to_pairs<C: Configurable>(config: &C) -> Vec<(&'static str, String)> {
    erased::to_pairs(config)
}

/// Every parameter's key and current value, in table order.
pub fn all_pairs<C: Configurable>(config: &C) -> Vec<(&'static str, String)> {
    erased::all_pairs(config)
}

/// `key` as a CLI flag (`rate` → `--rate`), for messages.
pub fn flag(key: &str) -> String {
    let mut s = String::from("--");
    s.push_str(key);
    s
}

/// The default value of `key`, as text (empty for an unknown key).
pub fn default_text<C: Configurable>(key: &str) -> String {
    erased::default_text(&C::default(), key)
}

impl Shape {
    /// Whether a UI should offer a slider (at most 10,000 positions) rather
    /// than a number field.
    pub fn is_slider(&self) -> bool {
        match *self {
            Shape::Real { min, max, step } => (max - min) / step <= 10_000.0,
            Shape::Whole { min, max, step } => (max - min) / step.max(1) <= 10_000,
            Shape::WholeOrInf { .. } => true,
            _ => false,
        }
    }
}

impl Spec {
    /// Valid values to try, as text: the range ends and a middle value, every
    /// option, both switch positions, examples of text. Tests walk these through
    /// every codec (URL, CLI) and expect each to come back unchanged.
    pub fn samples(&self) -> Vec<String> {
        let mut out: Vec<String> = match &self.shape {
            Shape::Real { min, max, step } => {
                let steps = libm::floor((max - min) / step / 2.0);
                let mid = min + steps * step;
                alloc::vec![real_text(*min), real_text(*max), real_text(mid)]
            }
            Shape::Whole { min, max, .. } => {
                alloc::vec![
                    min.to_string(),
                    max.to_string(),
                    (min + (max - min) / 2).to_string()
                ]
            }
            Shape::WholeOrInf { min, max } => {
                alloc::vec![min.to_string(), max.to_string(), String::from("inf")]
            }
            Shape::Switch => alloc::vec![String::from("0"), String::from("1")],
            Shape::Choice(opts) => opts.iter().map(|o| String::from(o.name)).collect(),
            Shape::Seed => alloc::vec![String::from("0"), u64::MAX.to_string(), String::from("77")],
            Shape::Text { examples, .. } => examples.iter().map(|e| String::from(*e)).collect(),
        };
        out.push(self.default.clone());
        out.sort();
        out.dedup();
        out
    }

    /// One line for `--help`: the doc, then default and range.
    pub fn help_line(&self) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        let range = match &self.shape {
            Shape::Real { min, max, .. } => {
                format!("range {}–{}{unit}", number_text(*min), number_text(*max))
            }
            Shape::Whole { min, max, .. } => format!("range {min}–{max}{unit}"),
            Shape::WholeOrInf { min, max } => format!("range {min}–{max}{unit} or inf"),
            Shape::Switch => String::from("0 or 1; the bare flag means 1"),
            Shape::Choice(opts) => {
                let names: Vec<&str> = opts.iter().map(|o| o.name).collect();
                format!("one of {}", names.join(", "))
            }
            Shape::Seed => format!("range 0–{}", u64::MAX),
            Shape::Text { hint, .. } => String::from(*hint),
        };
        let what = if self.doc.is_empty() {
            self.label
        } else {
            self.doc
        };
        format!("{what} (default {}; {range})", self.default)
    }
}

/// A whole number with thousands separators (for messages).
pub fn thousands(n: u64) -> String {
    let digits = format!("{n}");
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod cross_tests {
    use super::*;
    use crate::labs::goodput::Config;

    /// A lower bound above even the default upper bound is the value that
    /// goes, with one notice naming it; the result is consistent.
    #[test]
    fn a_bound_that_cannot_hold_is_the_one_reset() {
        let (c, errors) = from_pairs::<Config>([("sweep-from", "5")]);
        assert!(c.validate().is_ok());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].key, "sweep-from");
        assert_eq!(errors[0].given, "5");
        // A reader's upper bound below the default lower bound goes itself.
        let (c, errors) = from_pairs::<Config>([("sweep-to", "0.02")]);
        assert!(c.validate().is_ok());
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].key, "sweep-to");
        // Both given and crossed, the default upper bound below the given
        // lower one: both go, each named once, and the run is the default's.
        let (c, errors) = from_pairs::<Config>([("sweep-from", "0.5"), ("sweep-to", "0.3")]);
        assert!(c.validate().is_ok());
        let keys: Vec<&str> = errors.iter().map(|e| e.key).collect();
        assert_eq!(keys, ["sweep-to", "sweep-from"]);
    }
}
