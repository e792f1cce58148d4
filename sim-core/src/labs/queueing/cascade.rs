//! Model cascades (§10.2): escalating only the slowest share `q` of an
//! exponential service-time distribution (mean 1) to a large model.
//!
//! The escalated requests are those with S > t where P(S > t) = q, so t = ln(1/q).
//! By memorylessness S | S > t = t + Exp(1): mean 1 + ln(1/q), variance 1, hence
//! C² = 1 / (1 + ln(1/q))² and a mean ratio of 1 + ln(1/q). At q = 10%:
//! C² = 1/(1 + ln 10)² ≈ 0.09 and the mean rises ×(1 + ln 10) ≈ ×3.3. The
//! escalations are a state-dependent thinning of the arrivals, so they are no
//! longer Poisson: it is Ca², not Cs², that grows.

use serde::{Deserialize, Serialize};

use crate::labs::lab::{Input, Lab, LabInfo, Layer, Nothing, Panel, RunError, Tally};
use crate::labs::work::{thousands, Work};
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};
use crate::rng::{stream, Rng};
use alloc::format;
use alloc::string::String;

/// Draws of the seeded check by default.
pub const SAMPLES: u32 = 200_000;

/// Cascade explorable configuration; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Share of requests escalated: the slowest ones (default 0.1).
    pub escalate: f64,
    /// Draws of the seeded check (default 200,000).
    pub samples: u32,
    /// Seed of the check.
    pub seed: u64,
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            escalate: 0.1,
            samples: SAMPLES,
            seed: 1,
        }
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real(
            "escalate",
            "Escalated",
            "",
            (0.01, 1.0, 0.01),
            |c| c.escalate,
            |c, x| c.escalate = x,
        )
        .doc("Share of requests, the slowest ones, sent on to the large model.")
        .show(Show::Percent(0)),
        P::whole(
            "samples",
            "Draws of the check",
            "",
            (10_000, 2_000_000, 10_000),
            |c| c.samples.into(),
            |c, x| c.samples = narrow(x),
        )
        .doc("Service times drawn for the sampled check.")
        .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}

/// Compute the cascade for a validated configuration.
pub fn run(config: &Config) -> Result<Cascade, ParamError> {
    config.validate()?;
    cascade(config.escalate, config.samples, config.seed)
}

/// What the large pool sees when the top `q` of Exp(1) service times escalate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cascade {
    /// Share escalated (0–1).
    pub escalate: f64,
    /// Squared CV of escalated service times.
    pub cv2: f64,
    /// Mean escalated service time over the overall mean.
    pub mean_ratio: f64,
    /// The same two figures measured on a seeded sample: (cv2, mean ratio).
    pub sampled: (f64, f64),
    /// Requests in the seeded sample.
    pub samples: u64,
    /// Of those, how many the small model answered itself.
    pub kept: u64,
    /// And how many it passed on to the large one.
    pub escalated: u64,
}

/// Exact figures for escalating share `q` (0 < q ≤ 1), plus a seeded check on
/// `samples` draws.
pub fn cascade(q: f64, samples: u32, seed: u64) -> Result<Cascade, ParamError> {
    if !(q > 0.0 && q <= 1.0) {
        return Err(ParamError {
            key: "escalate",
            given: alloc::format!("{}", q),
            problem: Problem::Invalid(alloc::string::String::from("a share above 0 and at most 1")),
        });
    }
    let t = libm::log(1.0 / q);
    let mean = 1.0 + t;
    let mut rng = Rng::new(seed, stream::PROMPTS);
    let (mut n, mut kept, mut sum, mut sum2) = (0u64, 0u64, 0.0f64, 0.0f64);
    for _ in 0..samples {
        let s = rng.exponential(1.0);
        if s > t {
            n += 1;
            sum += s;
            sum2 += s * s;
        } else {
            kept += 1;
        }
    }
    let sampled = if n > 1 {
        let m = sum / n as f64;
        let var = sum2 / n as f64 - m * m;
        (var / (m * m), m)
    } else {
        (0.0, 0.0)
    };
    Ok(Cascade {
        escalate: q,
        cv2: 1.0 / (mean * mean),
        mean_ratio: mean,
        sampled,
        samples: u64::from(samples),
        kept,
        escalated: n,
    })
}

/// Model cascades in the lab registry.
pub struct CascadeLab;

impl Lab for CascadeLab {
    type Config = Config;
    type Outcome = Cascade;
    type Item = Nothing;
    const INFO: LabInfo = LabInfo {
        id: "cascade",
        title: "Model cascades",
        section: "§10.2",
        layer: Layer::Gateway,
        summary: "Escalate the long requests to a large model: less variable, much longer, and no longer Poisson.",
        units: "Service times are exponential with mean 1; the large pool's figures are relative to that.",
        player: None,
        embed_view: &[Panel::Chart, Panel::Controls, Panel::Cards],
    };

    /// One sorted sample of service times: about 150 ns a draw.
    fn work(config: &Config, _: &Input<'_, Nothing>) -> Work {
        Work {
            ns: 150.0 * f64::from(config.samples),
            what: format!("{} sampled service times", thousands(config.samples.into())),
            drivers: &["samples"],
        }
    }

    fn run(config: &Config, _input: &Input<'_, Nothing>) -> Result<Cascade, RunError> {
        Ok(run(config)?)
    }

    fn report(outcome: &Cascade, _detail: bool) -> alloc::string::String {
        report_text(outcome)
    }

    fn csv(outcome: &Cascade) -> alloc::string::String {
        report_csv(outcome)
    }

    fn config_mut(_: &mut Self::Outcome) -> Option<&mut Self::Config> {
        None
    }

    fn tally(o: &Cascade) -> alloc::vec::Vec<Tally> {
        alloc::vec![Tally {
            what: alloc::string::String::from("sampled requests"),
            arrived: o.samples,
            finished: o.kept + o.escalated,
            rejected: 0,
            outstanding: 0,
        }]
    }
}

/// The escalated pool's variability and mean, exact and sampled.
fn report_text(o: &Cascade) -> String {
    format!(
        "Escalating the slowest {:.1}% of an exponential workload: C² {:.3} (from 1), mean ×{:.2}; sampled C² {:.3}, mean ×{:.2}\n\
         The escalated stream is a state-dependent thinning of the arrivals: no longer Poisson.\n",
        o.escalate * 100.0,
        o.cv2,
        o.mean_ratio,
        o.sampled.0,
        o.sampled.1)
}

/// Exact and sampled figures as one row.
fn report_csv(o: &Cascade) -> String {
    format!(
        "escalate,cv2,mean_ratio,sampled_cv2,sampled_mean_ratio\n{},{},{},{},{}\n",
        o.escalate, o.cv2, o.mean_ratio, o.sampled.0, o.sampled.1
    )
}
