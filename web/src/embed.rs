//! Embedding: the query keys an author adds to put one lab in an `<iframe>`
//! (documented in EMBEDDING.md), read once at start-up and shared through
//! context so every lab honours them without code of its own.
//!
//! - `embed=1`: only the lab, compact, and the page posts its height to the
//!   parent as `{source: "lblab", type: "resize", lab, height}`.
//! - `controls=a,b`: show only these controls (by their `data-control` key),
//!   and lock every other value: no button, link or key changes it.
//! - `view=chart,cards`: show only these panels (by their `data-panel` name;
//!   [`PANELS`]). With `embed=1` and no `view`, a lab shows its compact
//!   default ([`default_view`]).
//! - `autoplay=1`: players start playing (unless the reader prefers reduced motion).
//! - `theme=light|dark`: force a theme instead of following the system.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Query keys that belong to the shell, kept when a lab rewrites its own keys.
pub const SHELL_KEYS: [&str; 5] = ["embed", "controls", "autoplay", "theme", "view"];

/// The panels a `view=` list can name, in the order an embed shows them: the
/// step-through view and its player bar, charts, the controls, headline
/// numbers, tables, and the introduction.
pub const PANELS: [&str; 6] = ["player", "chart", "controls", "cards", "table", "intro"];

/// What an embed of lab `id` shows when its link has no `view=`: the panels
/// that make its point within an article column (at 640 px wide every lab's
/// default stays within 900 px; the browser tests measure it).
pub fn default_view(id: &str) -> &'static [&'static str] {
    match id {
        "routing" | "goodput" => &["chart", "controls", "cards"],
        "herding" | "prefix" | "batching" => &["player", "controls", "cards"],
        _ => &["chart", "controls", "cards"],
    }
}

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
    /// Panels to show (all when `None`, or the lab's default in an embed).
    pub view: Option<Vec<String>>,
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
        let list = |k: &str| -> Option<Vec<String>> {
            get(k).map(|c| {
                c.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
        };
        let controls = list("controls");
        let view = list("view").map(|v| {
            let (known, unknown): (Vec<String>, Vec<String>) =
                v.into_iter().partition(|p| PANELS.contains(&p.as_str()));
            if !unknown.is_empty() {
                notices.push(format!(
                    "“view={}” names no panel called {}; the panels are {}.",
                    get("view").unwrap_or_default(),
                    unknown.join(", "),
                    PANELS.join(", ")
                ));
            }
            known
        });
        EmbedOptions {
            embed,
            controls,
            autoplay,
            theme,
            view,
        }
    }

    /// Whether the reader may change the value behind control `key`: always,
    /// unless `controls=` lists the keys that may change and `key` is not one
    /// of them. Buttons count as their value ("new-seed" is `seed`), and a
    /// trace is `trace`.
    pub fn allows(&self, key: &str) -> bool {
        let key = match key {
            "new-seed" => "seed",
            k => k,
        };
        self.controls
            .as_ref()
            .is_none_or(|keep| keep.iter().any(|k| k == key))
    }

    /// The panels shown for lab `id`: `view=` if given, else in an embed the
    /// lab's default, else every panel.
    pub fn panels(&self, id: &str) -> Vec<&'static str> {
        match &self.view {
            Some(v) => PANELS
                .iter()
                .copied()
                .filter(|p| v.iter().any(|x| x == p))
                .collect(),
            None if self.embed => default_view(id).to_vec(),
            None => PANELS.to_vec(),
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

/// Apply what can be applied to the document: theme and embed classes on
/// `<html>`, and `data-view` (the panels shown, for lab `lab`), which the
/// style sheet turns into hidden panels.
pub fn apply_document(opts: &EmbedOptions, lab: Option<&str>) {
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
    if let Some(id) = lab {
        let _ = root.set_attribute("data-view", &opts.panels(id).join(" "));
    }
    if opts.controls.is_some() {
        let _ = root.class_list().add_1("locked");
    }
    // An embed shows the trace panel only when `controls=` asks for it.
    if opts
        .controls
        .as_ref()
        .is_some_and(|c| c.iter().any(|k| k == "trace"))
    {
        let _ = root.class_list().add_1("trace-open");
    }
}

/// Hide every control whose `data-control` key is not listed (run after mount).
pub fn apply_controls(opts: &EmbedOptions) {
    if opts.controls.is_none() {
        return;
    }
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
            let allowed = opts.allows(&key);
            el.set_hidden(!allowed);
            // A listed control under "More settings" is shown open.
            if allowed {
                if let Ok(Some(details)) = el.closest("details.more-settings") {
                    let _ = details.set_attribute("open", "");
                }
            }
        }
    }
    // A "More settings" with nothing left to change would be a dead control.
    let Ok(groups) = doc.query_selector_all("details.more-settings") else {
        return;
    };
    for i in 0..groups.length() {
        if let Some(g) = groups
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let open = g
                .query_selector_all("[data-control]")
                .ok()
                .is_some_and(|cs| {
                    (0..cs.length()).any(|j| {
                        cs.item(j)
                            .and_then(|c| c.dyn_into::<web_sys::Element>().ok())
                            .and_then(|c| c.get_attribute("data-control"))
                            .is_some_and(|k| opts.allows(&k))
                    })
                });
            g.set_hidden(!open);
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

    #[test]
    fn controls_lock_everything_else() {
        let mut notices = Vec::new();
        let o = EmbedOptions::from_pairs(&parse_query("?controls=rate,seed"), &mut notices);
        assert!(o.allows("rate") && o.allows("seed") && o.allows("new-seed"));
        assert!(!o.allows("rule") && !o.allows("trace") && !o.allows("replicas"));
        let free = EmbedOptions::from_pairs(&parse_query("?embed=1"), &mut notices);
        assert!(free.allows("rule") && free.allows("trace"));
        assert!(notices.is_empty());
    }

    #[test]
    fn view_picks_panels_in_display_order() {
        let mut notices = Vec::new();
        let o = EmbedOptions::from_pairs(&parse_query("?view=cards,chart,nonsense"), &mut notices);
        assert_eq!(o.panels("routing"), ["chart", "cards"]);
        assert_eq!(notices.len(), 1);
        assert!(notices[0].contains("nonsense"), "{}", notices[0]);
        let e = EmbedOptions::from_pairs(&parse_query("?embed=1"), &mut notices);
        assert_eq!(e.panels("herding"), default_view("herding"));
        let full = EmbedOptions::from_pairs(&parse_query("?lab=herding"), &mut notices);
        assert_eq!(full.panels("herding"), PANELS);
    }
}
