//! The autoscaling lab's settings, its scalers and its gateway rules.

use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};

crate::choices! {
    /// What the control loop reads to decide the replica count.
    pub enum Scaler {
        /// No control loop: the pool keeps its starting size.
        Fixed = ("fixed", "Fixed pool", "No autoscaler: the pool keeps the replicas it started with."),
        /// The share of time anything ran on the GPU (`utilization.gpu`).
        Busy = ("busy", "GPU busy fraction", "Share of the time any request ran on a replica, as utilization.gpu reports it."),
        /// Decode slots in use (`kv_cache_usage_perc`).
        Kv = ("kv", "KV usage", "Share of a replica's batch slots (its KV cache) in use."),
        /// Requests running or waiting per replica.
        Queue = ("queue", "Queue depth", "Requests running or waiting per replica, against a target per replica."),
        /// TTFT P95 measured at the gateway.
        Ttft = ("ttft", "TTFT P95", "95th percentile of the first-token times the gateway saw in the last period."),
        /// Scale ahead of a known schedule, with KV usage as a floor.
        Predictive = ("predictive", "Predictive", "Reads the traffic forecast one cold start ahead; KV usage as a floor."),
    }
}

crate::choices! {
    /// How the gateway picks a replica for each request.
    pub enum Router {
        /// Fewest requests running or waiting.
        LeastOutstanding = ("least-outstanding", "Least outstanding", "The replica with the fewest requests running or waiting."),
        /// A replica that holds the request's prefix, unless it is too busy.
        PrefixAware = ("prefix-aware", "Prefix-aware", "A replica that holds the request's prefix, unless it has `balance` more requests than the least busy."),
    }
}

/// The autoscaling lab's configuration; ranges are in [`Config::PARAMS`].
/// One tick is one second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Steady arrival rate, requests per second.
    pub rate: f64,
    /// Extra arrivals during the surge, as a share of the steady rate.
    pub surge: f64,
    /// Second the surge starts.
    pub surge_at: u32,
    /// Seconds the surge lasts.
    pub surge_for: u32,
    /// Replicas at the start (and the fixed pool's size).
    pub replicas: u32,
    /// Fewest replicas a scaler keeps.
    pub min: u32,
    /// Most replicas a scaler keeps (starting ones included; draining ones,
    /// which take no new requests, are not counted, as Kubernetes does not
    /// count terminating pods).
    pub max: u32,
    /// Seconds from ordering a replica to its first request (image pull,
    /// weights, graph capture).
    pub cold: u32,
    /// Seconds between the control loop's decisions.
    pub period: u32,
    /// Seconds a lower replica count must persist before the pool shrinks.
    pub cooldown: u32,
    /// Target of the busy-fraction scaler.
    pub busy_target: f64,
    /// Target of the KV-usage scaler (and the predictive one's).
    pub kv_target: f64,
    /// Target of the queue-depth scaler: requests running or waiting per replica.
    pub queue_target: f64,
    /// Target of the TTFT scaler, seconds.
    pub ttft_target: f64,
    /// The gateway's rule.
    pub router: Router,
    /// Prefix-aware: how many more requests than the least busy replica a
    /// replica holding the prefix may have before the request goes elsewhere
    /// (SGLang's gateway defaults its absolute threshold to 32–64).
    pub balance: u32,
    /// Seconds over which a new replica's share of arrivals ramps up to a
    /// fair share (Envoy's slow start); 0: off.
    pub slow_start: u32,
    /// Requests one replica runs at once (its batch, bounded by KV).
    pub slots: u32,
    /// Mean decode time of a request, seconds.
    pub decode: f64,
    /// Prefill time of a request whose prefix is not cached, seconds
    /// (prefill is compute-bound: a replica prefills one request at a time).
    pub prefill: f64,
    /// Prefill time with the prefix cached, as a share of a miss's.
    pub hit_cost: f64,
    /// Distinct shared prefixes (system prompts) in the traffic.
    pub prefixes: u32,
    /// Prefixes one replica's cache holds.
    pub cache: u32,
    /// TTFT SLO, seconds.
    pub slo: f64,
    /// Seconds simulated.
    pub ticks: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

/// The defaults tell the lab's story in one run: a pool of four sized for
/// the steady 2 requests per second, a surge to three times that at minute
/// ten lasting eight minutes, and a cold start of four minutes, so a
/// replica ordered once the surge is visible arrives with half of it gone.
impl Default for Config {
    // Not inlined, as every lab config's (each inlined copy costs the bundle).
    #[inline(never)]
    fn default() -> Self {
        Config {
            rate: 2.0,
            surge: 2.0,
            surge_at: 600,
            surge_for: 480,
            replicas: 4,
            min: 2,
            max: 16,
            cold: 240,
            period: 15,
            cooldown: 300,
            busy_target: 0.8,
            kv_target: 0.7,
            queue_target: 12.0,
            ttft_target: 2.0,
            router: Router::LeastOutstanding,
            balance: 32,
            slow_start: 0,
            slots: 16,
            decode: 20.0,
            prefill: 1.0,
            hit_cost: 0.2,
            prefixes: 24,
            cache: 8,
            slo: 5.0,
            ticks: 1800,
            seed: 1,
        }
    }
}

impl Config {
    /// The arrival rate at second `t`, requests per second.
    pub fn rate_at(&self, t: u32) -> f64 {
        if self.surging(t) {
            self.rate * (1.0 + self.surge)
        } else {
            self.rate
        }
    }

    /// Replicas a run starts with: `replicas`, brought within `min..=max`
    /// when a scaler runs (the fixed pool keeps `replicas` as given).
    pub fn start(&self, scaled: bool) -> u32 {
        if scaled {
            self.replicas.clamp(self.min, self.max)
        } else {
            self.replicas
        }
    }

    /// Whether second `t` is in the surge.
    pub fn surging(&self, t: u32) -> bool {
        self.surge > 0.0 && t >= self.surge_at && t - self.surge_at < self.surge_for
    }

    /// Requests per second one replica finishes with every slot busy
    /// (decode-bound: slots ÷ mean decode time).
    pub fn replica_rate(&self) -> f64 {
        f64::from(self.slots) / self.decode
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("rate", "Steady rate", "req/s", (0.1, 20.0, 0.1), |c| c.rate, |c, x| c.rate = x)
            .doc("Requests per second outside the surge (Poisson)."),
        P::real("surge", "Surge", "", (0.0, 10.0, 0.1), |c| c.surge, |c, x| c.surge = x)
            .doc("Extra arrivals during the surge, as a share of the steady rate.")
            .show(Show::Percent(0)),
        P::whole("cold", "Cold start", "s", (0, 3600, 5), |c| c.cold.into(), |c, x| c.cold = narrow(x))
            .doc("Seconds from ordering a replica to its first request: image pull, weight load, graph capture."),
        P::choice("router", "Gateway rule", Router::options, |c| c.router.name(), |c, x| {
            if let Some(r) = Router::from_name(x) {
                c.router = r;
            }
        })
        .doc("How the gateway picks a replica: fewest outstanding requests, or a replica that holds the prefix."),
        P::whole("slow-start", "Slow start", "s", (0, 3600, 5), |c| c.slow_start.into(), |c, x| c.slow_start = narrow(x))
            .doc("Seconds over which a new replica's share of arrivals ramps up to a fair share; 0 turns it off."),
        P::whole("surge-at", "Surge starts", "s", (0, 100_000, 10), |c| c.surge_at.into(), |c, x| c.surge_at = narrow(x))
            .doc("Second the surge begins.")
            .advanced(),
        P::whole("surge-for", "Surge lasts", "s", (0, 100_000, 10), |c| c.surge_for.into(), |c, x| c.surge_for = narrow(x))
            .doc("Seconds the surge lasts.")
            .advanced(),
        P::whole("replicas", "Starting replicas", "", (1, 32, 1), |c| c.replicas.into(), |c, x| c.replicas = narrow(x))
            .doc("Replicas ready at the start; the fixed pool keeps them (a scaler first brings them within its bounds).")
            .advanced(),
        P::whole("min", "Fewest replicas", "", (1, 32, 1), |c| c.min.into(), |c, x| c.min = narrow(x))
            .doc("A scaler never goes below this many replicas.")
            .advanced(),
        P::whole("max", "Most replicas", "", (1, 32, 1), |c| c.max.into(), |c, x| c.max = narrow(x))
            .doc("A scaler never keeps more than this many, starting ones included (draining ones are not counted).")
            .advanced(),
        P::whole("period", "Control period", "s", (1, 600, 1), |c| c.period.into(), |c, x| c.period = narrow(x))
            .doc("Seconds between the control loop's decisions (Kubernetes' autoscaler syncs every 15 s).")
            .advanced(),
        P::whole("cooldown", "Scale-in window", "s", (0, 3600, 5), |c| c.cooldown.into(), |c, x| c.cooldown = narrow(x))
            .doc("The pool shrinks only to the largest count asked for over this many seconds (Kubernetes' default is 300).")
            .advanced(),
        P::real("busy-target", "Busy-fraction target", "", (0.05, 1.0, 0.05), |c| c.busy_target, |c, x| c.busy_target = x)
            .doc("The busy-fraction scaler sizes the pool to bring the busy fraction to this.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("kv-target", "KV-usage target", "", (0.05, 1.0, 0.05), |c| c.kv_target, |c, x| c.kv_target = x)
            .doc("The KV-usage and predictive scalers size the pool to bring slot use to this.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("queue-target", "Queue-depth target", "req", (0.5, 1000.0, 0.5), |c| c.queue_target, |c, x| c.queue_target = x)
            .doc("The queue-depth scaler sizes the pool to this many requests running or waiting per replica.")
            .advanced(),
        P::real("ttft-target", "TTFT target", "s", (0.1, 600.0, 0.1), |c| c.ttft_target, |c, x| c.ttft_target = x)
            .doc("The TTFT scaler sizes the pool in proportion to the last period's TTFT P95 over this.")
            .advanced(),
        P::whole("balance", "Balance threshold (prefix-aware)", "req", (0, 1000, 1), |c| c.balance.into(), |c, x| c.balance = narrow(x))
            .doc("Prefix-aware: a replica with the prefix is skipped once it has this many more requests than the least busy one.")
            .advanced(),
        P::whole("slots", "Slots per replica", "", (1, 256, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Requests a replica runs at once (its batch, bounded by its KV cache).")
            .advanced(),
        P::real("decode", "Mean decode time", "s", (1.0, 600.0, 1.0), |c| c.decode, |c, x| c.decode = x)
            .doc("Seconds a request spends decoding, on average (exponential).")
            .advanced(),
        P::real("prefill", "Prefill time (miss)", "s", (0.05, 60.0, 0.05), |c| c.prefill, |c, x| c.prefill = x)
            .doc("Seconds to prefill a request whose prefix is not cached; a replica prefills one request at a time.")
            .advanced(),
        P::real("hit-cost", "Prefill with a hit", "", (0.0, 1.0, 0.05), |c| c.hit_cost, |c, x| c.hit_cost = x)
            .doc("Prefill time when the prefix is cached, as a share of a miss's.")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("prefixes", "Shared prefixes", "", (1, 1000, 1), |c| c.prefixes.into(), |c, x| c.prefixes = narrow(x))
            .doc("Distinct system prompts in the traffic, equally popular.")
            .advanced(),
        P::whole("cache", "Prefixes cached", "", (1, 1000, 1), |c| c.cache.into(), |c, x| c.cache = narrow(x))
            .doc("Prefixes one replica's cache holds (least recently used goes first); a new replica's is empty.")
            .advanced(),
        P::real("slo", "TTFT SLO", "s", (0.1, 600.0, 0.1), |c| c.slo, |c, x| c.slo = x)
            .doc("A request meets the SLO when its first token comes within this many seconds.")
            .advanced(),
        P::whole("ticks", "Seconds", "", (100, 7200, 100), |c| c.ticks.into(), |c, x| c.ticks = narrow(x))
            .doc("Seconds simulated (every second of every scaler is kept for the player).")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    /// The pool's bounds must be in order (a starting size outside them is
    /// brought inside by the scalers: [`Config::start`]).
    fn cross_check(&self) -> Result<(), ParamError> {
        if self.max < self.min {
            return Err(ParamError {
                key: "max",
                given: alloc::format!("{}", self.max),
                problem: Problem::Below("min"),
            });
        }
        Ok(())
    }
}
