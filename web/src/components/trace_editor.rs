//! What the players' trace editors share: the buttons under the list of
//! requests. Each editor renders its own rows; a click on any of its buttons
//! goes through [`editor_click`].

use super::Setter;

/// Apply a click on a trace editor's button `key` to `rows`: `add-request`
/// appends `new_row(rows)`, `rm-<i>` removes row `i` (a trace keeps at least
/// one request), `default-trace` and `random-trace` set the lab's `trace`
/// parameter directly (a random trace draws a new seed first). Returns whether
/// `rows` changed and should be written back.
pub fn editor_click<T>(
    key: &str,
    rows: &mut Vec<T>,
    new_row: impl FnOnce(&[T]) -> T,
    set: &Setter,
) -> bool {
    match key {
        "add-request" => {
            let row = new_row(rows);
            rows.push(row);
            true
        }
        "default-trace" => {
            let _ = set("trace", "default");
            false
        }
        "random-trace" => {
            let _ = set("new-seed", "");
            let _ = set("trace", "random");
            false
        }
        k => match k.strip_prefix("rm-").and_then(|i| i.parse::<usize>().ok()) {
            Some(i) if i < rows.len() && rows.len() > 1 => {
                rows.remove(i);
                true
            }
            _ => false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn buttons_edit_rows_or_set_the_trace() {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&calls);
        let set: Setter = Arc::new(move |k: &str, v: &str| {
            log.lock().expect("lock").push(format!("{k}={v}"));
            Ok(())
        });
        let mut rows = vec![1, 2];
        assert!(editor_click(
            "add-request",
            &mut rows,
            |r| r.len() + 1,
            &set
        ));
        assert_eq!(rows, [1, 2, 3]);
        assert!(editor_click("rm-0", &mut rows, |_| 0, &set));
        assert_eq!(rows, [2, 3]);
        assert!(!editor_click("rm-9", &mut rows, |_| 0, &set));
        assert!(editor_click("rm-1", &mut rows, |_| 0, &set));
        assert!(
            !editor_click("rm-0", &mut rows, |_| 0, &set),
            "the last request stays"
        );
        assert!(!editor_click("random-trace", &mut rows, |_| 0, &set));
        assert_eq!(*calls.lock().expect("lock"), ["new-seed=", "trace=random"]);
    }
}
