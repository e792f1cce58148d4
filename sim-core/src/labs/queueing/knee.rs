//! The utilisation knee (§1.2).
//!
//! Pollaczek–Khinchine (M/G/1): Wq / E[S] = ρ/(1−ρ) · (1 + Cs²)/2.
//! Kingman (G/G/1, heavy-traffic approximation): Wq / E[S] ≈ ρ/(1−ρ) · (Ca² + Cs²)/2.
//! Solving either for the ρ at which the wait equals `w` service times gives the
//! usable utilisation ρ = w / (w + k) with k the variability factor.
//!
//! The simulation is a single FIFO server run by Lindley's recursion
//! (W₍ₙ₊₁₎ = max(0, Wₙ + Sₙ − Aₙ₊₁)), exact for a single server. Inter-arrival
//! times are Gamma with squared CV Ca² (1 is Poisson); service times are Gamma
//! with the chosen mean and squared CV Cs² (0 is deterministic; 1 exponential).
//! Waits are reported in units of the mean service time. The error band is
//! ±1.96 standard errors over 20 batch means.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::labs::lab::{Input, Lab, LabInfo, Layer, Nothing, Panel, RunError, Tally};
use crate::labs::work::{thousands, Work};
use crate::params::{narrow, Configurable, Param, ParamError};
use crate::rng::{stream, Rng};
use alloc::format;
use alloc::string::String;

/// Mean wait in queue over mean service time, for utilisation `rho` and a
/// combined variability factor `k` = (Ca² + Cs²)/2. Infinite at ρ ≥ 1.
pub fn wait_factor(rho: f64, k: f64) -> f64 {
    if rho >= 1.0 {
        f64::INFINITY
    } else {
        rho / (1.0 - rho) * k
    }
}

/// Pollaczek–Khinchine: Wq / E[S] for M/G/1.
pub fn pollaczek_khinchine(rho: f64, cs2: f64) -> f64 {
    wait_factor(rho, (1.0 + cs2) / 2.0)
}

/// Kingman's approximation: Wq / E[S] for G/G/1.
pub fn kingman(rho: f64, ca2: f64, cs2: f64) -> f64 {
    wait_factor(rho, (ca2 + cs2) / 2.0)
}

/// The utilisation at which the wait reaches `wait` service times, for
/// variability factor `k`.
pub fn usable_utilization(wait: f64, k: f64) -> f64 {
    if k <= 0.0 {
        1.0
    } else {
        wait / (wait + k)
    }
}

/// One simulated point: measured mean wait (in service times) with its band.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimPoint {
    /// Utilisation.
    pub rho: f64,
    /// Measured mean wait over mean service time.
    pub mean_wait: f64,
    /// Half-width of the 95% band (1.96 standard errors of 20 batch means).
    pub band: f64,
    /// The formula's value at this ρ.
    pub formula: f64,
}

fn gamma_cv2(rng: &mut Rng, mean: f64, cv2: f64) -> f64 {
    rng.gamma_mean_cv(mean, libm::sqrt(cv2))
}

/// Simulate `customers` customers of a single FIFO server at utilisation `rho`
/// with squared CVs `ca2` (inter-arrival) and `cs2` (service), mean service 1.
pub fn simulate(rho: f64, ca2: f64, cs2: f64, customers: u32, seed: u64) -> SimPoint {
    simulate_with_mean(rho, ca2, cs2, 1.0, customers, seed)
}

/// [`simulate`] with service times of mean `mean` (any time unit); the wait is
/// still reported in mean service times.
pub fn simulate_with_mean(
    rho: f64,
    ca2: f64,
    cs2: f64,
    mean: f64,
    customers: u32,
    seed: u64,
) -> SimPoint {
    let mut arrivals = Rng::new(seed, stream::ARRIVALS);
    let mut service = Rng::new(seed, stream::PROMPTS);
    let batches = 20u32;
    let per = (customers / batches).max(1);
    let warmup = customers / 10;
    let mut w = 0.0f64;
    for _ in 0..warmup {
        let s = gamma_cv2(&mut service, mean, cs2);
        let a = gamma_cv2(&mut arrivals, mean / rho, ca2);
        w = (w + s - a).max(0.0);
    }
    let mut means: Vec<f64> = Vec::with_capacity(batches as usize);
    for _ in 0..batches {
        let mut sum = 0.0;
        for _ in 0..per {
            sum += w / mean;
            let s = gamma_cv2(&mut service, mean, cs2);
            let a = gamma_cv2(&mut arrivals, mean / rho, ca2);
            w = (w + s - a).max(0.0);
        }
        means.push(sum / f64::from(per));
    }
    let m = means.iter().sum::<f64>() / f64::from(batches);
    let var = means.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / f64::from(batches - 1);
    SimPoint {
        rho,
        mean_wait: m,
        band: 1.96 * libm::sqrt(var / f64::from(batches)),
        formula: kingman(rho, ca2, cs2),
    }
}

/// One curve of the knee chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Squared CV of service time.
    pub cv2: f64,
    /// Squared CV of inter-arrival times (1 for the Pollaczek–Khinchine curves).
    pub ca2: f64,
    /// ρ at which the wait reaches the tolerable wait.
    pub usable_utilization: f64,
    /// (ρ, wait / service time) for ρ = 0.01 … 0.95.
    pub points: Vec<(f64, f64)>,
}

/// Knee explorable configuration; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Tolerable wait, in service times (default 3).
    pub wait: f64,
    /// The reader's own service CV² (default 2).
    pub cv2: f64,
    /// Inter-arrival CV² for the Kingman curve (default 1, Poisson).
    pub ca2: f64,
    /// Mean service time of the simulation, in seconds (default 2). The curves
    /// are in service times and do not depend on it.
    pub service_mean: f64,
    /// Run the simulation overlay.
    pub simulate: bool,
    /// Customers per simulated point (default 100,000).
    pub customers: u32,
    /// Seed.
    pub seed: u64,
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("wait", "Tolerable wait", "service times", (0.5, 20.0, 0.1), |c| c.wait, |c, x| c.wait = x)
            .doc("Mean time in queue you accept, in multiples of the mean service time."),
        P::real("cv2", "Your service-time CV²", "", (0.0, 16.0, 0.1), |c| c.cv2, |c, x| c.cv2 = x)
            .doc("Squared coefficient of variation of your service times; measure yours."),
        P::real("ca2", "Arrival CV² (Kingman)", "", (0.0, 16.0, 0.1), |c| c.ca2, |c, x| c.ca2 = x)
            .doc("Squared CV of inter-arrival times: 1 is Poisson; bursty or thinned arrivals are higher."),
        P::switch("simulate", "Simulate a single-server queue at five utilisations", |c| c.simulate, |c, x| c.simulate = x)
            .doc("Overlay a seeded single-server queue measured at five utilisations."),
        P::real("mean", "Mean service time (simulation)", "s", (0.1, 30.0, 0.1), |c| c.service_mean, |c, x| c.service_mean = x)
            .doc("Gamma-distributed service times with this mean and your CV²."),
        P::whole("customers", "Customers per point", "", (1000, 5_000_000, 1000), |c| c.customers.into(), |c, x| c.customers = narrow(x))
            .doc("Customers each simulated utilisation runs.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            wait: 3.0,
            cv2: 2.0,
            ca2: 1.0,
            service_mean: 2.0,
            simulate: false,
            customers: 100_000,
            seed: 1,
        }
    }
}

/// Knee explorable outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Pollaczek–Khinchine curves for CV² = 0, 1, 4 and the reader's CV², then
    /// Kingman's curve for (Ca², reader's CV²).
    pub curves: Vec<Curve>,
    /// Simulated points for the reader's CV² and Ca² (empty unless asked for).
    pub simulated: Vec<SimPoint>,
}

/// Utilisations the simulation overlay measures.
pub const SIMULATED_RHOS: [f64; 5] = [0.3, 0.5, 0.7, 0.8, 0.9];

/// The simulation overlay on its own (it does not depend on the tolerable wait,
/// so callers may keep it while only the wait changes).
pub fn simulate_points(config: &Config) -> Vec<SimPoint> {
    SIMULATED_RHOS
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            simulate_with_mean(
                r,
                config.ca2,
                config.cv2,
                config.service_mean,
                config.customers,
                config.seed.wrapping_add(i as u64),
            )
        })
        .collect()
}

/// Compute the knee explorable.
pub fn run(config: &Config) -> Result<Outcome, ParamError> {
    config.validate()?;
    let rhos: Vec<f64> = (1..=95).map(|i| f64::from(i) / 100.0).collect();
    let curve = |ca2: f64, cs2: f64| {
        let k = (ca2 + cs2) / 2.0;
        Curve {
            cv2: cs2,
            ca2,
            usable_utilization: usable_utilization(config.wait, k),
            points: rhos.iter().map(|&r| (r, wait_factor(r, k))).collect(),
        }
    };
    let mut curves: Vec<Curve> = [0.0, 1.0, 4.0, config.cv2]
        .iter()
        .map(|&c| curve(1.0, c))
        .collect();
    curves.push(curve(config.ca2, config.cv2));
    let simulated = if config.simulate {
        simulate_points(config)
    } else {
        Vec::new()
    };
    Ok(Outcome {
        config: config.clone(),
        curves,
        simulated,
    })
}

/// The utilisation knee in the lab registry.
pub struct KneeLab;

impl Lab for KneeLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "knee",
        title: "Utilisation knee",
        section: "§1.2",
        layer: Layer::Foundations,
        summary: "How variable service times lower the utilisation a pool can run at before queues get long.",
        units: "Utilisation 0–1; waits in mean service times.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };

    /// The formulas are instant; the seeded queue draws a service time and
    /// an inter-arrival time per customer at five utilisations: about 100 ns
    /// a draw from a Gamma of CV² above 0, 4 ns otherwise (measured).
    fn work(config: &Config, _: &Input<'_, Nothing>) -> Work {
        if !config.simulate {
            return Work::light("the formulas");
        }
        let draw = |cv2: f64| if cv2 > 0.0 { 100.0 } else { 2.0 };
        Work {
            ns: 5.0 * f64::from(config.customers) * (4.0 + draw(config.cv2) + draw(config.ca2)),
            what: format!(
                "5 utilisations × {} simulated customers",
                thousands(config.customers.into())
            ),
            drivers: &["customers", "simulate"],
        }
    }

    fn run(config: &Config, _input: &Input<'_, Nothing>) -> Result<Outcome, RunError> {
        Ok(run(config)?)
    }

    fn report(outcome: &Outcome, _detail: bool) -> alloc::string::String {
        report_text(outcome)
    }

    fn csv(outcome: &Outcome) -> alloc::string::String {
        report_csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    /// None: the simulated dots come from Lindley's recursion, which follows
    /// one wait after another and keeps no population that could leak (every
    /// customer is served, none is turned away).
    fn tally(_: &Outcome) -> Vec<Tally> {
        Vec::new()
    }
}

/// Names of the knee's curves, in [`Outcome::curves`] order.
const KNEE_CURVES: [&str; 5] = [
    "deterministic (M/D/1)",
    "exponential (M/M/1)",
    "heavy tail",
    "your CV²",
    "Kingman, your Ca² and CV²",
];

/// Usable utilisation per curve, then the simulated points if any.
fn report_text(o: &Outcome) -> String {
    let mut s = format!(
        "Usable utilisation at a tolerable wait of {} service times:\n",
        o.config.wait
    );
    for (c, n) in o.curves.iter().zip(KNEE_CURVES) {
        s += &format!(
            "  {n:<28} Ca² {:<5} Cs² {:<5} ρ = {:.2}\n",
            c.ca2, c.cv2, c.usable_utilization
        );
    }
    for p in &o.simulated {
        s += &format!(
            "  simulated ρ {:.1}: wait {:.3} ± {:.3} service times (formula {:.3})\n",
            p.rho, p.mean_wait, p.band, p.formula
        );
    }
    s
}

/// One row per curve.
fn report_csv(o: &Outcome) -> String {
    let mut s = String::from("curve,ca2,cv2,usable_utilization\n");
    for (c, n) in o.curves.iter().zip(KNEE_CURVES) {
        s += &format!(
            "{},{},{},{}\n",
            crate::labs::lab::csv_field(n),
            c.ca2,
            c.cv2,
            c.usable_utilization
        );
    }
    s
}
