//! The URL query is the single source of truth for a view: read once at start-up,
//! rewritten (without a history entry) whenever a control changes.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The current query as key/value pairs, in order.
pub fn query_pairs() -> Vec<(String, String)> {
    let Some(search) = web_sys::window().and_then(|w| w.location().search().ok()) else {
        return Vec::new();
    };
    parse_query(&search)
}

/// `pairs` with each key kept once, at its first value, and one notice per
/// key given more than once, naming it (a link is read as one value per
/// key, so which one counts is said rather than guessed).
pub fn first_of_each(
    pairs: Vec<(String, String)>,
    notices: &mut Vec<String>,
) -> Vec<(String, String)> {
    // Keys by where they were kept, and how often each came: linear in the
    // link's length, however many keys a crafted link holds.
    let mut seen: std::collections::HashMap<String, (usize, usize)> =
        std::collections::HashMap::new();
    let mut kept: Vec<(String, String)> = Vec::with_capacity(pairs.len());
    let mut repeated: Vec<String> = Vec::new();
    for (k, v) in pairs {
        match seen.get_mut(&k) {
            Some((_, n)) => {
                *n += 1;
                if *n == 2 {
                    repeated.push(k);
                }
            }
            None => {
                seen.insert(k.clone(), (kept.len(), 1));
                kept.push((k, v));
            }
        }
    }
    for k in repeated {
        let (at, n) = seen[&k];
        let first = kept[at].1.as_str();
        notices.push(format!(
            "“{}” is given {n} times in the link; the first value (“{}”) is used.",
            crate::platform::clip(&k),
            crate::platform::clip(first)
        ));
    }
    kept
}

/// A whole number from the link (`step=`, `stop=`, `seeds=`), refused
/// unread when it is longer than any such number can be.
pub fn whole<T: std::str::FromStr>(v: &str) -> Option<T> {
    let t = v.trim();
    if t.len() > sim_core::params::MAX_NUMBER_CHARS {
        return None;
    }
    t.parse().ok()
}

/// Decode `?a=1&b=x%20y` into pairs (pure; tested natively): the
/// `application/x-www-form-urlencoded` reading of `form_urlencoded` (the
/// url crate's), so `+` is a space and a stray `%` stays as it is.
pub fn parse_query(search: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(search.trim_start_matches('?').as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// What a link writes as it is: letters, digits, `-_.~` (RFC 3986's
/// unreserved characters) and the comma, so a list such as
/// `attempts=3,4,4,3` stays readable in a shared link.
const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b',');

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, KEEP).to_string()
}

/// Encode pairs as `?a=1&b=2` (pure; tested natively).
pub fn build_query(pairs: &[(&str, String)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
        .collect();
    format!("?{}", body.join("&"))
}

thread_local! {
    /// The query waiting to be written, if a write is scheduled.
    static PENDING: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    /// When the address bar was last written (ms).
    static LAST: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NEG_INFINITY) };
}

/// The least time between two writes of the address bar, in ms: a slider
/// dragged or a player playing changes the state many times a second, and
/// each `history.replaceState` costs the main thread a few milliseconds.
const SETTLE_MS: f64 = 120.0;

/// Write `query` to the address bar (if it differs) and note when.
fn write(query: &str) {
    LAST.with(|l| l.set(crate::platform::clock::now_ms()));
    let Some(window) = web_sys::window() else {
        return;
    };
    if window.location().search().ok().as_deref() == Some(query) {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(query));
    }
}

/// Replace the query of the current URL without adding a history entry. The
/// shell's embedding keys ([`crate::platform::embed::SHELL_KEYS`]) present in the current
/// URL are kept, so an embedded lab stays embedded as its controls move.
/// A change after a quiet spell is written at once; changes that follow
/// within [`SETTLE_MS`] are coalesced, the newest written when it is up.
pub fn replace_query(pairs: &[(&str, String)]) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let current = query_pairs();
    let mut pairs: Vec<(&str, String)> = pairs.to_vec();
    for key in crate::platform::embed::SHELL_KEYS {
        if let Some((_, v)) = current.iter().find(|(k, _)| k == key) {
            pairs.push((key, v.clone()));
        }
    }
    let query = build_query(&pairs);
    let scheduled = PENDING.with(|p| p.borrow_mut().replace(query).is_some());
    if scheduled {
        return;
    }
    let wait = LAST.with(|l| l.get()) + SETTLE_MS - crate::platform::clock::now_ms();
    if wait <= 0.0 {
        if let Some(q) = PENDING.with(|p| p.borrow_mut().take()) {
            write(&q);
        }
        return;
    }
    let later = Closure::once_into_js(|| {
        if let Some(q) = PENDING.with(|p| p.borrow_mut().take()) {
            write(&q);
        }
    });
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
        later.unchecked_ref(),
        wait.ceil() as i32,
    );
}

/// The query `search` without the embedding keys that make a view an embed
/// (`embed`, `controls`, `view`, `autoplay`): the same state in the full lab.
pub fn full_lab_query(search: &str) -> String {
    let pairs: Vec<(String, String)> = parse_query(search)
        .into_iter()
        .filter(|(k, _)| !matches!(k.as_str(), "embed" | "controls" | "view" | "autoplay"))
        .collect();
    let pairs: Vec<(&str, String)> = pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    build_query(&pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_named_and_its_first_value_kept() {
        let mut notices = Vec::new();
        let pairs = first_of_each(
            parse_query("?rate=0.3&lab=routing&rate=0.5&rate=0.7"),
            &mut notices,
        );
        assert_eq!(
            pairs,
            vec![
                ("rate".into(), "0.3".into()),
                ("lab".into(), "routing".into())
            ]
        );
        assert_eq!(notices.len(), 1);
        assert!(
            notices[0].contains("“rate” is given 3 times"),
            "{}",
            notices[0]
        );
        assert!(notices[0].contains("(“0.3”)"), "{}", notices[0]);
    }

    #[test]
    fn a_long_number_is_refused_unread() {
        assert_eq!(whole::<usize>(" 12 "), Some(12));
        assert_eq!(whole::<usize>(&"0".repeat(65)), None);
        assert_eq!(whole::<usize>(&"0".repeat(64)), Some(0));
    }

    #[test]
    fn the_full_lab_keeps_the_state_and_drops_the_embed() {
        assert_eq!(
            full_lab_query(
                "?lab=routing&rate=0.3&embed=1&controls=rate&view=chart&theme=dark&autoplay=1"
            ),
            "?lab=routing&rate=0.3&theme=dark"
        );
    }

    #[test]
    fn round_trips() {
        let q = build_query(&[("lab", "routing".into()), ("note", "a b&c".into())]);
        assert_eq!(q, "?lab=routing&note=a%20b%26c");
        let pairs = parse_query(&q);
        assert_eq!(pairs[1], ("note".to_string(), "a b&c".to_string()));
        assert_eq!(parse_query("?a=100%")[0].1, "100%");
        assert_eq!(parse_query("?a=%E2%88%9E+x")[0].1, "∞ x");
        assert_eq!(
            build_query(&[("attempts", "3,4,4,3".into())]),
            "?attempts=3,4,4,3"
        );
    }
}
