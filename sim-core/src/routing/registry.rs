//! The machinery behind the one list of selection rules.
//!
//! `routing/mod.rs` names every rule once, in the [`rules!`] invocation: one line
//! per rule, `module::Type`. From that list the macro declares the module,
//! re-exports the type, and generates [`RuleKind`] (the registry the CLI, the
//! tests and the web page iterate), [`AnyRouter`] (dispatch without boxing) and
//! the serde names. A rule's name, title and one-line signal live in its own
//! file, as the [`Rule`] trait's constants. So a new rule is one file plus one
//! line, and nothing else in the workspace counts or lists the rules.

use super::Router;
use crate::params::Param;

/// Where a rule's behaviour comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Origin {
    /// A textbook rule, one of the article's Routing Lab (§4.2).
    Textbook,
    /// A real router's policy, pinned to one upstream version.
    Upstream {
        /// The project, e.g. "SGLang model gateway".
        project: &'static str,
        /// The pinned release or commit.
        version: &'static str,
        /// The upstream file the policy lives in.
        file: &'static str,
    },
}

impl Origin {
    /// Whether this is one of the article's textbook rules.
    pub fn is_textbook(self) -> bool {
        matches!(self, Origin::Textbook)
    }

    /// A one-line credit for tooltips and reports.
    pub fn credit(self) -> alloc::string::String {
        match self {
            Origin::Textbook => "textbook rule".into(),
            Origin::Upstream {
                project,
                version,
                file,
            } => alloc::format!("{project} {version}, {file}"),
        }
    }
}

/// What the registry needs to know of a rule besides how it selects.
pub trait Rule: Router + Clone + core::fmt::Debug {
    /// The name used everywhere: CLI, JSON, URLs (kebab-case).
    const NAME: &'static str;
    /// A human title for tables and pickers.
    const TITLE: &'static str;
    /// One line on the signal the rule reads.
    const SIGNAL: &'static str;
    /// Where the behaviour comes from (textbook unless the rule says otherwise).
    const ORIGIN: Origin = Origin::Textbook;
    /// The rule's own settings (`()` when it has none). The generated
    /// [`RuleSettings`](super::RuleSettings) holds one per rule, in the field
    /// named after the rule's module.
    type Settings: Clone
        + Copy
        + core::fmt::Debug
        + Default
        + PartialEq
        + serde::Serialize
        + serde::de::DeserializeOwned;
    /// A fresh router for one run.
    fn build(settings: &Self::Settings) -> Self;
}

/// A configuration that holds every rule's settings (the Routing Lab's, and
/// every lab built on it): the rows a rule declares edit its settings through
/// this, so a rule's knobs reach the CLI, the URL and the page from its own
/// file without the rule knowing which lab it is in.
pub trait HasRules: 'static {
    /// Every rule's settings.
    fn rules(&self) -> &super::RuleSettings;
    /// Every rule's settings, to edit.
    fn rules_mut(&mut self) -> &mut super::RuleSettings;
}

/// A rule's rows of a parameter table over any config `C` that holds the
/// rule settings (none by default: `impl<C: HasRules> Rows<C> for MyRule {}`).
pub trait Rows<C: HasRules> {
    /// The rows, each reading and writing `C::rules()`.
    const ROWS: &'static [Param<C>] = &[];
}

/// Whether a value has no data at all (a rule without settings): such entries
/// are left out of the JSON of [`RuleSettings`](super::RuleSettings).
pub fn zero_sized<T>(_: &T) -> bool {
    core::mem::size_of::<T>() == 0
}

/// Declares the rule modules and generates [`RuleKind`] and [`AnyRouter`] from
/// one `module::Type` line per rule. The order is table order, and a rule's
/// position picks its tie-break stream: append new rules at the end.
macro_rules! rules {
    ($($module:ident :: $rule:ident),+ $(,)?) => {
        $(
            pub mod $module;
            pub use $module::$rule;
        )+

        /// Every rule's settings, one field per rule named after its module
        /// (rules without settings hold `()` and are left out of the JSON).
        #[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(default)]
        pub struct RuleSettings {
            $(
                #[doc = concat!("Settings of [`", stringify!($rule), "`].")]
                #[serde(skip_serializing_if = "registry::zero_sized")]
                pub $module: <$rule as Rule>::Settings,
            )+
        }

        /// How many rows the rules add to a parameter table over `C`.
        pub const fn rule_rows_len<C: HasRules>() -> usize {
            0 $(+ <$rule as Rows<C>>::ROWS.len())+
        }

        /// `base` followed by every rule's parameter rows, in registry order
        /// (`N` is `base.len() + rule_rows_len::<C>()`).
        pub const fn with_rule_rows<C: HasRules, const N: usize>(
            base: &'static [crate::params::Param<C>],
        ) -> [crate::params::Param<C>; N] {
            crate::params::concat(&[base, $(<$rule as Rows<C>>::ROWS),+])
        }

        /// Every selection rule, generated from the list in `routing/mod.rs`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum RuleKind {
            $(
                #[doc = concat!("[`", stringify!($rule), "`]")]
                $rule,
            )+
        }

        impl $crate::choice::Choice for RuleKind {
            const ALL: &'static [RuleKind] = &[$(RuleKind::$rule),+];

            fn name(self) -> &'static str {
                match self { $(RuleKind::$rule => <$rule as Rule>::NAME,)+ }
            }

            fn title(self) -> &'static str {
                match self { $(RuleKind::$rule => <$rule as Rule>::TITLE,)+ }
            }

            /// One line on the signal the rule reads.
            fn blurb(self) -> &'static str {
                match self { $(RuleKind::$rule => <$rule as Rule>::SIGNAL,)+ }
            }
        }

        impl RuleKind {
            /// Every rule, in the order tables list them (as [`Choice::ALL`]).
            pub const ALL: &'static [RuleKind] = <RuleKind as $crate::choice::Choice>::ALL;

            /// Where the rule's behaviour comes from.
            pub fn origin(self) -> Origin {
                match self { $(RuleKind::$rule => <$rule as Rule>::ORIGIN,)+ }
            }

            /// A fresh router of this kind for one run.
            pub fn build(self, settings: &RuleSettings) -> AnyRouter {
                match self {
                    $(RuleKind::$rule => AnyRouter::$rule(<$rule as Rule>::build(&settings.$module)),)+
                }
            }
        }

        /// Any rule, dispatched without boxing.
        #[derive(Clone, Debug)]
        pub enum AnyRouter {
            $(
                #[doc = concat!("[`", stringify!($rule), "`]")]
                $rule($rule),
            )+
        }

        impl Router for AnyRouter {
            fn select<S: ReplicaState>(
                &mut self,
                ctx: &RouteContext<'_, S>,
                choose: &mut Chooser<'_>,
            ) -> Option<Decision> {
                match self { $(AnyRouter::$rule(r) => r.select(ctx, choose),)+ }
            }

            fn observe<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>, chosen: u32) {
                match self { $(AnyRouter::$rule(r) => r.observe(ctx, chosen),)+ }
            }

            fn peek<S: ReplicaState>(
                &self,
                ctx: &RouteContext<'_, S>,
                choose: &mut Chooser<'_>,
            ) -> Option<Decision> {
                match self { $(AnyRouter::$rule(r) => r.peek(ctx, choose),)+ }
            }
        }
    };
}

impl serde::Serialize for super::RuleKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::choice::serialize(self, s)
    }
}

impl<'de> serde::Deserialize<'de> for super::RuleKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::choice::deserialize(d)
    }
}
