//! HTML that is safe by construction, and the one place it reaches the DOM.
//!
//! Read-only parts of a page (tables, cards, notices, the home page) are built
//! as HTML text rather than as `view!` trees: every distinct view tree
//! instantiates the renderer's generics anew, and text keeps the bundle small.
//! Text is only safe if every dynamic value is escaped, so escaping is not a
//! convention here but the only way in:
//!
//! - [`Html`] has a private field: the only ways to make one are [`el`] (tag
//!   and attribute *names* are `&'static str`, attribute *values* are escaped),
//!   [`Html::text`] (escaped) and [`Html::trusted`] (a `&'static str`, i.e. a
//!   literal written in this codebase).
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

    /// Text, escaped.
    pub fn text(s: impl AsRef<str>) -> Html {
        let mut out = String::new();
        escape_into(&mut out, s.as_ref());
        Html(out)
    }

    /// Markup written as a literal in this codebase (static headers, icons).
    /// Only `&'static str` is accepted, so no runtime value can get here.
    pub fn trusted(markup: &'static str) -> Html {
        Html(markup.to_string())
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

    /// An attribute only when `value` is `Some`.
    pub fn attr_opt(self, name: &'static str, value: Option<impl AsRef<str>>) -> El {
        match value {
            Some(v) => self.attr(name, v),
            None => self,
        }
    }

    /// A boolean attribute (`checked`, `hidden`, …), present when `on`.
    pub fn flag(mut self, name: &'static str, on: bool) -> El {
        if on {
            let _ = write!(self.attrs, " {name}");
        }
        self
    }

    /// The `id` attribute.
    pub fn id(self, id: impl AsRef<str>) -> El {
        self.attr("id", id)
    }

    /// The `class` attribute (skipped when empty).
    pub fn class(self, class: impl AsRef<str>) -> El {
        if class.as_ref().is_empty() {
            self
        } else {
            self.attr("class", class)
        }
    }

    /// A link target. Only in-app links (`?…`, `#…`) and http(s) URLs are
    /// written; anything else (a `javascript:` URL, say) becomes `#`.
    pub fn href(self, url: impl AsRef<str>) -> El {
        let u = url.as_ref();
        let safe = u.starts_with('?')
            || u.starts_with('#')
            || u.starts_with("https://")
            || u.starts_with("http://");
        self.attr("href", if safe { u } else { "#" })
    }

    /// A text child, escaped.
    pub fn text(mut self, t: impl AsRef<str>) -> El {
        self.body.push_text(t);
        self
    }

    /// A child element or fragment.
    pub fn child(mut self, c: impl Into<Html>) -> El {
        self.body.push(c);
        self
    }

    /// Several children.
    pub fn children<T: Into<Html>>(mut self, items: impl IntoIterator<Item = T>) -> El {
        for c in items {
            self.body.push(c);
        }
        self
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

/// One table cell.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    /// Text shown.
    pub text: String,
    /// Mark as the best value of its column.
    pub best: bool,
    /// A colour swatch before the text (CSS colour from the theme's palette).
    pub swatch: Option<&'static str>,
    /// Extra class names.
    pub class: &'static str,
}

impl Cell {
    /// A plain text cell.
    pub fn new(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }

    /// Mark as best when `best` holds.
    pub fn best(mut self, best: bool) -> Cell {
        self.best = best;
        self
    }

    /// Add a colour swatch.
    pub fn swatch(mut self, color: &'static str) -> Cell {
        self.swatch = Some(color);
        self
    }

    /// Add class names.
    pub fn class(mut self, class: &'static str) -> Cell {
        self.class = class;
        self
    }
}

/// A table: caption, column heads (with optional meaning as a title), rows whose
/// first cell is the row header. Wrapped in a box that scrolls sideways.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Element id.
    pub id: &'static str,
    /// Extra class names.
    pub class: &'static str,
    /// Caption, if any.
    pub caption: String,
    /// Column heads: (text, meaning shown on hover).
    pub head: Vec<(String, String)>,
    /// Rows; the first cell is the row header.
    pub rows: Vec<Row>,
}

/// One row.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// Cells, first one the row header.
    pub cells: Vec<Cell>,
    /// Highlight the row.
    pub selected: bool,
    /// If set, the row header is a button with this `data-key` (for delegated clicks).
    pub key: Option<&'static str>,
}

impl Table {
    /// Build the table.
    pub fn html(&self) -> Html {
        let head = el("tr").children(self.head.iter().map(|(text, meaning)| {
            el("th")
                .attr("scope", "col")
                .attr_opt("title", (!meaning.is_empty()).then_some(meaning))
                .text(text)
        }));
        let rows = self.rows.iter().map(|row| {
            let cells = row.cells.iter().enumerate().map(|(i, cell)| {
                let swatch = cell.swatch.map(|c| {
                    el("span")
                        .class("swatch")
                        .attr("style", format!("background:{c}"))
                });
                if i == 0 {
                    let label: Html = match row.key {
                        Some(key) => el("button")
                            .class("linklike")
                            .attr("data-key", key)
                            .attr("aria-pressed", if row.selected { "true" } else { "false" })
                            .text(&cell.text)
                            .into(),
                        None => Html::text(&cell.text),
                    };
                    el("th")
                        .attr("scope", "row")
                        .class(cell.class)
                        .children(swatch)
                        .child(label)
                } else {
                    let class = match (cell.best, cell.class) {
                        (true, "") => "best".to_string(),
                        (true, c) => format!("best {c}"),
                        (false, c) => c.to_string(),
                    };
                    el("td")
                        .class(class)
                        .children(swatch)
                        .text(&cell.text)
                        .children(
                            cell.best
                                .then(|| el("span").class("best-mark").text(" ★ best")),
                        )
                }
            });
            el("tr")
                .class(if row.selected { "selected" } else { "" })
                .children(cells)
        });
        let table = el("table")
            .id(self.id)
            .class(self.class)
            .children((!self.caption.is_empty()).then(|| el("caption").text(&self.caption)))
            .child(el("thead").child(head))
            .child(el("tbody").children(rows));
        // Focusable, so a keyboard can scroll a wide table sideways.
        el("div")
            .class("table-wrap")
            .attr("tabindex", "0")
            .attr("role", "region")
            .attr(
                "aria-label",
                if self.caption.is_empty() {
                    "Table"
                } else {
                    self.caption.as_str()
                },
            )
            .child(table)
            .into()
    }
}

/// The `data-key` of the element (or nearest ancestor) a click landed on, for
/// tables that delegate clicks on their row buttons.
pub fn clicked_key(ev: &web_sys::MouseEvent) -> Option<String> {
    use wasm_bindgen::JsCast;
    let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    target
        .closest("[data-key]")
        .ok()
        .flatten()?
        .get_attribute("data-key")
}

/// Indices of the best values of `values` (ties all marked), comparing what is
/// shown (`show`) so a tie the reader sees is a tie.
pub fn best_mask(values: &[f64], higher_is_better: bool, show: fn(f64) -> String) -> Vec<bool> {
    let best = if higher_is_better {
        values.iter().copied().fold(f64::MIN, f64::max)
    } else {
        values.iter().copied().fold(f64::MAX, f64::min)
    };
    let best = show(best);
    let mask: Vec<bool> = values.iter().map(|&v| show(v) == best).collect();
    // When every row shows the same value nothing stands out: mark none.
    if values.len() > 1 && mask.iter().all(|&b| b) {
        return vec![false; values.len()];
    }
    mask
}

/// Each column's title and whether larger values are better (what the
/// table test walks).
#[cfg(test)]
pub fn directions<R>(columns: &[Column<R>]) -> Vec<(&'static str, bool)> {
    columns
        .iter()
        .map(|c| (c.title, c.higher_is_better))
        .collect()
}

/// A column of a comparison table over items of type `R`.
pub struct Column<R> {
    /// Head text.
    pub title: &'static str,
    /// What the column means (shown on hover).
    pub meaning: &'static str,
    /// The value compared.
    pub value: fn(&R) -> f64,
    /// How it is shown (ties are judged on what is shown).
    pub show: fn(f64) -> String,
    /// Whether larger values are better.
    pub higher_is_better: bool,
}

/// A comparison table: one row per item, the best value of each column marked.
pub struct Compare<'a, R> {
    /// Element id.
    pub id: &'static str,
    /// Caption (may be empty).
    pub caption: &'static str,
    /// Head of the first column.
    pub first: &'static str,
    /// The items, one per row.
    pub items: &'a [R],
    /// Row title of an item.
    pub title: fn(&R) -> &'static str,
    /// If set, row titles are buttons with this `data-key`.
    pub key: Option<fn(&R) -> &'static str>,
    /// Whether an item's row is highlighted.
    pub selected: &'a dyn Fn(&R) -> bool,
    /// The columns.
    pub columns: &'a [Column<R>],
    /// Whether the figures are of a run still under way (a player before
    /// its last step): then only a column that says "so far" in its title
    /// marks a best, since the others would crown a winner too early.
    pub so_far: bool,
}

impl<R> Compare<'_, R> {
    /// Build through [`Table`].
    pub fn html(&self) -> Html {
        let masks: Vec<Vec<bool>> = self
            .columns
            .iter()
            .map(|c| {
                let values: Vec<f64> = self.items.iter().map(c.value).collect();
                if self.so_far && !c.title.contains("so far") {
                    return vec![false; values.len()];
                }
                best_mask(&values, c.higher_is_better, c.show)
            })
            .collect();
        let mut head = vec![(self.first.to_string(), String::new())];
        head.extend(
            self.columns
                .iter()
                .map(|c| (c.title.to_string(), c.meaning.to_string())),
        );
        Table {
            id: self.id,
            class: "compare",
            caption: self.caption.to_string(),
            head,
            rows: self
                .items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let mut cells = vec![Cell::new((self.title)(item))];
                    cells.extend(
                        self.columns
                            .iter()
                            .zip(&masks)
                            .map(|(c, m)| Cell::new((c.show)((c.value)(item))).best(m[i])),
                    );
                    Row {
                        cells,
                        selected: (self.selected)(item),
                        key: self.key.map(|k| k(item)),
                    }
                })
                .collect(),
        }
        .html()
    }
}

/// A result card: title, value with unit, and its meaning on hover and focus
/// (the card's accessible description).
pub fn card(id: &str, title: &str, value: &str, unit: &str, meaning: &str) -> Html {
    let meaning_id = format!("{id}-meaning");
    el("div")
        .class("card")
        .id(id)
        .attr("tabindex", "0")
        .attr("aria-describedby", &meaning_id)
        .child(el("div").class("card-title").text(title))
        .child(
            el("div")
                .class("card-value")
                .child(el("span").class("card-number").text(value))
                .children(
                    (!unit.is_empty())
                        .then(|| el("span").class("card-unit").text(format!(" {unit}"))),
                ),
        )
        .child(
            el("div")
                .class("card-meaning")
                .id(meaning_id)
                .attr("role", "tooltip")
                .text(meaning),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_text_and_attributes_and_marks_best() {
        let t = Table {
            id: "t",
            head: vec![
                ("Rule".into(), String::new()),
                ("P95".into(), "tail \"x\"".into()),
            ],
            rows: vec![Row {
                cells: vec![Cell::new("a<b"), Cell::new("1").best(true)],
                selected: true,
                key: Some("a"),
            }],
            ..Table::default()
        };
        let html = t.html();
        let s = html.as_str();
        assert!(s.contains("a&lt;b"));
        assert!(s.contains(r#"<td class="best">1<span class="best-mark"> ★ best</span></td>"#));
        assert!(s.contains(r#"data-key="a""#));
        assert!(s.contains(r#"title="tail &quot;x&quot;""#));
        assert_eq!(
            best_mask(&[3.0, 1.0, 1.04], false, |x| format!("{x:.1}")),
            [false, true, true]
        );
        // Every row tied: no mark at all.
        assert_eq!(
            best_mask(&[1.0, 1.04, 0.96], false, |x| format!("{x:.1}")),
            [false, false, false]
        );
    }

    #[test]
    fn payloads_stay_text() {
        let payload = r#""><script>alert(1)</script><img src=x onerror=alert(1)>"#;
        let h: Html = el("p").attr("title", payload).text(payload).into();
        assert!(!h.as_str().contains("<script"));
        assert!(!h.as_str().contains("<img"));
        assert!(h.as_str().starts_with(r#"<p title="&quot;&gt;&lt;script"#));
        let link: Html = el("a").href("javascript:alert(1)").text("x").into();
        assert_eq!(link.as_str(), r##"<a href="#">x</a>"##);
        let c = card("c", payload, payload, payload, payload);
        assert!(!c.as_str().contains("<script"));
        let void: Html = el("input").attr("value", "1").text("ignored").into();
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
