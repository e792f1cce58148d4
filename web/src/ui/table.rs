//! Tables and result cards as views: the comparison tables every lab
//! shows (the best value of each column starred), plain tables whose row
//! headers can pick an item, and the headline cards. A row's button carries
//! its own click handler ([`Pick`]).

use leptos::prelude::*;

/// What picking a row does: the row's key goes to the page (usually to put
/// that item in focus).
pub type Pick = Callback<&'static str>;

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
    /// If set, the row header is a button that picks this key.
    pub key: Option<&'static str>,
}

impl Table {
    /// The table as a view; `pick` is what a row header's button does (rows
    /// with a `key` only).
    pub fn view(self, pick: Option<Pick>) -> AnyView {
        let label = if self.caption.is_empty() {
            "Table".to_string()
        } else {
            self.caption.clone()
        };
        let caption =
            (!self.caption.is_empty()).then(|| view! { <caption>{self.caption}</caption> });
        let head = self
            .head
            .into_iter()
            .map(|(text, meaning)| {
                let title = (!meaning.is_empty()).then_some(meaning);
                view! { <th scope="col" title=title>{text}</th> }
            })
            .collect_view();
        let rows = self
            .rows
            .into_iter()
            .map(|row| row_view(row, pick))
            .collect_view();
        let id = (!self.id.is_empty()).then_some(self.id);
        let class = (!self.class.is_empty()).then_some(self.class);
        // Focusable, so a keyboard can scroll a wide table sideways.
        view! {
            <div class="table-wrap" tabindex="0" role="region" aria-label=label>
                <table id=id class=class>
                    {caption}
                    <thead><tr>{head}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

/// A colour swatch before a cell's text.
fn swatch(color: Option<&'static str>) -> Option<impl IntoView> {
    color.map(|c| view! { <span class="swatch" style:background=c></span> })
}

/// One row: its header (a button when the row has a key and the table a
/// pick), then its cells with their marks.
fn row_view(row: Row, pick: Option<Pick>) -> impl IntoView {
    let selected = row.selected;
    let mut cells = row.cells.into_iter();
    let first = cells.next().unwrap_or_default();
    let header = match (row.key, pick) {
        (Some(key), Some(pick)) => view! {
            <button class="linklike" data-key=key aria-pressed=if selected { "true" } else { "false" }
                on:click=move |_| pick.run(key)>{first.text}</button>
        }
        .into_any(),
        _ => first.text.into_any(),
    };
    let first_class = (!first.class.is_empty()).then_some(first.class);
    let rest = cells
        .map(|cell| {
            let class = match (cell.best, cell.class) {
                (true, "") => Some("best".to_string()),
                (true, c) => Some(format!("best {c}")),
                (false, "") => None,
                (false, c) => Some(c.to_string()),
            };
            let mark = cell
                .best
                .then(|| view! { <span class="best-mark">" ★ best"</span> });
            view! { <td class=class>{swatch(cell.swatch)}{cell.text}{mark}</td> }
        })
        .collect_view();
    view! {
        <tr class=selected.then_some("selected")>
            <th scope="row" class=first_class>{swatch(first.swatch)}{header}</th>
            {rest}
        </tr>
    }
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
    /// If set, row titles are buttons that pick this key.
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
    pub fn view(&self, pick: Option<Pick>) -> AnyView {
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
        .view(pick)
    }
}

/// A result card: title, value with unit, and its meaning on hover and focus
/// (the card's accessible description).
pub fn card(id: &str, title: &str, value: &str, unit: &str, meaning: &str) -> AnyView {
    let (meaning_id, described_by) = (format!("{id}-meaning"), format!("{id}-meaning"));
    let unit =
        (!unit.is_empty()).then(|| view! { <span class="card-unit">{format!(" {unit}")}</span> });
    view! {
        <div class="card" id=id.to_string() tabindex="0" aria-describedby=described_by>
            <div class="card-title">{title.to_string()}</div>
            <div class="card-value">
                <span class="card-number">{value.to_string()}</span>
                {unit}
            </div>
            <div class="card-meaning" id=meaning_id role="tooltip">{meaning.to_string()}</div>
        </div>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_marks_what_is_shown_and_never_a_full_tie() {
        assert_eq!(
            best_mask(&[3.0, 1.0, 1.04], false, |x| format!("{x:.1}")),
            [false, true, true]
        );
        // Every row tied: no mark at all.
        assert_eq!(
            best_mask(&[1.0, 1.04, 0.96], false, |x| format!("{x:.1}")),
            [false, false, false]
        );
        assert_eq!(
            best_mask(&[2.0, 5.0], true, |x| format!("{x:.0}")),
            [false, true]
        );
    }
}
