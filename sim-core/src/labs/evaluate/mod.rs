//! How to evaluate a routing change (§15 of the reference article, with the
//! semantic cache of §10.1): the same pool and conversations put through
//! the experiments an operator would run, each compared with the truth.
//!
//! - **The truth**: each rule alone on the whole pool, after a warm-up.
//! - **Designs** (the lab's items): a per-request canary and a per-session
//!   canary on one shared pool, the pool split in two halves (each arm
//!   whole on its own replicas), and shadow traffic (copies of a share of
//!   the conversations sent to a shadow pool, their answers discarded).
//!   For each: the arms' tails and cache hit shares, the effect it measures
//!   against the true one, and how many requests it needs to see the sign.
//! - **Warm-up**: the gap between the rules measured from a cold start,
//!   after the warm-up, and over-warmed (a cache that never evicts).
//! - **Open and closed loop**: the current rule's goodput as the load
//!   rises, offered on schedule or by clients that wait for their answers,
//!   and in one run whose rate ramps up linearly across the same loads.
//! - **A semantic cache in front**, down for a window, with and without a
//!   rate limit after the lookup.
//!
//! Conversations come from [`plan`]; each run is [`pool::run`] with its
//! own setup. `tests/evaluate_claims.rs` holds the section's claims over
//! seeds.

mod config;
mod measure;
mod plan;
mod pool;
mod replay;
mod report;

pub use config::{Config, TRACE_SETTINGS};
pub use measure::Arm;
pub use replay::Replay;
pub use report::verdict;

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::lab::{Focus, Input, Lab, LabInfo, Layer, Panel, RunError, Tally};
use super::work::Work;
use crate::choice::Choice;
use crate::params::Configurable;
use pool::{Assign, Loop, Semantic, Setup};

crate::choices! {
    /// How the new rule is tried.
    pub enum Design {
        /// Each request to the new rule with the canary share, one pool.
        Request = ("request", "Per-request canary", "Each request goes to the new rule with the canary share, on the pool both rules share."),
        /// Each conversation to the new rule with the canary share, one pool.
        Session = ("session", "Per-session canary", "Whole conversations go to the new rule with the canary share, on the pool both rules share."),
        /// Half the conversations on half the replicas each.
        Split = ("split", "Split pools", "The pool is cut in two: each rule runs half the replicas and half the conversations, whole."),
        /// Copies to a shadow pool, answers discarded.
        Shadow = ("shadow", "Shadow traffic", "Every request is served by the current rule; the conversations of the canary share are also copied to a shadow pool on the new rule, whose answers are thrown away."),
    }
}

/// One design's experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignRun {
    /// The design.
    pub design: Design,
    /// The arm on the current rule.
    pub control: Arm,
    /// The arm on the new rule.
    pub canary: Arm,
    /// Mean TTFT of the canary minus the control's, in ticks.
    pub measured: f64,
    /// How far `measured` is from the true effect, in ticks.
    pub error: f64,
    /// Consecutive turns of one conversation both measured.
    pub pairs: u32,
    /// Of them, those with both turns on the new rule.
    pub both: u32,
    /// Of those, the ones whose second turn found the conversation's
    /// history cached: the locality the new rule made for itself.
    pub kept: u32,
    /// Requests the experiment needs in all to see the measured effect's
    /// sign at 95% confidence and 80% power; `None` when it measures the
    /// wrong sign (no number of requests helps).
    pub needed: Option<u64>,
    /// What it measured in plain words ([`verdict`]), written by the run
    /// so the page shows it without the code that words it.
    pub verdict: String,
}

/// The warm-up modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Warmth {
    /// Measured from an empty cache, over as many ticks as the warm-up.
    Cold,
    /// Measured after the warm-up.
    Warm,
    /// After the warm-up, with a cache that never evicts.
    Over,
}

/// Both rules on the whole pool under one warm-up mode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WarmRow {
    /// The mode.
    pub warmth: Warmth,
    /// The current rule alone.
    pub current: Arm,
    /// The new rule alone.
    pub candidate: Arm,
    /// How much lower the new rule's mean TTFT is, in ticks.
    pub gap: f64,
}

/// One point of a load curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Requests per tick that arrived.
    pub offered: f64,
    /// Requests per tick whose first token met the objective.
    pub goodput: f64,
    /// Share of requests that met it.
    pub within: f64,
    /// TTFT P95, in ticks.
    pub p95: f64,
}

/// The current rule at one load, open and closed loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadPoint {
    /// The load, as a multiple of the lab's conversation rate.
    pub scale: f64,
    /// Clients of the closed loop (chosen by Little's law to offer the
    /// open loop's rate when nothing waits).
    pub clients: u32,
    /// Open loop.
    pub open: Point,
    /// Closed loop.
    pub closed: Point,
}

/// One window of the linear ramp.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RampPoint {
    /// The load at the window's middle, as a multiple of the lab's rate.
    pub scale: f64,
    /// Requests per tick that arrived in the window.
    pub offered: f64,
    /// Of them, per tick, those whose first token met the objective.
    pub goodput: f64,
}

/// The semantic cache's outage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outage {
    /// Share of requests the cache answers at this threshold.
    pub hit: f64,
    /// Share of its answers that are wrong.
    pub wrong: f64,
    /// Ticks per window of the series.
    pub width: u64,
    /// Goodput per window without a rate limit.
    pub unlimited: Vec<f64>,
    /// Goodput per window with the limit after the lookup.
    pub limited: Vec<f64>,
    /// The pool alone, rate-limited, without the cache: its mean goodput.
    pub baseline: f64,
    /// Ticks below 90% of the baseline, without the limit.
    pub below_unlimited: u64,
    /// Ticks below 90% of the baseline, with it.
    pub below_limited: u64,
    /// Requests the limit refused.
    pub refused: u32,
    /// TTFT P95 (ticks) of the requests that reached the pool while the
    /// cache was down, without the limit (those still waiting when the
    /// run stopped count as waiting until then).
    pub p95_unlimited: f64,
    /// The same with the limit (refused requests never reach the pool).
    pub p95_limited: f64,
}

/// The experiments on one pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// A replayed trace: what was read and what it holds (None: the lab's
    /// own conversations).
    pub replay: Option<replay::Replay>,
    /// The current rule alone on the whole pool, warmed.
    pub current: Arm,
    /// The new rule alone on the whole pool, warmed.
    pub candidate: Arm,
    /// The true effect: the new rule's mean TTFT minus the current's.
    pub truth: f64,
    /// A per-request canary's odds of holding both of two consecutive
    /// turns, counted over the splitter's hash buckets: the bucket pairs
    /// with both in the canary, and all bucket pairs (exactly the share
    /// squared: 25 of 10,000 at 5%).
    pub pair_odds: (u64, u64),
    /// One run per design, in the order asked.
    pub designs: Vec<DesignRun>,
    /// Cold, warm and over-warmed.
    pub warmth: Vec<WarmRow>,
    /// The load curves.
    pub loads: Vec<LoadPoint>,
    /// One open-loop run whose rate rises linearly across the curves'
    /// loads, window by window.
    pub ramp: Vec<RampPoint>,
    /// The semantic cache's outage (None without a cache or an outage).
    pub outage: Option<Outage>,
}

impl Outcome {
    /// The run of `design`, if it ran.
    pub fn design(&self, design: Design) -> Option<&DesignRun> {
        self.designs.iter().find(|d| d.design == design)
    }
}

/// The semantic cache's hit share at `threshold`: what a perfect match
/// would absorb, less what a strict threshold turns away (an illustrative
/// curve, `docs/model.md`: 81% of it at 0.05, all of it by 0.2).
pub fn hit_share(hits: f64, threshold: f64) -> f64 {
    hits * (1.0 - libm::exp(-threshold / 0.03))
}

/// The share of the semantic cache's answers that are wrong at `threshold`
/// (illustrative: 6% at 0.05, half at 0.2).
pub fn wrong_share(threshold: f64) -> f64 {
    threshold * threshold / (threshold * threshold + 0.04)
}

/// Conversations to draw: enough for the open loop at the highest load and
/// for every closed-loop client.
fn conversations(c: &Config) -> usize {
    let end = f64::from(c.warm + c.measure);
    let open = c.rate * c.peak.max(1.0) / (1.0 - hit_share(c.hits, c.threshold)).max(0.05) * end;
    (open * 1.2 + 200.0) as usize
}

/// Run `items` (every design when empty) on `config`.
pub fn run(config: &Config, items: &[Design]) -> Result<Outcome, crate::params::ParamError> {
    config.validate()?;
    let plan = plan::Plan::new(config, conversations(config));
    Ok(experiments(config, &plan, items, None))
}

/// Every experiment of `items` (all designs when empty) on `plan`'s
/// conversations; `replay` says where they came from when a trace.
fn experiments(
    c: &Config,
    plan: &plan::Plan,
    items: &[Design],
    replay: Option<replay::Replay>,
) -> Outcome {
    let end = u64::from(c.warm + c.measure);
    let stop = end + end / 2 + 2000;
    let base = Setup {
        arrivals: Loop::Open(1.0),
        assign: Assign::Whole,
        share: c.canary,
        rules: [c.current, c.candidate],
        cache: c.cache,
        semantic: None,
        from: u64::from(c.warm),
        end,
    };
    let whole = |rule, s: Setup| {
        let r = pool::run(
            c,
            plan,
            Setup {
                rules: [rule, rule],
                ..s
            },
        );
        measure::arm(&r, 0, c.slo, stop)
    };
    let current = whole(c.current, base);
    let candidate = whole(c.candidate, base);
    let truth = candidate.mean - current.mean;
    let items: Vec<Design> = if items.is_empty() {
        Design::ALL.to_vec()
    } else {
        items.to_vec()
    };
    let designs = items
        .iter()
        .map(|&d| {
            let mut run = design(c, plan, base, d, truth, stop);
            run.verdict = verdict(&run, truth, candidate.history_share);
            run
        })
        .collect();
    let mut warmth = Vec::new();
    for w in [Warmth::Cold, Warmth::Warm, Warmth::Over] {
        let (cur, cand) = match w {
            Warmth::Warm => (current.clone(), candidate.clone()),
            Warmth::Cold => {
                // A short benchmark from an empty cache: the warm-up's
                // ticks, measured.
                let s = Setup {
                    from: 0,
                    end: u64::from(c.warm.max(500)),
                    ..base
                };
                (whole(c.current, s), whole(c.candidate, s))
            }
            Warmth::Over => {
                let s = Setup {
                    cache: u32::MAX / 2,
                    ..base
                };
                (whole(c.current, s), whole(c.candidate, s))
            }
        };
        warmth.push(WarmRow {
            warmth: w,
            gap: cur.mean - cand.mean,
            current: cur,
            candidate: cand,
        });
    }
    Outcome {
        config: c.clone(),
        replay,
        truth,
        pair_odds: {
            let (k, n) = (
                u64::from(pool::canary_buckets(c.canary)),
                u64::from(pool::BUCKETS),
            );
            (k * k, n * n)
        },
        designs,
        warmth,
        loads: loads(c, plan, base, stop),
        ramp: ramp(c, plan, base),
        outage: outage(c, plan, base),
        current,
        candidate,
    }
}

/// One design's experiment, judged against `truth`.
fn design(
    c: &Config,
    plan: &plan::Plan,
    base: Setup,
    d: Design,
    truth: f64,
    stop: u64,
) -> DesignRun {
    let assign = match d {
        Design::Request => Assign::PerRequest,
        Design::Session => Assign::PerSession,
        Design::Split => Assign::Split,
        Design::Shadow => Assign::Shadow,
    };
    let run = pool::run(c, plan, Setup { assign, ..base });
    let control = measure::arm(&run, 0, c.slo, stop);
    let canary = measure::arm(&run, 1, c.slo, stop);
    let (pairs, both, kept) = measure::pairs(&run);
    let measured = canary.mean - control.mean;
    // Two-sample z-test on the means (two-sided 5%, power 80%): requests
    // per arm n = 2 (1.96 + 0.84)² σ² / δ², then in all by the arm's share.
    let share = match d {
        Design::Request | Design::Session => c.canary,
        Design::Split => 0.5,
        Design::Shadow => 1.0,
    };
    let sd2 = (control.sd * control.sd + canary.sd * canary.sd) / 2.0;
    let needed = (measured != 0.0 && (measured > 0.0) == (truth > 0.0)).then(|| {
        let per_arm = 2.0 * 2.8 * 2.8 * sd2 / (measured * measured);
        libm::ceil(per_arm / share) as u64
    });
    DesignRun {
        design: d,
        control,
        canary,
        measured,
        error: libm::fabs(measured - truth),
        pairs,
        both,
        kept,
        needed,
        verdict: String::new(),
    }
}

/// The current rule's goodput as the load rises, open and closed loop.
fn loads(c: &Config, plan: &plan::Plan, base: Setup, stop: u64) -> Vec<LoadPoint> {
    let end = u64::from(c.warm + c.measure / 2);
    let base = Setup {
        rules: [c.current, c.current],
        end,
        ..base
    };
    // A turn's length with nothing waiting: its prefill and its answer.
    let (turn, per_turn, think) = (plan.turn_ticks, plan.per_tick, plan.think);
    let lo = c.peak / 5.0;
    (0..c.points)
        .map(|i| {
            let scale = lo + (c.peak - lo) * f64::from(i) / f64::from(c.points - 1).max(1.0);
            // Little's law: clients = rate × (time in the pool + pause).
            let clients = libm::ceil(per_turn * scale * (turn + think)).max(1.0) as u32;
            let point = |arrivals, end: u64| {
                let run = pool::run(
                    c,
                    plan,
                    Setup {
                        arrivals,
                        end,
                        ..base
                    },
                );
                let a = measure::arm(&run, 0, c.slo, stop);
                let span = end.saturating_sub(base.from).max(1) as f64;
                Point {
                    offered: f64::from(a.requests) / span,
                    goodput: a.within * f64::from(a.requests) / span,
                    within: a.within,
                    p95: a.p95,
                }
            };
            LoadPoint {
                scale,
                clients,
                open: point(Loop::Open(scale), plan.end_at(scale, end)),
                closed: point(Loop::Closed(clients), end),
            }
        })
        .collect()
}

/// The current rule under a linear ramp over the curves' loads, from a
/// fifth of the peak to the peak, read in windows.
fn ramp(c: &Config, plan: &plan::Plan, base: Setup) -> Vec<RampPoint> {
    let arrivals = Loop::Ramp {
        from: c.peak / 5.0,
        to: c.peak,
    };
    let s = Setup {
        arrivals,
        rules: [c.current, c.current],
        from: 0,
        ..base
    };
    let run = pool::run(c, plan, s);
    let width = (s.end / 24).max(1);
    measure::windows(&run, width, c.slo)
        .into_iter()
        .enumerate()
        .map(|(i, (offered, goodput))| RampPoint {
            scale: arrivals.scale_at((i as f64 + 0.5) * width as f64, s.end),
            offered,
            goodput,
        })
        .collect()
}

/// The semantic cache down for a window, with and without the limit.
fn outage(c: &Config, plan: &plan::Plan, base: Setup) -> Option<Outage> {
    if c.hits <= 0.0 || c.outage_for == 0 {
        return None;
    }
    let (hit, wrong) = (hit_share(c.hits, c.threshold), wrong_share(c.threshold));
    // Arrivals scaled so that, with the cache up, the pool sees the lab's rate.
    let scale = 1.0 / (1.0 - hit).max(0.05);
    let limit = c.limit * plan.per_tick;
    let down = (
        u64::from(c.outage_at),
        u64::from(c.outage_at + c.outage_for),
    );
    let sem = Semantic {
        hit,
        wrong,
        down,
        limit: None,
    };
    let s = Setup {
        arrivals: Loop::Open(scale),
        rules: [c.current, c.current],
        from: 0,
        end: plan.end_at(scale, base.end),
        ..base
    };
    let width = 250;
    let series = |semantic| {
        measure::goodput(
            &pool::run(
                c,
                plan,
                Setup {
                    semantic: Some(semantic),
                    ..s
                },
            ),
            width,
            c.slo,
        )
    };
    let unlimited_run = pool::run(
        c,
        plan,
        Setup {
            semantic: Some(sem),
            ..s
        },
    );
    let unlimited = measure::goodput(&unlimited_run, width, c.slo);
    let limited_run = pool::run(
        c,
        plan,
        Setup {
            semantic: Some(Semantic {
                limit: Some(limit),
                ..sem
            }),
            ..s
        },
    );
    let refused = limited_run
        .recs
        .iter()
        .filter(|r| r.fate == pool::Fate::Refused)
        .count() as u32;
    let limited = measure::goodput(&limited_run, width, c.slo);
    let alone = series(Semantic {
        hit: 0.0,
        limit: Some(limit),
        ..sem
    });
    // The baseline over the windows after the warm-up.
    let skip = (u64::from(c.warm) / width) as usize;
    let tail = &alone[skip.min(alone.len())..];
    let baseline = tail.iter().sum::<f64>() / tail.len().max(1) as f64;
    let below = |s: &[f64]| {
        s[skip.min(s.len())..]
            .iter()
            .filter(|&&g| g < 0.9 * baseline)
            .count() as u64
            * width
    };
    // TTFT of the requests that reached the pool while the cache was down.
    let stop = s.end + s.end / 2 + 2000;
    let p95 = |run: &pool::Run| measure::arm_over(run, down.0..down.1, c.slo, stop).p95;
    Some(Outage {
        hit,
        wrong,
        width,
        p95_unlimited: p95(&unlimited_run),
        p95_limited: p95(&limited_run),
        below_unlimited: below(&unlimited),
        below_limited: below(&limited),
        unlimited,
        limited,
        baseline,
        refused,
    })
}

/// Nanoseconds a rule spends per prompt block of a decision on
/// `replicas` replicas: rules that match the prompt against every
/// replica's cache (or a router-side tree of them) pay per replica; the
/// others read a counter; SGLang's router-side tree costs more whatever
/// the pool. Fitted on 60 random release runs (`work` then stays within
/// 1.3 times the measured time on all of them).
fn rule_block_ns(rule: crate::routing::RuleKind, replicas: f64) -> f64 {
    use crate::routing::RuleKind::*;
    match rule {
        SglangCacheAware => 70.0 + 8.0 * replicas,
        PrefixAware | SglangPrefixHash | DynamoKv => 10.0 + 8.0 * replicas,
        _ => 0.0,
    }
}

/// The evaluate lab in the lab registry.
pub struct EvaluateLab;

/// What a run's requests look like to the work estimate.
struct Shape {
    /// Turns per tick offered at the lab's rate.
    per_tick: f64,
    /// Mean prompt blocks per request.
    blocks: f64,
    /// Tokens per block.
    block_tokens: u32,
}

/// The work of every experiment on `designs` designs over requests of
/// `shape`.
fn estimate(c: &Config, designs: usize, shape: &Shape) -> Work {
    let t = f64::from(c.warm + c.measure);
    let designs = designs as f64;
    let mean_load = 0.6 * c.peak;
    let curve =
        f64::from(c.points) * 2.0 * mean_load * (f64::from(c.warm) + f64::from(c.measure) / 2.0)
            / t;
    let outage = 3.0 / (1.0 - hit_share(c.hits, c.threshold)).max(0.05);
    // Runs on each rule, in runs at the lab's rate over the whole window.
    let current = 1.0 + designs + 2.0 + curve + mean_load + outage;
    let candidate = 1.0 + designs + 2.0;
    let requests = shape.per_tick * t;
    let blocks = shape.blocks + 1.0;
    let replicas = f64::from(c.replicas);
    // The engines' caches: past a few hundred thousand blocks in all
    // the lookups miss the processor's caches (as the Routing Lab's
    // estimate finds).
    let resident = f64::from(c.cache) / f64::from(shape.block_tokens) * replicas;
    let per_block = |rule| 14.0 * (1.0 + resident / 200_000.0) + rule_block_ns(rule, replicas);
    let routed =
        requests * blocks * (current * per_block(c.current) + candidate * per_block(c.candidate));
    let ticks = 1.6 * t * (current + candidate);
    let ns = routed + ticks * replicas * (8.0 + f64::from(c.slots));
    Work {
        ns,
        drivers: &[
            "measure",
            "warm",
            "rate",
            "system-tokens",
            "turns",
            "points",
            "replicas",
        ],
        what: alloc::format!(
            "about {} runs of the pool × {} ticks",
            (current + candidate) as u32,
            crate::params::thousands(t as u64)
        ),
    }
}
impl Lab for EvaluateLab {
    type Config = Config;
    type Outcome = Outcome;
    type Item = Design;
    const REPLAYS_TRACES: bool = true;
    const TRACE_SETTINGS: &'static [(&'static str, &'static str)] = config::TRACE_SETTINGS;
    const INFO: LabInfo = LabInfo {
        id: "evaluate",
        title: "Evaluating a routing change",
        section: "§15, §10.1",
        layer: Layer::Gateway,
        summary: "Canary a new rule per request or per session, split the pool or shadow it; warm the cache or not; open or closed loop: which experiment tells the truth.",
        units: "Times in ticks (one engine iteration); rates in requests or conversations per tick.",
        player: None,
        embed_view: &[Panel::Controls, Panel::Cards],
    };
    const FOCUS: Option<Focus<Design>> = Some(Focus {
        key: "design",
        label: "Design in focus",
        default: Design::Request,
    });

    /// Runs of the pool, each weighed by how much traffic it carries: two
    /// for the truth, one per design, four for the warm-up, two per load
    /// point (at the curve's mean load, over its shorter window) and three
    /// for the outage (at the rate the cache's absence adds). A run costs
    /// a tick of every replica for as long as it lasts (overloaded runs
    /// drain for up to half as long again) and, per request, its prompt's
    /// blocks through the engine's cache and through the rule: a rule that
    /// reads every replica's cache ([`rule_block_ns`]) pays per replica.
    fn work(config: &Config, input: &Input<'_, Design>) -> Work {
        let c = config;
        let own = c.turns / 2.0 * f64::from(c.message + c.output);
        let shape = Shape {
            per_tick: c.rate * c.turns,
            blocks: libm::ceil((f64::from(c.system_tokens) + own) / f64::from(plan::BLOCK)),
            block_tokens: plan::BLOCK,
        };
        estimate(c, input.items().len(), &shape)
    }

    fn run(config: &Config, input: &Input<'_, Design>) -> Result<Outcome, RunError> {
        match &input.trace {
            Some(t) => replay::run(config, t, &input.items()),
            None => Ok(run(config, &input.items())?),
        }
    }

    fn report(outcome: &Outcome, detail: bool) -> String {
        report::text(outcome, detail)
    }

    fn csv(outcome: &Outcome) -> String {
        report::csv(outcome)
    }

    fn config_mut(outcome: &mut Self::Outcome) -> Option<&mut Self::Config> {
        Some(&mut outcome.config)
    }

    /// Per design: requests measured in both arms, those answered, and
    /// those without a first token when the run stopped.
    fn tally(o: &Outcome) -> Vec<Tally> {
        o.designs
            .iter()
            .map(|d| {
                let arrived = u64::from(d.control.requests + d.canary.requests);
                let open = u64::from(d.control.unanswered + d.canary.unanswered);
                Tally {
                    what: alloc::format!("design {}", d.design.name()),
                    arrived,
                    finished: arrived - open,
                    rejected: 0,
                    outstanding: open,
                }
            })
            .collect()
    }
}
