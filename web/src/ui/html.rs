//! HTML that is safe by construction, and the one place it reaches the DOM.
//!
//! Static prose that is written as HTML literals (a lab's header, a tour
//! step's words) reaches the page here; everything a reader acts on, and
//! every table and card, is a `view!` tree (`crate::ui::table`). Text is
//! only safe if every dynamic value is escaped, so escaping is not a
//! convention here but the only way in:
//!
//! - [`Html`] has a private field: the only ways to make one are [`el`] (tag
//!   and attribute *names* are `&'static str`, attribute *values* are escaped),
//!   [`Html::text`] (escaped), [`Html::trusted`] (a `&'static str`, i.e. a
//!   literal written in this codebase) and [`Html::from_shell`] (such a
//!   literal as the build wrote it into index.html's shell data, read back
//!   so the page's module does not carry it twice).
//! - [`Markup`] is the only component that sets `inner_html`, and it takes an
//!   [`Html`]. A native test (`tests::inner_html_only_here`) fails if
//!   `inner_html` or `set_inner_html` appears in any other source file, or if
//!   anything leaks a `String` into a `&'static str`.

use std::fmt::Write;

use leptos::prelude::*;

/// HTML text whose dynamic parts are all escaped (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Html(String);

/// Escape text for HTML element content and attribute values.
fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

impl Html {
    /// Nothing.
    pub fn new() -> Html {
        Html::default()
    }

    /// Markup written as a literal in this codebase (static headers, icons).
    /// Only `&'static str` is accepted, so no runtime value can get here.
    pub fn trusted(markup: &'static str) -> Html {
        Html(markup.to_string())
    }

    /// A lab's introduction as the build wrote it into index.html's shell
    /// data block (`crate::platform::shell`), from the same literals
    /// [`Html::trusted`] takes: markup of this codebase that travels in the
    /// HTML instead of the module.
    pub fn from_shell(markup: String) -> Html {
        Html(markup)
    }

    /// Append more HTML.
    pub fn push(&mut self, more: impl Into<Html>) {
        self.0.push_str(&more.into().0);
    }

    /// Append escaped text.
    pub fn push_text(&mut self, s: impl AsRef<str>) {
        escape_into(&mut self.0, s.as_ref());
    }

    /// The markup, for tests and for the one sink, [`Markup`].
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<T: Into<Html>> FromIterator<T> for Html {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Html {
        let mut out = Html::new();
        for h in iter {
            out.push(h);
        }
        out
    }
}

/// An element under construction: a static tag, escaped attributes, children.
#[derive(Clone, Debug)]
#[must_use]
pub struct El {
    tag: &'static str,
    attrs: String,
    body: Html,
    void: bool,
}

/// Start an element `<tag>`.
pub fn el(tag: &'static str) -> El {
    El {
        tag,
        attrs: String::new(),
        body: Html::new(),
        void: matches!(tag, "input" | "br" | "img" | "hr" | "col"),
    }
}

impl El {
    /// An attribute; the value is escaped.
    pub fn attr(mut self, name: &'static str, value: impl AsRef<str>) -> El {
        let _ = write!(self.attrs, " {name}=\"");
        escape_into(&mut self.attrs, value.as_ref());
        self.attrs.push('"');
        self
    }
}

impl El {
    /// Only the opening tag, for escaped text and markup pushed after it
    /// (and a closing tag written by the caller).
    pub fn open(self) -> Html {
        let mut s = String::with_capacity(self.tag.len() + self.attrs.len() + 2);
        let _ = write!(s, "<{}{}>", self.tag, self.attrs);
        Html(s)
    }
}

impl From<El> for Html {
    fn from(e: El) -> Html {
        let mut s = String::with_capacity(e.tag.len() * 2 + e.attrs.len() + e.body.0.len() + 5);
        let _ = write!(s, "<{}{}>", e.tag, e.attrs);
        if !e.void {
            s.push_str(&e.body.0);
            let _ = write!(s, "</{}>", e.tag);
        }
        Html(s)
    }
}

/// The one place HTML text becomes DOM: a `<div>` (or, `inline`, a `<span>`)
/// with optional class and id, whose content is `html`, updated whenever the
/// signal changes.
#[component]
pub fn Markup(
    /// The content.
    #[prop(into)]
    html: Signal<Html>,
    /// Class of the wrapping element.
    #[prop(optional)]
    class: &'static str,
    /// Id of the wrapping element.
    #[prop(optional)]
    id: &'static str,
    /// Wrap in a `<span>` (inside phrasing content such as a label).
    #[prop(optional)]
    inline: bool,
) -> impl IntoView {
    let class = (!class.is_empty()).then_some(class);
    let id = (!id.is_empty()).then_some(id);
    let content = move || html.with(|h| h.0.clone());
    if inline {
        view! { <span class=class id=id inner_html=content></span> }.into_any()
    } else {
        view! { <div class=class id=id inner_html=content></div> }.into_any()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_stay_text() {
        let payload = r#""><script>alert(1)</script><img src=x onerror=alert(1)>"#;
        let h: Html = el("p").attr("title", payload).into();
        assert!(!h.as_str().contains("<script"));
        assert!(!h.as_str().contains("<img"));
        assert_eq!(
            h.as_str(),
            r#"<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"></p>"#
        );
        let mut text = Html::new();
        text.push_text(payload);
        assert!(!text.as_str().contains('<'));
        let void: Html = el("input").attr("value", "1").into();
        assert_eq!(void.as_str(), r#"<input value="1">"#);
    }

    /// The rule this module promises: nothing else writes HTML text into the
    /// DOM, and nothing turns a runtime `String` into a `&'static str` that
    /// [`Html::trusted`] would accept.
    #[test]
    fn inner_html_only_here() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).expect("src readable") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        assert!(files.len() > 10, "found only {} source files", files.len());
        let this = src.join("ui/html.rs");
        let forbidden = [
            concat!("inner", "_html"),
            concat!("set_inner", "_html"),
            concat!("set_outer", "_html"),
            concat!("insert_adjacent", "_html"),
            concat!("document", ".write"),
            concat!(".", "leak("),
            concat!("Box::", "leak"),
        ];
        let mut found = Vec::new();
        for f in &files {
            if *f == this {
                continue;
            }
            let text = std::fs::read_to_string(f).expect("readable");
            for word in forbidden {
                if text.contains(word) {
                    found.push(format!("{}: {word}", f.display()));
                }
            }
        }
        assert!(found.is_empty(), "HTML sinks outside html.rs: {found:?}");
    }
}
