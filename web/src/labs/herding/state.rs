//! The herding lab's view state and its URL form.
//!
//! Query keys: `replicas` (2–10), `routers` (1–8), `interval` (scrape interval,
//! 1–30 ticks), `ticks` (30–300), `rate` (0.2–5 per tick), `service` (1–60 ticks),
//! `stagger` (0 or 1), `seed`, `rule`, `step` (the player's tick).

use sim_core::labs::herding::{Config, HerdingRule};

use crate::url::ParamReader;

/// Everything the page shows is a function of this.
#[derive(Clone, Debug, PartialEq)]
pub struct HerdingView {
    /// The lab configuration.
    pub config: Config,
    /// The rule the player shows.
    pub rule: HerdingRule,
}

impl HerdingView {
    /// Read the view (and the player's step) from query pairs.
    pub fn from_query(r: &mut ParamReader) -> (HerdingView, usize) {
        let d = Config::default();
        let config = Config {
            replicas: r.whole("replicas", d.replicas.into(), 2, 10) as u32,
            routers: r.whole("routers", d.routers.into(), 1, 8) as u32,
            scrape_interval: r.whole("interval", d.scrape_interval.into(), 1, 30) as u32,
            ticks: r.whole("ticks", d.ticks.into(), 30, 300) as u32,
            arrival_rate: r.number("rate", d.arrival_rate, 0.2, 5.0),
            service_time: r.whole("service", d.service_time.into(), 1, 60) as u32,
            stagger: r.whole("stagger", 0, 0, 1) == 1,
            seed: r.whole("seed", d.seed, 0, u64::MAX),
        };
        let names: Vec<&str> = HerdingRule::ALL.iter().map(|x| x.name()).collect();
        let rule = HerdingRule::from_name(r.choice("rule", HerdingRule::Stale.name(), &names))
            .unwrap_or(HerdingRule::Stale);
        let step = r.whole("step", 0, 0, u64::from(config.ticks) - 1) as usize;
        (HerdingView { config, rule }, step)
    }

    /// The query pairs for this view at player step `step`.
    pub fn to_query(&self, step: usize) -> Vec<(&'static str, String)> {
        let c = &self.config;
        vec![
            ("lab", "herding".into()),
            ("replicas", c.replicas.to_string()),
            ("routers", c.routers.to_string()),
            ("interval", c.scrape_interval.to_string()),
            ("ticks", c.ticks.to_string()),
            ("rate", c.arrival_rate.to_string()),
            ("service", c.service_time.to_string()),
            ("stagger", u8::from(c.stagger).to_string()),
            ("seed", c.seed.to_string()),
            ("rule", self.rule.name().into()),
            ("step", step.to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{build_query, parse_query};

    #[test]
    fn query_round_trips() {
        let v = HerdingView {
            config: Config {
                routers: 6,
                scrape_interval: 5,
                stagger: true,
                arrival_rate: 2.5,
                seed: 12,
                ..Config::default()
            },
            rule: HerdingRule::Both,
        };
        let mut r = ParamReader::new(parse_query(&build_query(&v.to_query(33))));
        assert_eq!(HerdingView::from_query(&mut r), (v, 33));
        assert!(r.notices.is_empty());
    }
}
