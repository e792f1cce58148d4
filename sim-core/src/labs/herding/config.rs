//! Herding lab configuration; defaults are the article's §5.6 lab.

use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::labs::RangeError;

/// Everything one herding run depends on. Missing keys take their defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas (2–20; default 5).
    pub replicas: u32,
    /// Routers dispatching independently (1–16; default 4).
    pub routers: u32,
    /// Ticks between a router's scrapes of replica load (1–100; default 10).
    pub scrape_interval: u32,
    /// Ticks simulated (10–2,000; default 90).
    pub ticks: u32,
    /// Mean arrivals per tick, Poisson (0.1–20; default 1.8).
    pub arrival_rate: f64,
    /// Ticks each request occupies its replica (1–200; default 20).
    pub service_time: u32,
    /// Offset router k's scrapes by ⌊k·T/K⌋ instead of scraping all together.
    pub stagger: bool,
    /// Seed of the arrival and decision streams (default 1).
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            replicas: 5,
            routers: 4,
            scrape_interval: 10,
            ticks: 90,
            arrival_rate: 1.8,
            service_time: 20,
            stagger: false,
            seed: 1,
        }
    }
}

impl Config {
    /// Every ranged key as `(key, value, min, max)`.
    pub fn bounds(&self) -> Vec<(&'static str, f64, f64, f64)> {
        vec![
            ("replicas", f64::from(self.replicas), 2.0, 20.0),
            ("routers", f64::from(self.routers), 1.0, 16.0),
            (
                "scrape_interval",
                f64::from(self.scrape_interval),
                1.0,
                100.0,
            ),
            ("ticks", f64::from(self.ticks), 10.0, 2000.0),
            ("arrival_rate", self.arrival_rate, 0.1, 20.0),
            ("service_time", f64::from(self.service_time), 1.0, 200.0),
        ]
    }

    /// Check every value against its range.
    pub fn validate(&self) -> Result<(), RangeError> {
        crate::labs::validate_bounds(self.bounds())
    }

    /// The `(min, max)` range of `key`.
    pub fn range_of(key: &str) -> Option<(f64, f64)> {
        crate::labs::range_in(Config::default().bounds(), key)
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
