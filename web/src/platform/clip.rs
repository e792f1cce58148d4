//! Echoing a reader's value back: URL values, trace fields and file names
//! appear in notices, so they are cut and made printable first.

/// Longest echo of a reader's value in a notice, in characters.
pub const CLIP: usize = 40;

/// A value the reader gave, fit to be echoed in a sentence: control
/// characters shown as `�`, and cut to [`CLIP`] characters with an ellipsis
/// (a 100 KB value must not stretch the page).
pub fn clip(value: &str) -> String {
    let mut out: String = value
        .chars()
        .take(CLIP)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if value.chars().nth(CLIP).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_and_shows_control_characters() {
        assert_eq!(clip("abc"), "abc");
        assert_eq!(clip("a\nb\u{1b}[2J"), "a\u{fffd}b\u{fffd}[2J");
        let long = "x".repeat(100_000);
        assert_eq!(clip(&long).chars().count(), CLIP + 1);
    }
}
