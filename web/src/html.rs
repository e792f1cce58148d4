//! Read-only tables rendered to HTML text in one code path.
//!
//! Why: every distinct `view!` tree instantiates the renderer's generics anew, and
//! tables are the largest trees in the app. Rendering them through this one
//! builder (escaped text, set as `inner_html`) keeps the wasm bundle inside its
//! page-weight budget, and gives every lab the same table markup (best values
//! marked with a star *and* the word "best", not colour alone).

use std::fmt::Write;

/// Escape text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
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
    out
}

/// One table cell.
#[derive(Clone, Debug, Default)]
pub struct Cell {
    /// Text shown.
    pub text: String,
    /// Mark as the best value of its column.
    pub best: bool,
    /// A colour swatch before the text (CSS colour).
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
/// first cell is the row header.
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
    /// Render as HTML, wrapped in a horizontally scrollable box.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            r#"<div class="table-wrap"><table id="{}" class="{}">"#,
            self.id, self.class
        );
        if !self.caption.is_empty() {
            let _ = write!(s, "<caption>{}</caption>", escape(&self.caption));
        }
        s.push_str("<thead><tr>");
        for (text, meaning) in &self.head {
            if meaning.is_empty() {
                let _ = write!(s, r#"<th scope="col">{}</th>"#, escape(text));
            } else {
                let _ = write!(
                    s,
                    r#"<th scope="col" title="{}">{}</th>"#,
                    escape(meaning),
                    escape(text)
                );
            }
        }
        s.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            let _ = write!(
                s,
                "<tr{}>",
                if row.selected {
                    r#" class="selected""#
                } else {
                    ""
                }
            );
            for (i, cell) in row.cells.iter().enumerate() {
                let swatch = cell
                    .swatch
                    .map(|c| format!(r#"<span class="swatch" style="background:{c}"></span>"#))
                    .unwrap_or_default();
                let mut text = escape(&cell.text);
                if i == 0 {
                    if let Some(key) = row.key {
                        text = format!(
                            r#"<button class="linklike" data-key="{key}" aria-pressed="{}">{text}</button>"#,
                            row.selected
                        );
                    }
                    let _ = write!(
                        s,
                        r#"<th scope="row" class="{}">{swatch}{text}</th>"#,
                        cell.class
                    );
                } else {
                    let best = if cell.best {
                        r#"<span class="best-mark"> ★ best</span>"#
                    } else {
                        ""
                    };
                    let class = match (cell.best, cell.class) {
                        (true, "") => "best".to_string(),
                        (true, c) => format!("best {c}"),
                        (false, c) => c.to_string(),
                    };
                    let _ = write!(s, r#"<td class="{class}">{swatch}{text}{best}</td>"#);
                }
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table></div>");
        s
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
    values.iter().map(|&v| show(v) == best).collect()
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
}

impl<R> Compare<'_, R> {
    /// Render through [`Table`].
    pub fn render(&self) -> String {
        let masks: Vec<Vec<bool>> = self
            .columns
            .iter()
            .map(|c| {
                let values: Vec<f64> = self.items.iter().map(c.value).collect();
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
        .render()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_marks_best() {
        let t = Table {
            id: "t",
            head: vec![
                ("Rule".into(), String::new()),
                ("P95".into(), "tail".into()),
            ],
            rows: vec![Row {
                cells: vec![Cell::new("a<b"), Cell::new("1").best(true)],
                selected: true,
                key: Some("a"),
            }],
            ..Table::default()
        };
        let html = t.render();
        assert!(html.contains("a&lt;b"));
        assert!(html.contains(r#"<td class="best">1<span class="best-mark"> ★ best</span></td>"#));
        assert!(html.contains(r#"data-key="a""#));
        assert!(html.contains(r#"title="tail""#));
        assert_eq!(
            best_mask(&[3.0, 1.0, 1.04], false, |x| format!("{x:.1}")),
            [false, true, true]
        );
    }
}
