//! Gateway and SDK strategies over rented deployments (article §12): which
//! deployment a call goes to, and what the router remembers between calls
//! (breakers, cooldowns, pins, latency windows, per-minute counters).
//!
//! One file per strategy; [`Gate`] holds the state they share and
//! [`Gate::pick`] dispatches on [`Strategy`]. Every pick carries a [`Why`]
//! the page can show. What a strategy may read is what such a router
//! knows: its own counts, the responses it saw, and its configuration, never
//! the provider's load or cache.

pub mod breaker;
pub mod cost;
pub mod latency;
pub mod least_busy;
pub mod priority;
pub mod round_robin;
pub mod shuffle;
pub mod spillover;
pub mod sticky;
pub mod usage;

use alloc::collections::{BTreeMap, VecDeque};
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::litellm;

crate::choices! {
    /// How calls are spread over the deployments.
    pub enum Strategy {
        /// Azure spillover: reserved first, the overflow to metered.
        Spillover = ("spillover", "Spillover", "Reserved capacity first; on 429, a prompt too long or a server error the call goes on to metered (Azure OpenAI spillover)."),
        /// APIM priority groups with breakers.
        PriorityPool = ("priority-pool", "Priority pool", "Reserved backends in group 1, metered in group 2, used only while every group-1 breaker is tripped (Azure API Management)."),
        /// APIM round robin with breakers.
        RoundRobin = ("round-robin", "Round robin pool", "Every backend in turn, skipping those whose breaker has tripped (Azure API Management)."),
        /// APIM round robin with session affinity.
        Sticky = ("sticky", "Session affinity", "A conversation stays on the backend of its first call while that backend is in (APIM's session cookie)."),
        /// LiteLLM's default.
        Shuffle = ("shuffle", "Simple shuffle", "A random pick, equal weights, among deployments not cooling down; a failure picks again among the rest (LiteLLM's default)."),
        /// LiteLLM usage-based-routing-v2.
        Usage = ("usage", "Usage-based", "Fewest tokens used this minute, among deployments under their limits (LiteLLM usage-based-routing-v2)."),
        /// LiteLLM latency-based-routing.
        Latency = ("latency", "Latency-based", "Lowest mean time to first token over the last 10 calls (LiteLLM latency-based-routing)."),
        /// LiteLLM least-busy.
        LeastBusy = ("least-busy", "Least busy", "Fewest calls in flight from this router (LiteLLM least-busy)."),
        /// LiteLLM cost-based-routing.
        Cost = ("cost", "Cost-based", "Lowest configured token price, reserved priced at 0 (LiteLLM cost-based-routing)."),
    }
}

impl Strategy {
    /// Whether the router is LiteLLM's (cooldowns, failover inside the call).
    pub fn litellm(self) -> bool {
        matches!(
            self,
            Strategy::Shuffle
                | Strategy::Usage
                | Strategy::Latency
                | Strategy::LeastBusy
                | Strategy::Cost
        )
    }

    /// Whether the router is an APIM pool (breakers).
    pub fn pool(self) -> bool {
        matches!(
            self,
            Strategy::PriorityPool | Strategy::RoundRobin | Strategy::Sticky
        )
    }
}

/// Why a call went where it went: the kind of reason and the one figure it
/// cites (one plain number rather than a field per kind, so the page's
/// decoder of every recorded call stays small).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Why {
    /// The kind of reason.
    pub kind: WhyKind,
    /// Its figure: the priority group, the weight's share in ‰, the tokens
    /// used, the mean in ms or the calls in flight; for a spill, the
    /// reserved deployment in the high 16 bits and its status in the low.
    pub figure: u32,
}

/// The kinds of [`Why`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WhyKind {
    /// Reserved capacity first (spillover).
    Reserved,
    /// Spillover with no reserved deployment: the first metered one.
    NoReserved,
    /// Spilled from a reserved deployment that answered a status.
    Spill,
    /// The first priority group with a backend in service.
    Group,
    /// Next in the rotation.
    Rotation,
    /// The conversation's pinned backend.
    Pinned,
    /// The pinned backend was out; pinned anew.
    Repinned,
    /// A weighted random draw.
    Weighted,
    /// The fewest tokens used this minute.
    Headroom,
    /// The lowest mean time to first token.
    Fastest,
    /// The fewest calls in flight.
    Fewest,
    /// The lowest price.
    Cheapest,
}

/// Deployment `d` (0-based) by its name in `names`, or "deployment 3"
/// when the slice lacks it.
pub fn name_of(names: &[alloc::string::String], d: u8) -> alloc::string::String {
    names
        .get(usize::from(d))
        .cloned()
        .unwrap_or_else(|| alloc::format!("deployment {}", u32::from(d) + 1))
}

impl Why {
    /// A reason that cites no figure.
    pub fn of(kind: WhyKind) -> Why {
        Why { kind, figure: 0 }
    }

    /// A reason citing `figure`.
    pub fn citing(kind: WhyKind, figure: u32) -> Why {
        Why { kind, figure }
    }

    /// A spill from reserved deployment `from`, which answered `status`.
    pub fn spill(from: u8, status: u16) -> Why {
        Why::citing(WhyKind::Spill, u32::from(from) << 16 | u32::from(status))
    }

    /// The reason in words, deployments called by `names` (1-based
    /// numbers for any a slice lacks).
    pub fn explain(&self, names: &[alloc::string::String]) -> alloc::string::String {
        use alloc::format;
        let name = |d: u8| name_of(names, d);
        let n = self.figure;
        match self.kind {
            WhyKind::Reserved => "reserved capacity comes first".into(),
            WhyKind::NoReserved => {
                "there is no reserved deployment, so the first metered one takes it".into()
            }
            WhyKind::Spill => format!(
                "{} answered {}, so the call spilled over",
                name((n >> 16) as u8),
                n & 0xFFFF
            ),
            WhyKind::Group => {
                format!("priority group {n} is the first with a backend in service")
            }
            WhyKind::Rotation => "next in the rotation".into(),
            WhyKind::Pinned => "the conversation's session cookie pins it here".into(),
            WhyKind::Repinned => "its pinned backend was out, so the session moved".into(),
            WhyKind::Weighted => format!(
                "a weighted draw; this deployment holds {}% of the weight",
                n / 10
            ),
            WhyKind::Headroom => format!("fewest tokens used this minute ({n})"),
            WhyKind::Fastest => format!("lowest mean time to first token ({n} ms)"),
            WhyKind::Fewest => format!("fewest calls in flight ({n})"),
            WhyKind::Cheapest => "lowest configured price".into(),
        }
    }
}

/// What a deployment is, as the router's configuration says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Declared {
    /// Reserved capacity (priority 1, price 0).
    pub reserved: bool,
    /// Tokens a minute (the quota, or the reserved capacity).
    pub tpm: u64,
    /// Requests a minute (None for reserved capacity).
    pub rpm: Option<u32>,
    /// Input plus output price per token, as configured.
    pub price: f64,
}

/// How the breakers of a pool and LiteLLM's cooldowns behave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    /// Breakers count 429 as a failure.
    pub breaker_429: bool,
    /// Failures in the window that trip a breaker.
    pub breaker_count: u32,
    /// The breaker's window, ms.
    pub window_ms: u64,
    /// The trip time without Retry-After, ms.
    pub trip_ms: u64,
    /// Honour Retry-After.
    pub retry_after: bool,
}

/// The router's state and memory, for one strategy's run.
#[derive(Clone, Debug)]
pub struct Gate {
    /// The strategy.
    pub strategy: Strategy,
    /// The deployments as configured.
    pub declared: Vec<Declared>,
    /// Breaker and cooldown rules.
    pub rules: Rules,
    /// Until when each deployment is out (breaker tripped or cooling down), ms.
    pub out_until: Vec<u64>,
    /// Failure times inside each breaker's window.
    pub failures: Vec<VecDeque<u64>>,
    /// LiteLLM's per-minute counters, and the minute they are for.
    pub minute: (u64, Vec<litellm::usage::Minute>),
    /// LiteLLM's successes and failures this minute, per deployment.
    pub outcomes: Vec<(u32, u32)>,
    /// Latency windows (seconds to first token).
    pub latency: Vec<Vec<f64>>,
    /// Calls in flight from this router.
    pub in_flight: Vec<u32>,
    /// The rotation's position.
    pub next: usize,
    /// Session pins.
    pub pins: BTreeMap<u32, usize>,
}

impl Gate {
    /// A fresh router for `strategy` over `declared`.
    pub fn new(strategy: Strategy, declared: Vec<Declared>, rules: Rules) -> Gate {
        let n = declared.len();
        Gate {
            strategy,
            declared,
            rules,
            out_until: vec![0; n],
            failures: vec![VecDeque::new(); n],
            minute: (u64::MAX, vec![litellm::usage::Minute::default(); n]),
            outcomes: vec![(0, 0); n],
            latency: vec![Vec::new(); n],
            in_flight: vec![0; n],
            next: 0,
            pins: BTreeMap::new(),
        }
    }

    /// Whether deployment `d` is in service at `now`.
    pub fn open(&self, d: usize, now: u64) -> bool {
        self.out_until[d] <= now
    }

    /// Roll LiteLLM's per-minute counters to the minute of `now`.
    fn roll(&mut self, now: u64) {
        let m = now / 60_000;
        if m != self.minute.0 {
            self.minute.0 = m;
            for (x, d) in self.minute.1.iter_mut().zip(&self.declared) {
                *x = litellm::usage::Minute {
                    tpm: Some(d.tpm),
                    rpm: d.rpm,
                    tokens: 0,
                    requests: 0,
                };
            }
            self.outcomes.iter_mut().for_each(|o| *o = (0, 0));
        }
    }

    /// Where a call of conversation `session` with `tokens` prompt tokens
    /// goes at `now`, skipping `tried` (deployments this call already
    /// failed on) for LiteLLM's failover (a pool's retry goes through the
    /// pool again); `u` is a uniform draw.
    /// `None`: every deployment is out.
    pub fn pick(
        &mut self,
        now: u64,
        session: u32,
        tokens: u64,
        tried: &[usize],
        u: f64,
    ) -> Option<(usize, Why)> {
        self.roll(now);
        let open: Vec<usize> = (0..self.declared.len())
            .filter(|&d| self.open(d, now) && (self.strategy.pool() || !tried.contains(&d)))
            .collect();
        let pick = match self.strategy {
            Strategy::Spillover => spillover::pick(self),
            Strategy::PriorityPool => priority::pick(self, &open),
            Strategy::RoundRobin => round_robin::pick(self, &open),
            Strategy::Sticky => sticky::pick(self, &open, session),
            Strategy::Shuffle => shuffle::pick(self, &open, u),
            Strategy::Usage => usage::pick(self, &open, tokens, u),
            Strategy::Latency => latency::pick(self, &open, u),
            Strategy::LeastBusy => least_busy::pick(self, &open),
            Strategy::Cost => cost::pick(self, &open),
        }?;
        if self.strategy.litellm() {
            self.minute.1[pick.0].requests += 1;
        }
        self.in_flight[pick.0] += 1;
        Some(pick)
    }

    /// Deployment `d` answered `status` at `now` (with `retry_after_ms` when
    /// it said one): breakers count it, LiteLLM cools the deployment down.
    /// Returns how long `d` is now out, ms (0: still in).
    pub fn failed(&mut self, d: usize, status: u16, retry_after_ms: Option<u64>, now: u64) -> u64 {
        self.roll(now);
        self.in_flight[d] = self.in_flight[d].saturating_sub(1);
        if self.strategy.pool() {
            return breaker::failed(self, d, status, retry_after_ms, now);
        }
        if self.strategy.litellm() {
            self.outcomes[d].1 += 1;
            if status >= 500 || status == 408 {
                latency::record_timeout(self, d);
            }
            let f = litellm::cooldown::Failure {
                status,
                single: self.declared.len() == 1,
                successes: self.outcomes[d].0,
                failures: self.outcomes[d].1,
            };
            if litellm::cooldown::cools(&f) {
                let ms = (litellm::COOLDOWN_S * 1000.0) as u64;
                self.out_until[d] = self.out_until[d].max(now + ms);
                return ms;
            }
        }
        0
    }

    /// Deployment `d` gave its first token after `ttft_ms` to a call of
    /// `tokens` tokens in all.
    pub fn started(&mut self, d: usize, ttft_ms: u64, tokens: u64, now: u64) {
        self.roll(now);
        if self.strategy.litellm() {
            self.outcomes[d].0 += 1;
            self.minute.1[d].tokens += tokens;
            litellm::latency::record(&mut self.latency[d], ttft_ms as f64 / 1000.0);
        }
    }

    /// A call on `d` finished (or was given up on).
    pub fn finished(&mut self, d: usize) {
        self.in_flight[d] = self.in_flight[d].saturating_sub(1);
    }
}
