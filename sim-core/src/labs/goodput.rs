//! Goodput and capacity (article §1.2 and §4.2): the Routing Lab's workload, or
//! a replayed trace, offered at a sweep of arrival rates, open loop (arrivals
//! never wait for completions). For every rate and rule: the share of requests
//! whose first token met the TTFT SLO, and goodput, the requests per tick that
//! met it. A rule's capacity is the highest rate of the sweep at which at least
//! the target share (95% by default) still met the SLO.
//!
//! The configuration is the Routing Lab's (its parameter rows but the rate,
//! which the sweep sets) plus the sweep. With a trace, the trace is imported
//! once and its arrival times are compressed or stretched so it arrives at
//! each swept rate.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Panel, Progress, RunError, Tally};
use super::routing::{self, AsRouting, Rows, TraceSource};
use super::work::{Meter, Work};
use crate::choice::Choice;
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};
use crate::routing::{rule_rows_len, with_rule_rows, RuleKind};
use crate::time::Tick;
use crate::workload::trace::ImportReport;
use crate::workload::{generator, Workload};

/// The goodput lab's settings: the Routing Lab's workload, pool and rules,
/// and the rates to sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// The Routing Lab's settings (its `rate` is not used: the sweep sets it).
    pub routing: routing::Config,
    /// Lowest arrival rate swept, per tick (default 0.05).
    pub sweep_from: f64,
    /// Highest arrival rate swept, per tick (default 0.40).
    pub sweep_to: f64,
    /// Lowest arrival rate swept in milliseconds mode, per second (default 4).
    pub sweep_from_rps: f64,
    /// Highest arrival rate swept in milliseconds mode, per second (default 40).
    pub sweep_to_rps: f64,
    /// Rates tried, evenly spaced (default 8).
    pub sweep_points: u32,
    /// Share of requests that must meet the TTFT SLO for a rate to count as
    /// within a rule's capacity (default 0.95).
    pub slo_target: f64,
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            routing: routing::Config::default(),
            sweep_from: 0.05,
            sweep_to: 0.40,
            sweep_from_rps: 4.0,
            sweep_to_rps: 40.0,
            sweep_points: 8,
            slo_target: 0.95,
        }
    }
}

impl AsRouting for Config {
    fn routing(&self) -> &routing::Config {
        &self.routing
    }
    fn routing_mut(&mut self) -> &mut routing::Config {
        &mut self.routing
    }
}

/// Shorthand for the rows below.
type P = Param<Config>;

/// The sweep's own rows.
const SWEEP: &[Param<Config>] = &[
    P::real(
        "sweep-from",
        "Lowest rate",
        "req/tick",
        (0.01, 5.0, 0.01),
        |c| c.sweep_from,
        |c, x| c.sweep_from = x,
    )
    .doc("The sweep starts at this arrival rate.")
    .ticks_only(),
    P::real(
        "sweep-to",
        "Highest rate",
        "req/tick",
        (0.01, 5.0, 0.01),
        |c| c.sweep_to,
        |c, x| c.sweep_to = x,
    )
    .doc("The sweep ends at this arrival rate.")
    .ticks_only(),
    P::real(
        "sweep-from-rps",
        "Lowest rate",
        "req/s",
        (0.1, 2000.0, 0.1),
        |c| c.sweep_from_rps,
        |c, x| c.sweep_from_rps = x,
    )
    .doc("The sweep starts at this arrival rate.")
    .ms_only(),
    P::real(
        "sweep-to-rps",
        "Highest rate",
        "req/s",
        (0.1, 2000.0, 0.1),
        |c| c.sweep_to_rps,
        |c, x| c.sweep_to_rps = x,
    )
    .doc("The sweep ends at this arrival rate.")
    .ms_only(),
    P::whole(
        "sweep-points",
        "Rates tried",
        "",
        (2, 40, 1),
        |c| c.sweep_points.into(),
        |c, x| c.sweep_points = narrow(x),
    )
    .doc("How many evenly spaced rates the sweep runs (each under every rule)."),
    P::real(
        "slo-target",
        "Capacity threshold",
        "",
        (0.5, 1.0, 0.01),
        |c| c.slo_target,
        |c, x| c.slo_target = x,
    )
    .doc("A rate is within a rule's capacity while at least this share of requests meets the TTFT SLO.")
    .show(Show::Percent(0)),
];

/// The lab's own rows: the Routing Lab's but the rate, then the sweep.
const OWN: [Param<Config>;
    Rows::<Config>::HEAD.len()
        + Rows::<Config>::REST.len()
        + Rows::<Config>::TIME.len()
        + SWEEP.len()] = crate::params::concat(&[
    Rows::<Config>::HEAD,
    Rows::<Config>::REST,
    Rows::<Config>::TIME,
    SWEEP,
]);

/// The whole table: the lab's rows, then each rule's.
const ALL: [Param<Config>; OWN.len() + rule_rows_len::<Config>()] = with_rule_rows(&OWN);

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &ALL;

    fn cross_check(&self) -> Result<(), ParamError> {
        self.routing.cross_check()?;
        if self.sweep_to <= self.sweep_from {
            return Err(ParamError {
                key: "sweep-to",
                given: crate::params::real_text(self.sweep_to),
                problem: Problem::Below("sweep-from"),
            });
        }
        if self.sweep_to_rps <= self.sweep_from_rps {
            return Err(ParamError {
                key: "sweep-to-rps",
                given: crate::params::real_text(self.sweep_to_rps),
                problem: Problem::Below("sweep-from-rps"),
            });
        }
        Ok(())
    }
}

/// One rule at one rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleAtRate {
    /// The rule.
    pub rule: RuleKind,
    /// Share of requests whose TTFT met the SLO (0–1).
    pub slo_attainment: f64,
    /// Requests that met the SLO, per tick of the run (per second in
    /// milliseconds mode).
    pub goodput: f64,
    /// 95th-percentile TTFT, in ticks (ms in milliseconds mode).
    pub ttft_p95: f64,
    /// Requests replayed at this rate.
    pub requests: u32,
    /// Of those, finished.
    pub completed: u32,
    /// Not finished when the replay stopped (only past `max_ticks`).
    pub outstanding: u32,
}

/// Every rule at one offered rate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Offered arrivals per tick (per second in milliseconds mode).
    pub rate: f64,
    /// One entry per rule run, in registry order.
    pub rules: Vec<RuleAtRate>,
}

/// A rule's capacity, read off the sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Capacity {
    /// The rule.
    pub rule: RuleKind,
    /// Highest swept rate at which the SLO target held (`None`: not even the
    /// lowest).
    pub rate: Option<f64>,
    /// Whether the target still held at the highest swept rate (the capacity
    /// may be higher than the sweep reached).
    pub beyond_sweep: bool,
}

/// The sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Generated requests or a replayed trace.
    pub source: TraceSource,
    /// For a replayed trace: what the import read, kept and skipped.
    #[serde(default)]
    pub import: Option<ImportReport>,
    /// For a replayed trace: its own statistics at its own timing (§15:
    /// its reuse before comparing rules on it).
    #[serde(default)]
    pub trace: Option<crate::workload::TraceStats>,
    /// One point per swept rate, lowest first.
    pub points: Vec<Point>,
    /// Each rule's capacity.
    pub capacities: Vec<Capacity>,
}

/// The swept rates: `points` evenly spaced from `from` to `to`.
pub fn rates(c: &Config) -> Vec<f64> {
    let n = c.sweep_points.max(2);
    let (from, to) = if c.routing.timing.in_ms() {
        (c.sweep_from_rps, c.sweep_to_rps)
    } else {
        (c.sweep_from, c.sweep_to)
    };
    (0..n)
        .map(|i| from + (to - from) * f64::from(i) / f64::from(n - 1))
        // Round to a millionth, so 0.05 + 0.05 reads 0.1, not 0.1000…02.
        .map(|x| libm::round(x * 1e6) / 1e6)
        .collect()
}

/// `workload` with its arrivals rescaled to arrive at `rate` per tick.
fn at_rate(workload: &Workload, rate: f64) -> Workload {
    let stats = workload.stats();
    let factor = if stats.rate > 0.0 {
        rate / stats.rate
    } else {
        1.0
    };
    let first = stats.first_arrival;
    let mut w = workload.clone();
    for r in w.requests.iter_mut() {
        r.arrival = Tick(libm::floor((r.arrival.0 - first) as f64 / factor) as u64);
    }
    w
}

/// Run the sweep on `workload_at(rate)` for every rule.
fn sweep(
    config: &Config,
    rules: &[RuleKind],
    workload_at: impl Fn(f64) -> Workload,
    progress: Progress<'_>,
    meter: &Meter,
) -> (Vec<Point>, Vec<Capacity>) {
    let rates = rates(config);
    let per = config.routing.timing.per_second();
    let total = (rates.len() * rules.len()) as u32;
    let points: Vec<Point> = rates
        .iter()
        .enumerate()
        // A spent meter stops the sweep (the caller refuses the run).
        .take_while(|_| !meter.spent())
        .map(|(i, &rate)| {
            // Rates are per tick, or per second in milliseconds mode (a
            // tick is then a millisecond).
            let w = workload_at(rate / per);
            let base = (i * rules.len()) as u32;
            // Every rule on this rate's workload in one replay (the trace's
            // statistics are computed once, and each rule draws from its own
            // stream, so running them together changes no result). The
            // workload already arrives at `rate`; the replay reads the engine
            // and rule settings only (writing `rate` into the config would
            // hold the sweep, which reaches 5 per tick, to the Routing Lab's
            // slider range of 2).
            let run = routing::run_on_reporting(
                &config.routing,
                &w,
                rules,
                &|k, _| progress(base + k, total),
                meter,
            );
            let rules = match run {
                Ok(o) => o
                    .rules
                    .iter()
                    .map(|r| RuleAtRate {
                        rule: r.rule,
                        slo_attainment: r.slo_attainment,
                        goodput: r.slo_attainment * w.requests.len() as f64 / r.ticks as f64 * per,
                        ttft_p95: r.ttft_p95,
                        requests: o.trace.requests,
                        completed: r.replicas.iter().map(|x| x.completed).sum(),
                        outstanding: r.outstanding,
                    })
                    .collect(),
                // Only if the replay refused the config, which was validated
                // before the sweep: nothing met the SLO. (Not NaN: JSON has
                // no NaN, and the page reads this.)
                Err(_) => rules
                    .iter()
                    .map(|&rule| RuleAtRate {
                        rule,
                        slo_attainment: 0.0,
                        goodput: 0.0,
                        ttft_p95: 0.0,
                        requests: w.requests.len() as u32,
                        completed: 0,
                        outstanding: w.requests.len() as u32,
                    })
                    .collect(),
            };
            Point { rate, rules }
        })
        .collect();
    if meter.spent() {
        return (Vec::new(), Vec::new());
    }
    let capacities = rules
        .iter()
        .enumerate()
        .map(|(k, &rule)| {
            let ok = |p: &Point| p.rules[k].slo_attainment >= config.slo_target;
            Capacity {
                rule,
                rate: points.iter().rev().find(|p| ok(p)).map(|p| p.rate),
                beyond_sweep: points.last().is_some_and(ok),
            }
        })
        .collect();
    (points, capacities)
}

/// The goodput lab in the registry.
pub struct GoodputLab;

impl Lab for GoodputLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = RuleKind;
    const INFO: LabInfo = LabInfo {
        id: "goodput",
        title: "Goodput and capacity",
        section: "§1.2, §4.2",
        layer: Layer::EndpointSelection,
        summary: "Raise the offered load step by step and read off how much each rule can carry within the TTFT SLO.",
        units: "Rates in requests per tick (one engine iteration); TTFT in ticks; goodput in requests per tick within the SLO.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<RuleKind>> = Some(Focus {
        key: "rule",
        label: "Rule in focus",
        default: RuleKind::LeastOutstanding,
    });
    const REPLAYS_TRACES: bool = true;

    fn work(config: &Config, input: &Input<'_, RuleKind>) -> Work {
        let rules = input.items().len();
        let ns = rates(config)
            .iter()
            .map(|&rate| {
                let at = routing::Config {
                    rate,
                    ..config.routing.clone()
                };
                routing::work::rule_ns(&at, &routing::work::Shape::generated(&at))
            })
            .sum::<f64>()
            * rules as f64;
        let mut w = routing::work::work(
            &config.routing,
            rules,
            &routing::work::Shape::generated(&config.routing),
        );
        w.ns = ns;
        w.what = alloc::format!("{} swept rates × {}", config.sweep_points, w.what);
        w.drivers = &[
            "requests",
            "sweep-points",
            "counterfactuals",
            "mean-prompt",
            "short-output-mean",
            "long-output-mean",
        ];
        w
    }

    fn run(config: &Config, input: &Input<'_, RuleKind>) -> Result<Outcome, RunError> {
        config.validate()?;
        let rules = input.items();
        let Some(t) = &input.trace else {
            // The meter's allowance: what the sweep's fixed part leaves.
            let fixed: f64 = rates(config)
                .iter()
                .map(|&rate| {
                    let at = routing::Config {
                        rate,
                        ..config.routing.clone()
                    };
                    routing::work::fixed_ns(&at, &routing::work::Shape::generated(&at))
                })
                .sum::<f64>()
                * rules.len() as f64;
            let meter = Meter::after(fixed);
            let o = generated(config, &rules, input.progress, &meter);
            return if meter.spent() {
                Err(RunError::TooMuch(meter.refusal()))
            } else {
                Ok(o)
            };
        };
        let (workload, report) = t
            .options
            .import_parsed(t.parsed, Some(config.routing.capacity()))
            .map_err(|e| RunError::Trace(e.0))?;
        // A trace's size is known once it is read: every swept rate replays it.
        let shape = routing::work::Shape::of(&workload);
        let mut w = routing::work::work(&config.routing, rules.len(), &shape);
        w.ns *= f64::from(config.sweep_points);
        if !w.fits() {
            return Err(RunError::TooMuch(super::work::refusal(
                &w,
                &[alloc::string::String::from(
                    "sweep-points, trace-limit or window-length lower",
                )],
            )));
        }
        let fixed = routing::work::fixed_ns(&config.routing, &shape)
            * rules.len() as f64
            * f64::from(config.sweep_points);
        let meter = Meter::after(fixed);
        let (points, capacities) = sweep(
            config,
            &rules,
            |rate| at_rate(&workload, rate),
            input.progress,
            &meter,
        );
        if meter.spent() {
            return Err(RunError::TooMuch(meter.refusal()));
        }
        Ok(Outcome {
            config: config.clone(),
            source: TraceSource::Replayed,
            import: Some(report),
            trace: Some(workload.stats()),
            points,
            capacities,
        })
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report(outcome, detail)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    fn tally(o: &Outcome) -> alloc::vec::Vec<Tally> {
        let mut out = Vec::new();
        for (i, p) in o.points.iter().enumerate() {
            for r in &p.rules {
                out.push(Tally {
                    what: alloc::format!("point {i} (rate {}), rule {}", p.rate, r.rule.name()),
                    arrived: u64::from(r.requests),
                    finished: u64::from(r.completed),
                    rejected: 0,
                    outstanding: u64::from(r.outstanding),
                });
            }
        }
        out
    }

    fn csv(outcome: &Outcome) -> String {
        let mut s = String::from("rate,rule,slo_attainment,goodput,ttft_p95\n");
        for p in &outcome.points {
            for r in &p.rules {
                s.push_str(&alloc::format!(
                    "{},{},{},{},{}\n",
                    p.rate,
                    r.rule.name(),
                    r.slo_attainment,
                    r.goodput,
                    r.ttft_p95
                ));
            }
        }
        s
    }
}

/// The sweep over generated workloads (one per rate, same seed).
fn generated(
    config: &Config,
    rules: &[RuleKind],
    progress: Progress<'_>,
    meter: &Meter,
) -> Outcome {
    let workload_at = |rate| {
        generator::generate(
            &routing::Config {
                rate,
                rps: rate * 1000.0,
                ..config.routing.clone()
            }
            .generator(),
            config.routing.seed,
        )
    };
    let (points, capacities) = sweep(config, rules, workload_at, progress, meter);
    Outcome {
        config: config.clone(),
        source: TraceSource::Generated,
        import: None,
        trace: None,
        points,
        capacities,
    }
}

/// The capacity table, then (with `detail`) SLO attainment per rate and rule.
fn report(o: &Outcome, detail: bool) -> String {
    use alloc::format;
    let (c, r) = (&o.config, &o.config.routing);
    let ms = r.timing.in_ms();
    let (from, to, per, rate_unit) = if ms {
        (c.sweep_from_rps, c.sweep_to_rps, "second", "req/s")
    } else {
        (c.sweep_from, c.sweep_to, "tick", "req/tick")
    };
    let unit = r.timing.unit();
    let mut s = format!(
        "Goodput lab: {} replicas, rates {}–{} per {per} in {} steps, SLO TTFT ≤ {} {unit}, capacity at ≥ {:.0}% within SLO, seed {}\n",
        r.replicas,
        crate::params::real_text(from),
        crate::params::real_text(to),
        c.sweep_points,
        r.slo_ticks(),
        c.slo_target * 100.0,
        r.seed
    );
    if let Some(summary) = r.timing.summary(r.kv_block_tokens) {
        s.push_str(&format!("Preset: {summary}.\n"));
    }
    if let Some(import) = &o.import {
        s.push_str(&format!("Import: {}.\n", import.summary()));
    }
    s.push_str(&format!(
        "\n{:<22} {:>14}\n",
        "rule",
        format!("capacity ({rate_unit})")
    ));
    for cap in &o.capacities {
        let text = match (cap.rate, cap.beyond_sweep) {
            (None, _) => String::from("below the sweep"),
            (Some(r), true) => format!("≥ {}", crate::params::real_text(r)),
            (Some(r), false) => crate::params::real_text(r),
        };
        s.push_str(&format!("{:<22} {:>14}\n", cap.rule.name(), text));
    }
    if detail {
        s.push_str(&format!(
            "\nSLO attainment (goodput, {rate_unit}) per offered rate:\n"
        ));
        s.push_str(&format!("{:<22}", "rule"));
        for p in &o.points {
            s.push_str(&format!(
                " {:>13}",
                format!("λ={}", crate::params::real_text(p.rate))
            ));
        }
        s.push('\n');
        for (k, cap) in o.capacities.iter().enumerate() {
            s.push_str(&format!("{:<22}", cap.rule.name()));
            for p in &o.points {
                let r = &p.rules[k];
                s.push_str(&format!(
                    " {:>5.0}% ({:.3})",
                    r.slo_attainment * 100.0,
                    r.goodput
                ));
            }
            s.push('\n');
        }
    }
    s
}
