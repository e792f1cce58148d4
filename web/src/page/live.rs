//! Numbers in words that follow the run: a tour step's sentence carries its
//! figures as `{…}` slots, and the page that shows the step fills them from
//! its own run at the player's current step, so they change when the reader
//! moves the step's control or scrubs the player. Hovering or focusing one
//! lights up what it counts on the stage ([`crate::ui::Spotlight`]).
//!
//! The page layer knows nothing of tours: whoever wants the numbers provides
//! a [`LiveWords`] context with the function that reads them, and the lab's
//! shell keeps its signal filled.

use std::sync::Arc;

use leptos::prelude::*;

use super::state::State;
use super::Snap;
use crate::ui::Lit;

/// One number of a sentence, read from the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Live {
    /// What the sentence prints ("22", "64%", "4 min"; "–" when the step
    /// shown has no such figure).
    pub text: String,
    /// The replicas the number counts, lit on the stage while the reader
    /// points at it.
    pub spot: Vec<Lit>,
}

impl Live {
    /// A number that points at nothing on the stage.
    pub fn plain(text: impl Into<String>) -> Live {
        Live {
            text: text.into(),
            spot: Vec::new(),
        }
    }

    /// A number that counts `replicas`, in every panel they are drawn.
    pub fn at(text: impl Into<String>, replicas: Vec<u32>) -> Live {
        Live::lit(text, None, replicas)
    }

    /// A number that counts `replicas` of panel `panel` (`None`: every
    /// panel).
    pub fn lit(text: impl Into<String>, panel: Option<u32>, replicas: Vec<u32>) -> Live {
        Live {
            text: text.into(),
            spot: replicas
                .into_iter()
                .map(|replica| Lit { panel, replica })
                .collect(),
        }
    }

    /// The figure the step shown lacks.
    pub fn missing() -> Live {
        Live::plain("–")
    }
}

/// Reads a sentence's numbers off a snapshot of the run.
pub type ReadLive = Arc<dyn Fn(&Snap<'_>) -> Vec<Live> + Send + Sync>;

/// The context a page fills: how to read the numbers, and where they go.
#[derive(Clone)]
pub struct LiveWords {
    /// The reader.
    pub read: ReadLive,
    /// The numbers of the run shown now (empty before the first run).
    pub out: RwSignal<Vec<Live>>,
}

/// Keep the context's numbers in step with `state`'s run and step, if a
/// [`LiveWords`] context is provided (a tour); nothing otherwise.
pub fn follow(state: State) {
    let Some(words) = use_context::<LiveWords>() else {
        return;
    };
    Effect::new(move |_| {
        if let Some(lives) = state.with_snap(|s| (words.read)(s)) {
            words.out.set(lives);
        }
    });
}

/// A sentence with `{…}` slots, split into its pieces: text, and slots
/// holding the figure written there (what the step's own run reads).
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Plain text.
    Text(&'static str),
    /// The `n`-th number (0-based) and the text written in its slot.
    Slot(usize, &'static str),
}

/// Split `words` at its `{…}` slots.
pub fn pieces(words: &'static str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut rest = words;
    let mut n = 0;
    while let Some(open) = rest.find('{') {
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        if open > 0 {
            out.push(Piece::Text(&rest[..open]));
        }
        out.push(Piece::Slot(n, &rest[open + 1..open + len]));
        n += 1;
        rest = &rest[open + len + 1..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

/// `words` with each slot's written figure in place (the static text).
pub fn plain(words: &'static str) -> String {
    pieces(words)
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) | Piece::Slot(_, t) => t,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_split_and_read_back() {
        let p = pieces("It holds {22} of {16} slots.");
        assert_eq!(
            p,
            [
                Piece::Text("It holds "),
                Piece::Slot(0, "22"),
                Piece::Text(" of "),
                Piece::Slot(1, "16"),
                Piece::Text(" slots."),
            ]
        );
        assert_eq!(
            plain("It holds {22} of {16} slots."),
            "It holds 22 of 16 slots."
        );
        assert_eq!(
            pieces("{4} min"),
            [Piece::Slot(0, "4"), Piece::Text(" min")]
        );
        // An unclosed brace is text.
        assert_eq!(plain("a {b"), "a {b");
    }
}
