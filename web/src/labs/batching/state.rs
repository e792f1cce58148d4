//! The batching player's URL form.
//!
//! Query keys: `mode` (static, continuous, chunked), `slots` (1–6), `budget`
//! (1–8 work units per chunked iteration), `order` (`decode` first or `prefill`
//! first), `trace` (`default`, `random`, or requests as `arrival.prefill.output`
//! joined by commas), `seed`, `step` (1-based iteration).

use sim_core::labs::batching::{config_from_tuples, Config, Mode, TraceChoice};

use crate::url::ParamReader;

/// Read the config, the mode shown and the 0-based step.
pub fn from_query(r: &mut ParamReader) -> (Config, Mode, usize) {
    let d = Config::default();
    let names: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
    let mode = Mode::from_name(r.choice("mode", "continuous", &names)).unwrap_or(Mode::Continuous);
    let trace = match r.raw("trace") {
        None | Some("default") => TraceChoice::Default,
        Some("random") => TraceChoice::Random,
        Some(raw) => match parse_trace(raw) {
            Some(t) => TraceChoice::Custom(config_from_tuples(&t)),
            None => {
                r.notices.push(format!(
                    "“trace={raw}” is not default, random or 1–26 requests written arrival.prefill.output (0–100, 1–20, 1–50); using the default trace."
                ));
                TraceChoice::Default
            }
        },
    };
    let order = r.choice("order", "decode", &["decode", "prefill"]);
    let config = Config {
        slots: r.whole("slots", d.slots.into(), 1, 6) as u32,
        chunk_budget: r.whole("budget", d.chunk_budget.into(), 1, 8) as u32,
        prefill_first: order == "prefill",
        trace,
        seed: r.whole("seed", d.seed, 0, u64::MAX),
    };
    (config, mode, r.whole("step", 1, 1, 10_000) as usize - 1)
}

/// Parse `a.p.o,a.p.o,…`.
pub fn parse_trace(raw: &str) -> Option<Vec<(u32, u32, u32)>> {
    let t: Option<Vec<(u32, u32, u32)>> = raw
        .split(',')
        .map(|r| {
            let mut it = r.split('.').map(|x| x.trim().parse::<u32>().ok());
            let (a, p, o) = (it.next()??, it.next()??, it.next()??);
            ((0..=100).contains(&a)
                && (1..=20).contains(&p)
                && (1..=50).contains(&o)
                && it.next().is_none())
            .then_some((a, p, o))
        })
        .collect();
    t.filter(|t| !t.is_empty() && t.len() <= 26)
}

/// Query pairs for this view.
pub fn to_query(c: &Config, mode: Mode, step: usize) -> Vec<(&'static str, String)> {
    let trace = match &c.trace {
        TraceChoice::Default => "default".into(),
        TraceChoice::Random => "random".into(),
        TraceChoice::Custom(r) => r
            .iter()
            .map(|x| format!("{}.{}.{}", x.arrival, x.prefill, x.output))
            .collect::<Vec<_>>()
            .join(","),
    };
    vec![
        ("lab", "batching".into()),
        ("mode", mode.name().into()),
        ("slots", c.slots.to_string()),
        ("budget", c.chunk_budget.to_string()),
        (
            "order",
            if c.prefill_first { "prefill" } else { "decode" }.into(),
        ),
        ("trace", trace),
        ("seed", c.seed.to_string()),
        ("step", (step + 1).to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{build_query, parse_query};

    #[test]
    fn query_round_trips() {
        let c = Config {
            slots: 2,
            chunk_budget: 1,
            prefill_first: true,
            trace: TraceChoice::Custom(config_from_tuples(&[(0, 2, 3), (4, 1, 9)])),
            seed: 5,
        };
        let mut r = ParamReader::new(parse_query(&build_query(&to_query(&c, Mode::Chunked, 6))));
        assert_eq!(from_query(&mut r), (c, Mode::Chunked, 6));
        assert!(r.notices.is_empty());
        assert_eq!(parse_trace("1.2"), None);
        assert_eq!(parse_trace("0.0.1"), None);
    }
}
