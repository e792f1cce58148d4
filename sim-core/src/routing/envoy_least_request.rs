//! Envoy's weighted least-request load balancer with slow start, pinned to
//! `envoyproxy/envoy` v1.35.0
//! (`source/extensions/load_balancing_policies/least_request/least_request_lb.{h,cc}`,
//! `source/common/upstream/edf_scheduler.h`, and the slow-start documentation;
//! article §4.3 and §11.3).
//!
//! - Each replica's weight is its configured capacity (its speed here), scaled
//!   during **slow start**: a replica that joined `t` ticks ago, within the
//!   window, weighs `weight × max(min_weight_percent, time_factor^(1/aggression))`
//!   with `time_factor = max(t, 1) / window`.
//! - When all weights are equal, Envoy picks `choice_count` (2) replicas at
//!   random, with replacement, and keeps the one with fewer active requests (the
//!   first drawn on a tie).
//! - When weights differ it runs an **earliest-deadline-first** schedule: each
//!   replica sits at deadline `now + 1 / w`, the earliest is picked, and it is
//!   put back at `its deadline + 1 / w` with its weight computed at that moment
//!   as `weight / (active + 1)^bias`. With bias 0 this is weighted round robin;
//!   the larger the bias, the more active requests push a replica back. Unlike
//!   P2C a busy replica never drains completely.
//!
//! Slow start windows and times are in ticks. Defaults are Envoy's: bias 1,
//! aggression 1, minimum weight 10%; slow start is off (window 0) unless set.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{Chooser, Origin, Decision, Reason, ReplicaState, RouteContext, Router, Rule, HasRules, Rows};
use crate::params::{Param, Show};
use crate::time::Tick;

/// Settings of [`EnvoyLeastRequest`] (Envoy's names).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvoySettings {
    /// `active_request_bias`.
    pub active_request_bias: f64,
    /// `slow_start_window`, in ticks (0: no slow start).
    pub slow_start_window: u64,
    /// `aggression` of the slow-start ramp.
    pub aggression: f64,
    /// `min_weight_percent`, as a share (0–1).
    pub min_weight_percent: f64,
}

impl Default for EnvoySettings {
    fn default() -> Self {
        EnvoySettings {
            active_request_bias: 1.0,
            slow_start_window: 0,
            aggression: 1.0,
            min_weight_percent: 0.1,
        }
    }
}

/// `weight / (active + 1)^bias`: the dynamic weight Envoy schedules by when
/// weights differ (bias 0 leaves the weight as it is).
pub fn effective_weight(weight: f64, active: u32, bias: f64) -> f64 {
    if bias == 0.0 {
        weight
    } else {
        weight / libm::pow(f64::from(active) + 1.0, bias)
    }
}

/// The slow-start factor of a replica that joined `age` ticks ago:
/// `max(min_weight_percent, time_factor^(1/aggression))` inside the window, 1 after.
pub fn slow_start_factor(s: &EnvoySettings, age: u64) -> f64 {
    if s.slow_start_window == 0 || age >= s.slow_start_window {
        return 1.0;
    }
    let time_factor = age.max(1) as f64 / s.slow_start_window as f64;
    libm::pow(time_factor, 1.0 / s.aggression).max(s.min_weight_percent)
}

/// Envoy's weighted least-request balancer.
#[derive(Clone, Debug, Default)]
pub struct EnvoyLeastRequest {
    settings: EnvoySettings,
    /// EDF deadline per replica (filled as replicas appear).
    deadlines: Vec<f64>,
    /// The schedule's current time: the deadline of the last pick.
    current: f64,
}

impl EnvoyLeastRequest {
    /// A balancer with `settings`.
    pub fn new(settings: EnvoySettings) -> EnvoyLeastRequest {
        EnvoyLeastRequest {
            settings,
            ..EnvoyLeastRequest::default()
        }
    }

    /// Capacity weight scaled by slow start. Replicas there from tick 0 are
    /// the initial host set, which Envoy never slow-starts (it enters hosts
    /// into slow start from its membership-update callback only).
    fn base_weight<S: ReplicaState>(&self, r: &S, now: Tick) -> f64 {
        if r.joined_at() == Tick::ZERO {
            return r.weight();
        }
        r.weight() * slow_start_factor(&self.settings, now.since(r.joined_at()))
    }

    /// Give every replica not yet scheduled its first deadline.
    fn schedule_new<S: ReplicaState>(&mut self, replicas: &[S], now: Tick) {
        while self.deadlines.len() < replicas.len() {
            let r = &replicas[self.deadlines.len()];
            let w = effective_weight(
                self.base_weight(r, now),
                r.outstanding(),
                self.settings.active_request_bias,
            );
            self.deadlines.push(self.current + 1.0 / w.max(1e-9));
        }
    }

    /// Take replica `i` as picked: move time to its deadline, reinsert it.
    fn advance<S: ReplicaState>(&mut self, replicas: &[S], i: usize, now: Tick) -> f64 {
        let w = effective_weight(
            self.base_weight(&replicas[i], now),
            replicas[i].outstanding(),
            self.settings.active_request_bias,
        );
        self.current = self.deadlines[i];
        self.deadlines[i] = self.current + 1.0 / w.max(1e-9);
        w
    }
}

impl Router for EnvoyLeastRequest {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        let n = ctx.replicas.len();
        if n == 0 {
            return None;
        }
        self.schedule_new(ctx.replicas, ctx.now);
        let weights: Vec<f64> = ctx
            .replicas
            .iter()
            .map(|r| self.base_weight(r, ctx.now))
            .collect();
        let equal = weights.iter().all(|w| (w - weights[0]).abs() < 1e-12);
        if equal {
            // Two random picks with replacement; fewer active requests wins,
            // the first drawn on a tie.
            let a = choose.index(n);
            let b = choose.index(n);
            let (la, lb) = (ctx.replicas[a].outstanding(), ctx.replicas[b].outstanding());
            let (pick, other, load, other_load) = if lb < la {
                (b, a, lb, la)
            } else {
                (a, b, la, lb)
            };
            return Some(Decision {
                replica: pick as u32,
                reason: Reason::TwoChoices {
                    other: other as u32,
                    load,
                    other_load,
                },
            });
        }
        // Earliest deadline; the lowest index on a tie.
        let pick = (0..n).min_by(|&i, &j| {
            self.deadlines[i]
                .total_cmp(&self.deadlines[j])
                .then(i.cmp(&j))
        })?;
        let active = ctx.replicas[pick].outstanding();
        let w = self.advance(ctx.replicas, pick, ctx.now);
        Some(Decision {
            replica: pick as u32,
            reason: Reason::EarliestDeadline {
                weight_permille: libm::round(w * 1000.0) as u32,
                active,
            },
        })
    }

    fn observe<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>, chosen: u32) {
        self.schedule_new(ctx.replicas, ctx.now);
        if (chosen as usize) < ctx.replicas.len() {
            self.advance(ctx.replicas, chosen as usize, ctx.now);
        }
    }
}

/// Shorthand for the parameter rows below.
impl Rule for EnvoyLeastRequest {
    const NAME: &'static str = "envoy-least-request";
    const TITLE: &'static str = "Envoy weighted least request";
    const SIGNAL: &'static str = "Envoy's balancer: two random choices on equal weights; on unequal weights (speeds, slow start) a deadline schedule by weight ÷ (active + 1)^bias.";
    const ORIGIN: Origin = Origin::Upstream {
        project: "Envoy",
        version: "v1.35.0",
        file: "source/extensions/load_balancing_policies/least_request/least_request_lb.cc",
    };
    type Settings = EnvoySettings;
    fn build(settings: &EnvoySettings) -> Self {
        EnvoyLeastRequest::new(*settings)
    }
}

impl<C: HasRules> Rows<C> for EnvoyLeastRequest {
    const ROWS: &'static [Param<C>] = &[
        Param::<C>::real(
            "envoy-bias",
            "Envoy: active-request bias",
            "",
            (0.0, 5.0, 0.1),
            |c| c.rules().envoy_least_request.active_request_bias,
            |c, x| c.rules_mut().envoy_least_request.active_request_bias = x,
        )
        .doc("How much active requests lower a replica's weight when weights differ; 0 is weighted round robin.")
        .advanced(),
        Param::<C>::whole(
            "envoy-slow-start",
            "Envoy: slow-start window",
            "ticks",
            (0, 1_000_000, 1),
            |c| c.rules().envoy_least_request.slow_start_window,
            |c, x| c.rules_mut().envoy_least_request.slow_start_window = x,
        )
        .doc("A replica that joined within this many ticks gets a reduced weight; 0 turns slow start off.")
        .advanced(),
        Param::<C>::real(
            "envoy-aggression",
            "Envoy: slow-start aggression",
            "",
            (0.1, 10.0, 0.1),
            |c| c.rules().envoy_least_request.aggression,
            |c, x| c.rules_mut().envoy_least_request.aggression = x,
        )
        .doc("Shape of the ramp: above 1 ramps up faster at first.")
        .advanced(),
        Param::<C>::real(
            "envoy-min-weight",
            "Envoy: slow-start minimum weight",
            "",
            (0.0, 1.0, 0.01),
            |c| c.rules().envoy_least_request.min_weight_percent,
            |c, x| c.rules_mut().envoy_least_request.min_weight_percent = x,
        )
        .doc("The least share of its weight a new replica gets during slow start.")
        .show(Show::Percent(0))
        .advanced(),
    ];
}
