//! Embedding: the query keys an author adds to put one lab in an `<iframe>`
//! (documented in EMBEDDING.md), read once at start-up and shared through
//! context so every lab honours them without code of its own.
//!
//! - `embed=1`: only the lab, compact, and the page posts its height to the
//!   parent as `{source: "lblab", type: "resize", lab, height}`.
//! - `controls=a,b`: show only these controls (by their `data-control` key).
//! - `autoplay=1`: players start playing (unless the reader prefers reduced motion).
//! - `theme=light|dark`: force a theme instead of following the system.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Query keys that belong to the shell, kept when a lab rewrites its own keys.
pub const SHELL_KEYS: [&str; 4] = ["embed", "controls", "autoplay", "theme"];

/// The embedding options of this page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EmbedOptions {
    /// Render only the lab, compact, posting its height to the parent.
    pub embed: bool,
    /// Controls to show (all when `None`).
    pub controls: Option<Vec<String>>,
    /// Start players playing.
    pub autoplay: bool,
    /// Forced theme, "light" or "dark".
    pub theme: Option<String>,
}

impl EmbedOptions {
    /// Read the options from query pairs; unknown values are ignored with a notice.
    pub fn from_pairs(pairs: &[(String, String)], notices: &mut Vec<String>) -> EmbedOptions {
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        let flag = |k: &str, notices: &mut Vec<String>| match get(k) {
            None | Some("0") | Some("") => false,
            Some("1") | Some("true") => true,
            Some(other) => {
                notices.push(format!("“{k}={other}” should be 1 or 0; ignored."));
                false
            }
        };
        let embed = flag("embed", notices);
        let autoplay = flag("autoplay", notices);
        let theme = match get("theme") {
            None | Some("") | Some("auto") => None,
            Some(t @ ("light" | "dark")) => Some(t.to_string()),
            Some(other) => {
                notices.push(format!(
                    "“theme={other}” is not light or dark; following the system theme."
                ));
                None
            }
        };
        let controls = get("controls").map(|c| {
            c.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        });
        EmbedOptions {
            embed,
            controls,
            autoplay,
            theme,
        }
    }

    /// Whether players should start on their own (never when motion is unwanted).
    pub fn should_autoplay(&self) -> bool {
        self.autoplay && !prefers_reduced_motion()
    }
}

/// Whether the reader asked the system for reduced motion.
pub fn prefers_reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|m| m.matches())
}

/// Apply what can be applied to the document: theme and embed classes on `<html>`.
pub fn apply_document(opts: &EmbedOptions) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    if let Some(t) = &opts.theme {
        let _ = root.set_attribute("data-theme", t);
    }
    if opts.embed {
        let _ = root.class_list().add_1("embed");
    }
}

/// Hide every control whose `data-control` key is not listed (run after mount).
pub fn apply_controls(opts: &EmbedOptions) {
    let Some(keep) = &opts.controls else { return };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(nodes) = doc.query_selector_all("[data-control]") else {
        return;
    };
    for i in 0..nodes.length() {
        if let Some(el) = nodes
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let key = el.get_attribute("data-control").unwrap_or_default();
            el.set_hidden(!keep.contains(&key));
        }
    }
}

/// In embed mode, post the page's height to the parent whenever it changes.
pub fn start_resize_messages(lab: &'static str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let last = std::cell::Cell::new(0i32);
    let post = move || {
        let Some(w) = web_sys::window() else { return };
        let Some(doc) = w.document() else { return };
        let Some(body) = doc.body() else { return };
        let height = body.scroll_height().max(body.offset_height());
        if height == last.get() {
            return;
        }
        last.set(height);
        let Ok(Some(parent)) = w.parent() else { return };
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"source".into(), &"lblab".into());
        let _ = js_sys::Reflect::set(&msg, &"type".into(), &"resize".into());
        let _ = js_sys::Reflect::set(&msg, &"lab".into(), &lab.into());
        let _ = js_sys::Reflect::set(&msg, &"height".into(), &height.into());
        let _ = parent.post_message(&msg, "*");
    };
    post();
    let cb = Closure::<dyn FnMut()>::new(post);
    // Polling the body height is the one method that catches every cause of a
    // change (fonts, tables re-rendered, the window resized) without observers.
    let _ = window
        .set_interval_with_callback_and_timeout_and_arguments_0(cb.as_ref().unchecked_ref(), 200);
    cb.forget();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::parse_query;

    #[test]
    fn reads_embed_keys() {
        let mut notices = Vec::new();
        let o = EmbedOptions::from_pairs(
            &parse_query("?embed=1&controls=rate,seed&autoplay=1&theme=dark"),
            &mut notices,
        );
        assert!(o.embed && o.autoplay);
        assert_eq!(
            o.controls,
            Some(vec!["rate".to_string(), "seed".to_string()])
        );
        assert_eq!(o.theme.as_deref(), Some("dark"));
        assert!(notices.is_empty());
        let o = EmbedOptions::from_pairs(&parse_query("?embed=yes&theme=pink"), &mut notices);
        assert_eq!(o, EmbedOptions::default());
        assert_eq!(notices.len(), 2);
    }
}
