//! The Routing Lab's view state and its URL form.
//!
//! Query keys (all optional; a bad value falls back to its default with a notice):
//! `replicas` (1–16), `rate` (0.01–1 per tick), `prompt` (mean prompt, 128–4096
//! tokens), `cv` (0–2), `long` (share 0–1), `seed`, `rule` (a rule name).

use sim_core::labs::routing::Config;
use sim_core::routing::RuleKind;

use crate::url::ParamReader;

/// Everything the page shows is a function of this.
#[derive(Clone, Debug, PartialEq)]
pub struct RoutingView {
    /// The lab configuration the controls edit.
    pub config: Config,
    /// The rule whose details (cards, chart, replica table) are shown.
    pub rule: RuleKind,
}

/// Slider bounds of the page (a subset of what the core accepts).
pub mod bounds {
    /// Replicas.
    pub const REPLICAS: (f64, f64) = (1.0, 16.0);
    /// Arrival rate, per tick.
    pub const RATE: (f64, f64) = (0.01, 1.0);
    /// Mean prompt, tokens.
    pub const PROMPT: (f64, f64) = (128.0, 4096.0);
    /// Prompt-length CV.
    pub const CV: (f64, f64) = (0.0, 2.0);
    /// Long-request share.
    pub const LONG: (f64, f64) = (0.0, 1.0);
}

impl RoutingView {
    /// Read the view from query pairs; notices name every value that fell back.
    pub fn from_query(reader: &mut ParamReader) -> RoutingView {
        let d = Config::default();
        let config = Config {
            replicas: reader.whole("replicas", d.replicas.into(), 1, 16) as u32,
            rate: reader.number("rate", d.rate, bounds::RATE.0, bounds::RATE.1),
            mean_prompt: reader.whole("prompt", d.mean_prompt.into(), 128, 4096) as u32,
            prompt_cv: reader.number("cv", d.prompt_cv, bounds::CV.0, bounds::CV.1),
            long_share: reader.number("long", d.long_share, bounds::LONG.0, bounds::LONG.1),
            seed: reader.whole("seed", d.seed, 0, u64::MAX),
            ..d
        };
        let names: Vec<&str> = RuleKind::ALL.iter().map(|r| r.name()).collect();
        let rule = reader.choice("rule", RuleKind::LeastOutstanding.name(), &names);
        RoutingView {
            config,
            rule: RuleKind::from_name(rule).unwrap_or(RuleKind::LeastOutstanding),
        }
    }

    /// The query pairs that reproduce this view (lab first).
    pub fn to_query(&self) -> Vec<(&'static str, String)> {
        let c = &self.config;
        vec![
            ("lab", "routing".into()),
            ("replicas", c.replicas.to_string()),
            ("rate", c.rate.to_string()),
            ("prompt", c.mean_prompt.to_string()),
            ("cv", c.prompt_cv.to_string()),
            ("long", c.long_share.to_string()),
            ("seed", c.seed.to_string()),
            ("rule", self.rule.name().into()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::parse_query;

    #[test]
    fn query_round_trips() {
        let v = RoutingView {
            config: Config {
                replicas: 7,
                rate: 0.37,
                mean_prompt: 1500,
                prompt_cv: 1.25,
                long_share: 0.35,
                seed: 99,
                ..Config::default()
            },
            rule: RuleKind::PrefixAware,
        };
        let q = crate::url::build_query(&v.to_query());
        let mut r = ParamReader::new(parse_query(&q));
        assert_eq!(RoutingView::from_query(&mut r), v);
        assert!(r.notices.is_empty());
    }

    #[test]
    fn slo_card_text_names_the_core_default() {
        assert_eq!(
            Config::default().slo_ttft,
            80,
            "update SLO_MEANING in mod.rs"
        );
    }

    #[test]
    fn bad_values_fall_back_with_notices() {
        let mut r = ParamReader::new(parse_query(
            "?replicas=0&rate=abc&cv=9&rule=magic&prompt=2000",
        ));
        let v = RoutingView::from_query(&mut r);
        assert_eq!(v.config.replicas, 4);
        assert_eq!(v.config.rate, 0.2);
        assert_eq!(v.config.prompt_cv, 0.75);
        assert_eq!(v.config.mean_prompt, 2000);
        assert_eq!(v.rule, RuleKind::LeastOutstanding);
        assert_eq!(r.notices.len(), 4);
    }
}
