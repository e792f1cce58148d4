//! Herding lab configuration and its parameter table; defaults are the
//! article's §5.6 lab with the service time documented in `docs/model.md`.

use serde::{Deserialize, Serialize};

use crate::params::{narrow, Configurable, Param};

/// Everything one herding run depends on. Missing keys take their defaults;
/// ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas (default 5).
    pub replicas: u32,
    /// Routers dispatching independently (default 4).
    pub routers: u32,
    /// Ticks between a router's scrapes of replica load (default 10).
    pub scrape_interval: u32,
    /// Ticks simulated (default 90).
    pub ticks: u32,
    /// Mean arrivals per tick (default 2.0).
    pub arrival_rate: f64,
    /// Ticks each request occupies its replica (default 15).
    pub service_time: u32,
    /// Evenly paced arrivals (⌈(t+1)λ⌉ − ⌈tλ⌉ in tick t) instead of Poisson
    /// (default on: the article's tick 0 has two arrivals, and its 1-tick
    /// interval row needs them; docs/model.md, Calibration).
    pub even_arrivals: bool,
    /// Offset router k's scrapes by ⌊k·T/K⌋ instead of scraping all together.
    pub stagger: bool,
    /// Seed of the arrival and decision streams (default 1).
    pub seed: u64,
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            replicas: 5,
            routers: 4,
            scrape_interval: 10,
            ticks: 90,
            arrival_rate: 2.0,
            service_time: 15,
            even_arrivals: true,
            stagger: false,
            seed: 1,
        }
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::whole(
            "replicas",
            "Replicas",
            "",
            (2, 16, 1),
            |c| c.replicas.into(),
            |c, x| c.replicas = narrow(x),
        )
        .doc("Replicas the routers spread work over."),
        P::whole(
            "routers",
            "Routers",
            "",
            (1, 16, 1),
            |c| c.routers.into(),
            |c, x| c.routers = narrow(x),
        )
        .doc("Independent routers, each dispatching on its own snapshot."),
        P::whole(
            "scrape-interval",
            "Scrape interval",
            "ticks",
            (1, 50, 1),
            |c| c.scrape_interval.into(),
            |c, x| c.scrape_interval = narrow(x),
        )
        .doc("Ticks between a router's load scrapes: how stale a snapshot can get."),
        P::real(
            "arrival-rate",
            "Arrival rate",
            "req/tick",
            (0.1, 10.0, 0.1),
            |c| c.arrival_rate,
            |c, x| c.arrival_rate = x,
        )
        .doc("Mean arrivals per tick."),
        P::choice(
            "arrivals",
            "Arrivals",
            arrival_kinds,
            |c| if c.even_arrivals { "even" } else { "poisson" },
            |c, x| c.even_arrivals = x == "even",
        )
        .doc("How many requests arrive in each tick: a Poisson draw, or the rate paced evenly."),
        P::whole(
            "service-time",
            "Service time",
            "ticks",
            (1, 100, 1),
            |c| c.service_time.into(),
            |c, x| c.service_time = narrow(x),
        )
        .doc("Ticks each request occupies its replica, however busy it is."),
        P::whole(
            "ticks",
            "Horizon",
            "ticks",
            (10, 1000, 10),
            |c| c.ticks.into(),
            |c, x| c.ticks = narrow(x),
        )
        .doc("Ticks simulated."),
        P::switch(
            "stagger",
            "Stagger scrape times (router k scrapes k·T/K ticks later)",
            |c| c.stagger,
            |c, x| c.stagger = x,
        )
        .doc("Spread the routers' scrapes over the interval instead of scraping together."),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}

fn arrival_kinds() -> alloc::vec::Vec<crate::params::Opt> {
    alloc::vec![
        crate::params::Opt {
            name: "poisson",
            title: "Poisson",
            doc: "A Poisson number of arrivals each tick, from the seed's arrival stream.",
        },
        crate::params::Opt {
            name: "even",
            title: "Evenly paced",
            doc: "The rate spread evenly: tick t gets ⌈(t+1)λ⌉ − ⌈tλ⌉ arrivals, the same for every seed.",
        },
    ]
}

impl Config {
    /// Arrivals in tick `t` when paced evenly.
    pub fn even_count(&self, t: u32) -> u32 {
        let l = self.arrival_rate;
        (libm::ceil((f64::from(t) + 1.0) * l) - libm::ceil(f64::from(t) * l)) as u32
    }

    /// Tick offset of router `k`'s scrapes.
    pub fn offset(&self, k: u32) -> u32 {
        if self.stagger {
            k * self.scrape_interval / self.routers.max(1)
        } else {
            0
        }
    }
}
