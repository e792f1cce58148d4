//! Sets of named choices: the selection rules, the herding lab's rules, the
//! prefix player's routers, the batching modes. Each is an enum whose values
//! carry a name (the one used in URLs, CLI flags and JSON), a title for
//! tables and pickers, and a one-line blurb. [`Choice`] is what every such
//! set shares, so looking a value up by name, listing the options of a picker
//! and writing the value to JSON are written once.
//!
//! [`choices!`](crate::choices) declares a set from one line per value.

use alloc::vec::Vec;

use crate::params::Opt;

/// A value from a fixed set of named choices.
pub trait Choice: Copy + PartialEq + core::fmt::Debug + Send + Sync + 'static {
    /// Every value, in table order.
    const ALL: &'static [Self];

    /// The name used everywhere: URLs, CLI flags, JSON (kebab-case).
    fn name(self) -> &'static str;

    /// A human title for tables and pickers.
    fn title(self) -> &'static str;

    /// One line on what it does or reads.
    fn blurb(self) -> &'static str;

    /// The value called `name`.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Position in [`Choice::ALL`].
    fn index(self) -> usize {
        Self::ALL.iter().position(|&c| c == self).unwrap_or(0)
    }

    /// Every value as a picker option.
    fn options() -> Vec<Opt> {
        Self::ALL
            .iter()
            .map(|c| Opt {
                name: c.name(),
                title: c.title(),
                doc: c.blurb(),
            })
            .collect()
    }

    /// The names of every value, for error messages.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|c| c.name()).collect()
    }
}

/// The choice of a lab that compares nothing (it has no focus picker).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nothing {}

impl Choice for Nothing {
    const ALL: &'static [Nothing] = &[];
    fn name(self) -> &'static str {
        match self {}
    }
    fn title(self) -> &'static str {
        match self {}
    }
    fn blurb(self) -> &'static str {
        match self {}
    }
}

/// Serialise a choice as its name (what the CLI's JSON and the page share).
pub fn serialize<C: Choice, S: serde::Serializer>(c: &C, s: S) -> Result<S::Ok, S::Error> {
    // JSON carries the name; the page's binary messages (postcard) its
    // position, one byte where a name would be several.
    if s.is_human_readable() {
        s.serialize_str(c.name())
    } else {
        s.serialize_u32(c.index() as u32)
    }
}

/// Read a choice back from its name.
pub fn deserialize<'de, C: Choice, D: serde::Deserializer<'de>>(d: D) -> Result<C, D::Error> {
    if !d.is_human_readable() {
        let i = <u32 as serde::Deserialize>::deserialize(d)?;
        return C::ALL
            .get(i as usize)
            .copied()
            .ok_or_else(|| serde::de::Error::custom(alloc::format!("no choice at position {i}")));
    }
    let name = <alloc::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
    C::from_name(&name)
        .ok_or_else(|| serde::de::Error::custom(alloc::format!("unknown choice '{name}'")))
}

/// Declare a set of named choices: the enum, [`Choice`], and serde as the
/// value's name. One line per value: `Variant = ("name", "Title", "Blurb")`.
///
/// ```
/// sim_core::choices! {
///     /// How a pie is cut.
///     pub enum Cut {
///         /// Into wedges.
///         Wedges = ("wedges", "Wedges", "From the centre out."),
///         /// Into squares.
///         Squares = ("squares", "Squares", "A grid, as at a party."),
///     }
/// }
/// use sim_core::choice::Choice;
/// assert_eq!(Cut::from_name("squares"), Some(Cut::Squares));
/// assert_eq!(Cut::Wedges.title(), "Wedges");
/// ```
#[macro_export]
macro_rules! choices {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = ($vname:literal, $vtitle:literal, $vblurb:literal) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $crate::choice::Choice for $name {
            const ALL: &'static [$name] = &[$($name::$variant),+];
            fn name(self) -> &'static str {
                match self { $($name::$variant => $vname,)+ }
            }
            fn title(self) -> &'static str {
                match self { $($name::$variant => $vtitle,)+ }
            }
            fn blurb(self) -> &'static str {
                match self { $($name::$variant => $vblurb,)+ }
            }
        }

        impl $crate::__serde::Serialize for $name {
            fn serialize<S: $crate::__serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::choice::serialize(self, s)
            }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::choice::deserialize(d)
            }
        }
    };
}
