//! Embedding: the query keys an author adds to put one lab in an `<iframe>`
//! (documented in EMBEDDING.md), read once at start-up and shared through
//! context so every lab honours them without code of its own.
//!
//! - `embed=1`: only the lab, compact, and the page posts its height to the
//!   parent as `{source: "lblab", type: "resize", lab, height}`.
//! - `controls=a,b`: show only these controls (by their `data-control` key),
//!   and lock every other value: no button, link or key changes it.
//! - `view=chart,cards`: show only these panels (by their `data-panel` name;
//!   [`Panel`]). With `embed=1` and no `view`, a lab shows its compact
//!   default (`LabInfo::embed_view`, from sim-core's registry).
//! - `autoplay=1`: players start playing (unless the reader prefers reduced motion).
//! - `theme=light|dark`: force a theme instead of following the system.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Query keys that belong to the shell, kept when a lab rewrites its own keys.
pub const SHELL_KEYS: [&str; 5] = ["embed", "controls", "autoplay", "theme", "view"];

use sim_core::labs::{LabInfo, Panel};

/// The names of every panel, in the order an embed shows them.
fn panel_names() -> Vec<&'static str> {
    Panel::ALL.iter().map(|p| p.name()).collect()
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
    /// The lab is a step of a tour, which owns the URL (`tour=…&stop=…`):
    /// the lab does not write its state there.
    pub in_tour: bool,
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
                notices.push(format!(
                    "“{k}={}” should be 1 or 0; ignored.",
                    crate::platform::clip(other)
                ));
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
                    "“theme={}” is not light or dark; following the system theme.",
                    crate::platform::clip(other)
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
                v.into_iter().partition(|p| Panel::from_name(p).is_some());
            if !unknown.is_empty() {
                notices.push(format!(
                    "“view={}” names no panel called {}; the panels are {}.",
                    crate::platform::clip(get("view").unwrap_or_default()),
                    crate::platform::clip(&unknown.join(", ")),
                    panel_names().join(", ")
                ));
            }
            known
        });
        // A `view=` that leaves no panel would show a blank frame: the
        // lab's own panels are shown instead, and the reader told why.
        let view = match view {
            Some(v) if v.is_empty() => {
                notices.push(format!(
                    "“view=” names no panel, so the lab's own panels are shown; the panels are {}.",
                    panel_names().join(", ")
                ));
                None
            }
            v => v,
        };
        EmbedOptions {
            embed,
            controls,
            autoplay,
            theme,
            view,
            in_tour: false,
        }
    }

    /// A notice naming the `controls=` entries that are not among `known`
    /// (the lab's parameter keys, its focus, `trace`, `seed`); those entries
    /// are ignored, as a control that is not there cannot be unlocked.
    pub fn unknown_controls(&self, known: &[&str]) -> Option<String> {
        let listed = self.controls.as_ref()?;
        let unknown: Vec<&str> = listed
            .iter()
            .map(String::as_str)
            .filter(|k| *k != "new-seed" && !known.contains(k))
            .collect();
        if unknown.is_empty() {
            return None;
        }
        let shown = crate::platform::clip(&unknown.join(", "));
        Some(if unknown.len() == listed.len() {
            format!(
                "“controls=” names no control of this lab ({shown}), so every control is fixed. The names are the link's own keys, such as {}.",
                known.iter().take(4).copied().collect::<Vec<_>>().join(", ")
            )
        } else {
            format!("“controls=” names no control called {shown} in this lab; ignored.")
        })
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

    /// The panels shown for lab `info`: `view=` if given, else in an embed
    /// the lab's default (with the controls panel when `controls=` opens
    /// some), else every panel.
    pub fn panels(&self, info: &LabInfo) -> Vec<&'static str> {
        match &self.view {
            Some(v) => panel_names()
                .into_iter()
                .filter(|p| v.iter().any(|x| x == p))
                .collect(),
            None if self.embed => {
                // Controls an author opens with `controls=` are shown even
                // where the lab's default view has no controls panel.
                let open = self.controls.as_ref().is_some_and(|c| !c.is_empty());
                panel_names()
                    .into_iter()
                    .filter(|p| {
                        info.embed_view.iter().any(|v| v.name() == *p) || (open && *p == "controls")
                    })
                    .collect()
            }
            None => panel_names(),
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
pub fn apply_document(opts: &EmbedOptions, lab: Option<&LabInfo>) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        // A tour applies the options of each step in turn: clear the last.
        let _ = root.remove_attribute("data-view");
        let _ = root.class_list().remove_2("locked", "trace-open");
    }
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
    if let Some(info) = lab {
        let _ = root.set_attribute("data-view", &opts.panels(info).join(" "));
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

/// In embed mode, post the page's height to the parent whenever it changes
/// (at once, then on each change of the body's size).
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
    // A resize observer on the body reports every change of its size after
    // layout (content re-rendered, fonts, the frame resized), and nothing
    // while the page is idle; the height it reads is already laid out.
    let Some(body) = window.document().and_then(|d| d.body()) else {
        return;
    };
    let cb = Closure::<dyn FnMut()>::new(post);
    if let Ok(observer) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // Both live as long as the page: one per embed.
    cb.forget();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::url::parse_query;

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
    fn unknown_controls_are_named() {
        let mut notices = Vec::new();
        let known = ["rate", "seed", "rule"];
        let all_bad = EmbedOptions::from_pairs(&parse_query("?controls=bogus"), &mut notices);
        let n = all_bad.unknown_controls(&known).expect("a notice");
        assert!(
            n.contains("bogus") && n.contains("every control is fixed"),
            "{n}"
        );
        let some =
            EmbedOptions::from_pairs(&parse_query("?controls=rate,nope,new-seed"), &mut notices);
        let n = some.unknown_controls(&known).expect("a notice");
        assert!(
            n.contains("nope") && !n.contains("rate") && !n.contains("new-seed"),
            "{n}"
        );
        let fine = EmbedOptions::from_pairs(&parse_query("?controls=rate,seed"), &mut notices);
        assert_eq!(fine.unknown_controls(&known), None);
        let none = EmbedOptions::from_pairs(&parse_query("?embed=1"), &mut notices);
        assert_eq!(none.unknown_controls(&known), None);
        let long = format!("?controls={}", "x".repeat(100_000));
        let huge = EmbedOptions::from_pairs(&parse_query(&long), &mut notices);
        assert!(huge.unknown_controls(&known).expect("a notice").len() < 400);
    }

    #[test]
    fn view_picks_panels_in_display_order() {
        let mut notices = Vec::new();
        let routing = &sim_core::labs::find("routing").expect("registered").info;
        let herding = &sim_core::labs::find("herding").expect("registered").info;
        let o = EmbedOptions::from_pairs(&parse_query("?view=cards,chart,nonsense"), &mut notices);
        assert_eq!(o.panels(routing), ["chart", "cards"]);
        assert_eq!(notices.len(), 1);
        assert!(notices[0].contains("nonsense"), "{}", notices[0]);
        let e = EmbedOptions::from_pairs(&parse_query("?embed=1"), &mut notices);
        assert_eq!(e.panels(herding), ["player", "controls", "cards"]);
        let full = EmbedOptions::from_pairs(&parse_query("?lab=herding"), &mut notices);
        assert_eq!(full.panels(herding), panel_names());
    }
}
