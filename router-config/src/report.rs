//! The import report under construction: the lab's settings a configuration
//! decides and a line for every value read, so nothing is ignored silently.

use sim_core::labs::serve::{ConfigReport, Said};

/// A [`ConfigReport`] being written.
pub struct Report {
    inner: ConfigReport,
}

impl Report {
    /// An empty report of the format with `id` (its lab is the format's),
    /// read as `title`.
    pub fn new(id: &'static str, title: &str) -> Report {
        Report {
            inner: ConfigReport {
                id: id.into(),
                format: title.into(),
                pairs: Vec::new(),
                lines: Vec::new(),
                fixes: Vec::new(),
            },
        }
    }

    /// Set the lab's `key` to `value` (a later set of the same key wins).
    pub fn set(&mut self, key: &str, value: impl ToString) {
        let value = value.to_string();
        match self.inner.pairs.iter_mut().find(|(k, _)| k == key) {
            Some(pair) => pair.1 = value,
            None => self.inner.pairs.push((key.into(), value)),
        }
    }

    /// The value set for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.inner
            .pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// One line of the report.
    pub fn say(&mut self, said: Said, text: impl Into<String>) {
        self.inner.lines.push((said, text.into()));
    }

    /// A value the configuration states: `upstream` is its name there,
    /// `given` its text, `default` the router's own; `effect` says what the
    /// difference changes (used only when it differs).
    pub fn stated(&mut self, upstream: &str, given: &str, default: &str, effect: &str) {
        if same(given, default) {
            self.say(
                Said::Restates,
                format!("{upstream} = {given} restates the default."),
            );
        } else {
            self.say(
                Said::Differs,
                format!("{upstream} = {given} (default {default}): {effect}"),
            );
        }
    }

    /// Name a key or value the lab does not model, and why it does not matter
    /// here or what the lab does instead.
    pub fn not_modelled(&mut self, what: &str, why: &str) {
        self.say(Said::NotModelled, format!("{what}: {why}"));
    }

    /// Name a secret the import dropped.
    pub fn secret(&mut self, path: &str) {
        self.say(
            Said::Secret,
            format!("{path}: a secret, dropped (never kept in the link or in exports)."),
        );
    }

    /// A one-click change to suggest: what the button says, and its settings.
    pub fn fix(&mut self, label: &str, pairs: &[(&str, &str)]) {
        let pairs = pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect();
        self.inner.fixes.push((label.into(), pairs));
    }

    /// The finished report, its lines by kind: what differs first, then
    /// notes, what is not modelled, secrets, and restated defaults last
    /// (in the order read within a kind).
    pub fn done(mut self) -> ConfigReport {
        let rank = |s: &Said| match s {
            Said::Differs => 0,
            Said::Note => 1,
            Said::NotModelled => 2,
            Said::Secret => 3,
            Said::Restates => 4,
        };
        self.inner.lines.sort_by_key(|(s, _)| rank(s));
        self.inner
    }
}

/// Two values' texts name the same value (`0.50` and `0.5`, `1` and `1.0`).
fn same(a: &str, b: &str) -> bool {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a.trim().eq_ignore_ascii_case(b.trim()),
    }
}
