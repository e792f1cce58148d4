//! Retry amplification across layers (§9.1).
//!
//! Worst case: a stack whose layer i makes up to aᵢ attempts of the layer below
//! sends Π aᵢ calls upstream per user action (3·4·4·3 = 144), shown as the
//! running product layer by layer.
//!
//! Incident simulation: `actions` user actions per step; each upstream call
//! fails with a probability that rises from `base_failure` to `incident_failure`
//! during the incident window. Strategies:
//! - **every layer retries**: each layer retries the one below up to its attempts,
//!   at once (no backoff), so failures multiply through the stack;
//! - **one layer retries**: only the gateway layer retries (up to its attempts);
//! - **one layer, budgeted**: the same layer, but retries in a step may not exceed
//!   `budget` × the successes of the previous step, and each retry waits a
//!   jittered exponential backoff (1, 2, 4 … steps, times a uniform 0.5–1.5).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::labs::lab::{Input, Lab, LabInfo, Layer, Nothing, Panel, RunError, Tally};
use crate::labs::work::{thousands, Work};
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};
use crate::rng::{stream, Rng};

/// Running product of attempts, layer by layer (the last is the worst case).
pub fn running_product(attempts: &[u32]) -> Vec<u64> {
    attempts
        .iter()
        .scan(1u64, |acc, &a| {
            *acc *= u64::from(a);
            Some(*acc)
        })
        .collect()
}

/// Retry simulation configuration; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Attempts per layer, top (client) first (default 3,4,4,3).
    pub attempts: Vec<u32>,
    /// Retry budget: retries per step at most this share of the previous step's
    /// successes (0–1; default 0.1).
    pub budget: f64,
    /// Steps simulated (default 120).
    pub steps: u32,
    /// The incident: failure probability `incident_failure` from step `incident_start`
    /// for `incident_length` steps (defaults 40, 40).
    pub incident_start: u32,
    /// Length of the incident, in steps.
    pub incident_length: u32,
    /// Failure probability outside the incident (0–1; default 0.01).
    pub base_failure: f64,
    /// Failure probability during the incident (0–1; default 0.99, a near-outage).
    pub incident_failure: f64,
    /// User actions per step (default 500).
    pub actions: u32,
    /// Seed.
    pub seed: u64,
}

/// Most layers in a stack.
pub const MAX_LAYERS: usize = 8;
/// Most attempts one layer makes.
pub const MAX_ATTEMPTS: u32 = 10;

/// Attempts per layer from text like `3,4,4,3`.
pub fn parse_attempts(text: &str) -> Result<Vec<u32>, String> {
    let why = || {
        format!(
            "1–{MAX_LAYERS} comma-separated whole numbers between 1 and {MAX_ATTEMPTS}, top layer first"
        )
    };
    let a: Vec<u32> = text
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()
        .ok_or_else(why)?;
    if a.is_empty() || a.len() > MAX_LAYERS || a.iter().any(|x| !(1..=MAX_ATTEMPTS).contains(x)) {
        return Err(why());
    }
    Ok(a)
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::text(
            "attempts",
            "Attempts per layer",
            (
                "top layer first, comma-separated: 1–8 layers, 1–10 attempts each",
                &["2,2", "1", "10,10,10,10,10,10,10,10"],
            ),
            |c| {
                let a: Vec<String> = c.attempts.iter().map(|x| format!("{x}")).collect();
                a.join(",")
            },
            |c, t| {
                c.attempts = parse_attempts(t)?;
                Ok(())
            },
        )
        .doc("How many times each layer tries a call before giving up, top layer first."),
        P::real(
            "budget",
            "Retry budget",
            "",
            (0.0, 1.0, 0.01),
            |c| c.budget,
            |c, x| c.budget = x,
        )
        .doc("Retries per step at most this share of the last step's successes.")
        .show(Show::Percent(0)),
        P::real(
            "incident-failure",
            "Failure rate in the incident",
            "",
            (0.0, 1.0, 0.01),
            |c| c.incident_failure,
            |c, x| c.incident_failure = x,
        )
        .doc("Chance each upstream call fails during the incident.")
        .show(Show::Percent(0)),
        P::whole(
            "steps",
            "Steps",
            "",
            (20, 1000, 10),
            |c| c.steps.into(),
            |c, x| c.steps = narrow(x),
        )
        .doc("Steps simulated.")
        .advanced(),
        P::whole(
            "incident-start",
            "Incident starts at",
            "step",
            (0, 1000, 1),
            |c| c.incident_start.into(),
            |c, x| c.incident_start = narrow(x),
        )
        .doc("First step of the incident.")
        .advanced(),
        P::whole(
            "incident-length",
            "Incident length",
            "steps",
            (0, 1000, 1),
            |c| c.incident_length.into(),
            |c, x| c.incident_length = narrow(x),
        )
        .doc("Steps the incident lasts.")
        .advanced(),
        P::real(
            "base-failure",
            "Failure rate otherwise",
            "",
            (0.0, 1.0, 0.01),
            |c| c.base_failure,
            |c, x| c.base_failure = x,
        )
        .doc("Chance each upstream call fails outside the incident.")
        .show(Show::Percent(0))
        .advanced(),
        P::whole(
            "actions",
            "User actions per step",
            "",
            (1, 10_000, 1),
            |c| c.actions.into(),
            |c, x| c.actions = narrow(x),
        )
        .doc("User actions started every step.")
        .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    fn cross_check(&self) -> Result<(), ParamError> {
        // An incident that starts after the run: the start is what to fix.
        if self.incident_start >= self.steps && self.incident_length > 0 {
            return Err(ParamError {
                key: "incident-start",
                given: format!("{}", self.incident_start),
                problem: Problem::Against {
                    other: "steps",
                    why: format!(
                        "below steps ({}) so the incident starts within the run",
                        self.steps
                    ),
                },
            });
        }
        if self.incident_start + self.incident_length > self.steps {
            return Err(ParamError {
                key: "incident-length",
                given: format!("{}", self.incident_length),
                problem: Problem::Against {
                    other: "steps",
                    why: format!(
                        "at most {} so the incident ends within the {} steps",
                        self.steps.saturating_sub(self.incident_start),
                        self.steps
                    ),
                },
            });
        }
        Ok(())
    }
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            attempts: vec![3, 4, 4, 3],
            budget: 0.1,
            steps: 120,
            incident_start: 40,
            incident_length: 40,
            base_failure: 0.01,
            incident_failure: 0.99,
            actions: 500,
            seed: 1,
        }
    }
}

/// Upstream calls per user action, per step, for each strategy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Running product of attempts per layer.
    pub running_product: Vec<u64>,
    /// Worst-case upstream calls per user action (the product of all attempts).
    pub upstream_calls: u64,
    /// Every layer retries: calls per action per step.
    pub every_layer: Vec<f64>,
    /// Only the gateway layer retries.
    pub one_layer: Vec<f64>,
    /// The gateway layer retries under the budget, with jittered backoff.
    pub budgeted: Vec<f64>,
    /// How the user actions ended under each policy: every layer, one
    /// layer, budgeted (in that order).
    pub fates: [Fates; 3],
}

/// How the user actions of one policy ended, counted one by one (each action
/// is one chain of attempts, so each lands in exactly one count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fates {
    /// Actions users started (`actions` × `steps`).
    pub started: u64,
    /// Actions that got an answer.
    pub succeeded: u64,
    /// Actions whose last attempt failed.
    pub failed: u64,
    /// Actions whose next retry the budget refused.
    pub shed: u64,
    /// Actions whose next retry fell after the last step.
    pub unfinished: u64,
}

fn failure(cfg: &Config, step: u32) -> f64 {
    if step >= cfg.incident_start && step < cfg.incident_start + cfg.incident_length {
        cfg.incident_failure
    } else {
        cfg.base_failure
    }
}

/// The calls one action makes through a stack of `attempts`, on average,
/// when every upstream call fails with chance `p`: a layer makes
/// Σᵢ Fⁱ attempts (F the chance a call into the layer below fails), and by
/// Wald's identity each costs on average what one call below costs.
fn expected_calls(attempts: &[u32], p: f64) -> f64 {
    let (mut calls, mut fails) = (1.0, p);
    for &a in attempts.iter().rev() {
        let tries: f64 = (0..a.max(1)).map(|i| libm::pow(fails, f64::from(i))).sum();
        calls *= tries;
        fails = libm::pow(fails, f64::from(a.max(1)));
    }
    // Both stack policies simulate their calls; the first counts every layer.
    2.0 * calls
}

/// One call into layer `i` of the stack: returns (succeeded, upstream calls made).
fn call(layer: usize, attempts: &[u32], p: f64, rng: &mut Rng) -> (bool, u64) {
    if layer == attempts.len() {
        return (rng.unit() >= p, 1);
    }
    let mut calls = 0;
    for _ in 0..attempts[layer].max(1) {
        let (ok, c) = call(layer + 1, attempts, p, rng);
        calls += c;
        if ok {
            return (true, calls);
        }
    }
    (false, calls)
}

/// Run the incident simulation.
pub fn run(cfg: &Config) -> Result<Outcome, ParamError> {
    cfg.validate()?;
    let mut rng = Rng::new(cfg.seed, stream::ARRIVALS);
    let n = f64::from(cfg.actions);
    let mut fates = [Fates::default(); 3];
    // Each action through a whole stack: calls per action per step, and
    // whether each action got its answer.
    let mut stack = |attempts: &[u32], fates: &mut Fates| -> Vec<f64> {
        (0..cfg.steps)
            .map(|t| {
                let p = failure(cfg, t);
                let mut calls = 0u64;
                for _ in 0..cfg.actions {
                    let (ok, c) = call(0, attempts, p, &mut rng);
                    calls += c;
                    fates.started += 1;
                    if ok {
                        fates.succeeded += 1;
                    } else {
                        fates.failed += 1;
                    }
                }
                calls as f64 / n
            })
            .collect()
    };
    let every_layer = stack(&cfg.attempts, &mut fates[0]);
    // The gateway is the layer just above the provider SDK: second from the bottom.
    let gateway = cfg.attempts.len().saturating_sub(2);
    let one = [cfg.attempts[gateway]];
    let one_layer = stack(&one, &mut fates[1]);
    let budget = &mut fates[2];
    // Budgeted: first attempts every step; failed ones queue a retry after backoff.
    let steps = cfg.steps as usize;
    let mut calls = vec![0u64; steps];
    let mut pending: Vec<Vec<u32>> = vec![Vec::new(); steps]; // retry number of each queued retry
    let mut prev_successes = cfg.actions as f64;
    for t in 0..steps {
        let p = failure(cfg, t as u32);
        let mut successes = 0u64;
        // Successes are capped at the step's actions so retries of older actions
        // cannot lift the cap: calls per action stay within 1 + budget.
        let allowed = libm::floor(cfg.budget * prev_successes.min(n)) as u64;
        let mut retries_sent = 0u64;
        let mut outcomes: Vec<(bool, u32)> = Vec::new();
        for _ in 0..cfg.actions {
            outcomes.push((rng.unit() >= p, 1));
        }
        budget.started += u64::from(cfg.actions);
        for k in core::mem::take(&mut pending[t]) {
            if retries_sent < allowed {
                retries_sent += 1;
                outcomes.push((rng.unit() >= p, k + 1));
            } else {
                budget.shed += 1;
            }
        }
        calls[t] = outcomes.len() as u64;
        for (ok, attempt) in outcomes {
            if ok {
                successes += 1;
            } else if attempt < one[0] {
                let backoff = f64::from(1u32 << (attempt - 1).min(10)) * rng.uniform(0.5, 1.5);
                let at = t + (libm::round(backoff) as usize).max(1);
                if at < steps {
                    pending[at].push(attempt);
                } else {
                    budget.unfinished += 1;
                }
            } else {
                budget.failed += 1;
            }
        }
        budget.succeeded += successes;
        prev_successes = successes as f64;
    }
    let budgeted = calls.iter().map(|&c| c as f64 / n).collect();
    let rp = running_product(&cfg.attempts);
    Ok(Outcome {
        config: cfg.clone(),
        upstream_calls: rp.last().copied().unwrap_or(1),
        running_product: rp,
        every_layer,
        one_layer,
        budgeted,
        fates,
    })
}

/// Retry amplification in the lab registry.
pub struct RetriesLab;

impl Lab for RetriesLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "retries",
        title: "Retry amplification",
        section: "§9.1",
        layer: Layer::Client,
        summary: "Attempts multiply down the stack; an outage shows where retries belong and what a budget does.",
        units: "A step is one time unit of the simulated incident; calls counted per user action.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };

    /// Every call of the two stack policies is simulated, so the work is the
    /// calls an action makes, summed over the steps (about 30 ns a call,
    /// measured), plus the budgeted policy's queue.
    fn work(config: &Config, _: &Input<'_, Nothing>) -> Work {
        let calls: f64 = (0..config.steps)
            .map(|t| expected_calls(&config.attempts, failure(config, t)))
            .sum();
        let actions = f64::from(config.actions);
        Work {
            ns: 30.0 * actions * calls + 100.0 * actions * f64::from(config.steps),
            what: format!(
                "{} actions a step, each making up to {} upstream calls in the incident",
                thousands(config.actions.into()),
                thousands(
                    running_product(&config.attempts)
                        .last()
                        .copied()
                        .unwrap_or(1)
                )
            ),
            drivers: &["actions", "incident-length", "attempts"],
        }
    }

    fn run(config: &Config, _input: &Input<'_, Nothing>) -> Result<Outcome, RunError> {
        Ok(run(config)?)
    }

    fn report(outcome: &Outcome, _detail: bool) -> String {
        report_text(outcome)
    }

    fn csv(outcome: &Outcome) -> String {
        report_csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    fn tally(o: &Outcome) -> Vec<Tally> {
        ["every layer", "one layer", "budgeted"]
            .iter()
            .zip(&o.fates)
            .map(|(what, f)| Tally {
                what: format!("{what} retries"),
                arrived: f.started,
                finished: f.succeeded,
                rejected: f.failed + f.shed,
                outstanding: f.unfinished,
            })
            .collect()
    }
}

/// Peak calls per action during the incident under one policy's series.
fn incident_peak(c: &Config, series: &[f64]) -> f64 {
    let start = (c.incident_start as usize).min(series.len());
    let end = ((c.incident_start + c.incident_length) as usize).min(series.len());
    series[start..end].iter().copied().fold(0.0, f64::max)
}

/// The running product and each policy's peak during the incident.
fn report_text(o: &Outcome) -> String {
    let c = &o.config;
    let products: Vec<String> = o.running_product.iter().map(|x| format!("×{x}")).collect();
    format!(
        "Attempts {:?}: running product {} → up to {} upstream calls per user action\n\
         Peak calls per action during the incident: every layer {:.1}, one layer {:.2}, one layer with a {:.0}% budget {:.3}\n",
        c.attempts,
        products.join(" "),
        o.upstream_calls,
        incident_peak(c, &o.every_layer),
        incident_peak(c, &o.one_layer),
        c.budget * 100.0,
        incident_peak(c, &o.budgeted))
}

/// Calls per action per step under each policy.
fn report_csv(o: &Outcome) -> String {
    let mut s = String::from("step,every_layer,one_layer,budgeted\n");
    for (t, ((a, b), c)) in o
        .every_layer
        .iter()
        .zip(&o.one_layer)
        .zip(&o.budgeted)
        .enumerate()
    {
        s += &format!("{t},{},{},{}\n", *a, *b, *c);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::Config;
    use crate::params::{from_pairs, Problem};

    /// A link whose steps end before the default incident starts: one
    /// error, naming the pair, and the link's other values kept.
    #[test]
    fn a_conflict_names_the_pair_and_keeps_the_rest() {
        let (c, errors) = from_pairs::<Config>([("steps", "30"), ("budget", "0.2")]);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].key, "steps");
        assert!(
            matches!(&errors[0].problem, Problem::Invalid(why) if why.contains("incident-start"))
        );
        assert_eq!(c.budget, 0.2);
        assert_eq!(c.steps, Config::default().steps);
        // Both given and still in conflict after the first is reset: the
        // partner goes too, and nothing else.
        let (c, errors) =
            from_pairs::<Config>([("steps", "30"), ("incident-start", "50"), ("budget", "0.3")]);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(c.budget, 0.3);
    }
}
