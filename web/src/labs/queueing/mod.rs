//! The queueing and overload explorables (article §1.2–1.3, §9.1–9.2, §10.2):
//! the knee, Little's law, retry amplification, hedging and cascades. Each
//! has one shape: a header, headline cards, one chart (`queueing-chart`),
//! details below it.

pub mod cascade;
pub mod hedging;
pub mod knee;
pub mod little;
pub mod retries;

/// The explorables' one chart.
pub const CHART: &str = "queueing-chart";

/// Table column heads from (text, meaning) pairs.
pub fn heads(h: &[(&str, &str)]) -> Vec<(String, String)> {
    h.iter()
        .map(|(t, m)| (t.to_string(), m.to_string()))
        .collect()
}
