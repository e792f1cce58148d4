//! What the players' trace editors share: the buttons under the list of
//! requests. Each editor renders its own rows; a click on any of its buttons
//! goes through [`editor_click`], which says what to set.

/// Apply a click on a trace editor's button `key` to `rows`: `add-request`
/// appends `new_row(rows)`, `rm-<i>` removes row `i` (a trace keeps at least
/// one request); both return `write(rows)` as the `trace` to set.
/// `default-trace` and `random-trace` set the lab's `trace` parameter
/// directly (a random trace draws a new seed first). Returns the settings to
/// apply, in order (none for a key that changes nothing).
pub fn editor_click<T>(
    key: &str,
    rows: &mut Vec<T>,
    new_row: impl FnOnce(&[T]) -> T,
    write: impl Fn(&[T]) -> String,
) -> Vec<(&'static str, String)> {
    match key {
        "add-request" => {
            let row = new_row(rows);
            rows.push(row);
            vec![("trace", write(rows))]
        }
        "default-trace" => vec![("trace", "default".into())],
        "random-trace" => vec![("new-seed", String::new()), ("trace", "random".into())],
        k => match k.strip_prefix("rm-").and_then(|i| i.parse::<usize>().ok()) {
            Some(i) if i < rows.len() && rows.len() > 1 => {
                rows.remove(i);
                vec![("trace", write(rows))]
            }
            _ => Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buttons_edit_rows_or_set_the_trace() {
        let write = |r: &[usize]| format!("{r:?}");
        let mut rows = vec![1, 2];
        let sets = editor_click("add-request", &mut rows, |r| r.len() + 1, write);
        assert_eq!(rows, [1, 2, 3]);
        assert_eq!(sets, [("trace", "[1, 2, 3]".to_string())]);
        assert_eq!(editor_click("rm-0", &mut rows, |_| 0, write).len(), 1);
        assert_eq!(rows, [2, 3]);
        assert!(editor_click("rm-9", &mut rows, |_| 0, write).is_empty());
        assert_eq!(editor_click("rm-1", &mut rows, |_| 0, write).len(), 1);
        assert!(
            editor_click("rm-0", &mut rows, |_| 0, write).is_empty(),
            "the last request stays"
        );
        assert_eq!(
            editor_click("random-trace", &mut rows, |_| 0, write),
            [("new-seed", String::new()), ("trace", "random".to_string())]
        );
    }
}
