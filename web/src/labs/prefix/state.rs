//! The prefix player's view state and its URL form.
//!
//! Query keys: `threshold` (0–10 or `inf`), `replicas` (2–6), `slots` (1–4),
//! `trace` (`default`, `random`, or prefix ids like `1,2,1,3`), `seed`, `step`
//! (1-based request number).

use sim_core::labs::prefix::{Config, TraceChoice};

use crate::url::ParamReader;

/// The threshold slider's position standing for "infinite".
pub const INF_POSITION: f64 = 11.0;

/// Read the config and 0-based step from query pairs.
pub fn from_query(r: &mut ParamReader) -> (Config, usize) {
    let d = Config::default();
    let threshold = match r.raw("threshold") {
        Some("inf") => None,
        Some(_) => Some(r.whole("threshold", 2, 0, 10) as u32),
        None => d.threshold,
    };
    let trace = match r.raw("trace") {
        None | Some("default") => TraceChoice::Default,
        Some("random") => TraceChoice::Random,
        Some(raw) => {
            let ids: Option<Vec<u8>> = raw
                .split(',')
                .map(|s| s.trim().parse::<u8>().ok().filter(|x| (1..=6).contains(x)))
                .collect();
            match ids {
                Some(ids) if !ids.is_empty() && ids.len() <= 40 => TraceChoice::Custom(ids),
                _ => {
                    r.notices.push(format!(
                        "“trace={raw}” is not default, random or 1–40 prefix ids from 1 to 6; using the default trace."
                    ));
                    TraceChoice::Default
                }
            }
        }
    };
    let config = Config {
        replicas: r.whole("replicas", d.replicas.into(), 2, 6) as u32,
        slots: r.whole("slots", d.slots.into(), 1, 4) as u32,
        threshold,
        trace,
        seed: r.whole("seed", d.seed, 0, u64::MAX),
    };
    let len = config.requests().len() as u64;
    let step = r.whole("step", 1, 1, len.max(1)) as usize - 1;
    (config, step)
}

/// Query pairs for `config` at 0-based `step`.
pub fn to_query(config: &Config, step: usize) -> Vec<(&'static str, String)> {
    let trace = match &config.trace {
        TraceChoice::Default => "default".to_string(),
        TraceChoice::Random => "random".to_string(),
        TraceChoice::Custom(ids) => ids.iter().map(u8::to_string).collect::<Vec<_>>().join(","),
    };
    vec![
        ("lab", "prefix".into()),
        (
            "threshold",
            config.threshold.map_or("inf".into(), |t| t.to_string()),
        ),
        ("replicas", config.replicas.to_string()),
        ("slots", config.slots.to_string()),
        ("trace", trace),
        ("seed", config.seed.to_string()),
        ("step", (step + 1).to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{build_query, parse_query};

    #[test]
    fn query_round_trips() {
        for cfg in [
            Config::default(),
            Config {
                threshold: None,
                replicas: 5,
                slots: 2,
                trace: TraceChoice::Custom(vec![1, 3, 1, 6]),
                seed: 4,
            },
            Config {
                trace: TraceChoice::Random,
                seed: 77,
                ..Config::default()
            },
        ] {
            let mut r = ParamReader::new(parse_query(&build_query(&to_query(&cfg, 2))));
            assert_eq!(from_query(&mut r), (cfg, 2));
            assert!(r.notices.is_empty());
        }
        let mut r = ParamReader::new(parse_query("?trace=1,9&threshold=x&step=99"));
        let (cfg, step) = from_query(&mut r);
        assert_eq!(cfg.trace, TraceChoice::Default);
        assert_eq!(cfg.threshold, Some(2));
        assert_eq!(step, 0);
        assert_eq!(r.notices.len(), 3);
    }
}
