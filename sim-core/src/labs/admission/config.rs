//! The admission lab's settings and its policies.

use serde::{Deserialize, Serialize};

use crate::params::{narrow, Configurable, Param, Show};

crate::choices! {
    /// What the gateway does with a request the pool cannot serve soon.
    pub enum Policy {
        /// Admit everything; the queue grows without bound.
        None = ("none", "No admission control", "Admit everything: the queue grows as long as arrivals outrun the pool."),
        /// Refuse at once (a 429) when the queue is full.
        QueueCap = ("queue-cap", "Queue cap", "Answer 429 at once when the queue already holds the cap."),
        /// Drop a request whose SLO is already lost when it reaches a server.
        Deadline = ("deadline", "Deadlines", "Drop a request at dispatch if it can no longer meet its SLO."),
        /// Drop a request that waited longer than a multiple of the mean service time.
        QueueTime = ("queue-time", "Queue-time bound", "Drop a request that waited longer than a set multiple of the mean service time."),
        /// Take a replica out for a while after repeated failures.
        Breaker = ("breaker", "Circuit breaker", "After repeated failures, take the replica out of rotation for a trip duration."),
    }
}

/// The admission lab's configuration; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas in the pool.
    pub replicas: u32,
    /// Requests one replica serves at once.
    pub slots: u32,
    /// Mean service time, ticks.
    pub service: f64,
    /// Spread of service times (standard deviation ÷ mean).
    pub service_cv: f64,
    /// Time from dispatch to the first token, as a share of the mean
    /// service time (the same for every request).
    pub first_token: f64,
    /// Offered load as a share of the pool's capacity.
    pub load: f64,
    /// Extra load during the surge, as a share of the steady load (0: none).
    pub surge: f64,
    /// Tick the surge starts.
    pub surge_at: u32,
    /// Ticks the surge lasts.
    pub surge_for: u32,
    /// TTFT SLO, in mean service times.
    pub slo: f64,
    /// Queue cap of the `queue-cap` policy, requests.
    pub cap: u32,
    /// Queue-time bound of the `queue-time` policy, in mean service times.
    pub bound: f64,
    /// Probability that a request on the failing replica fails (0: no incident).
    pub failure: f64,
    /// Tick the incident starts.
    pub incident_at: u32,
    /// Ticks it lasts.
    pub incident_for: u32,
    /// Failures within the breaker's window that trip it.
    pub trip_after: u32,
    /// The breaker's observation window, ticks.
    pub window: u32,
    /// Ticks a tripped breaker keeps the replica out.
    pub trip_for: u32,
    /// Ticks simulated.
    pub ticks: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

/// The defaults tell the lab's story in one run: a steady 80% load, a surge
/// to twice that for 300 ticks (the queue it leaves behind outlives it), then
/// an incident on replica 1 for the breaker to catch.
impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            replicas: 4,
            slots: 4,
            service: 20.0,
            service_cv: 1.0,
            first_token: 0.1,
            load: 0.8,
            surge: 1.0,
            surge_at: 200,
            surge_for: 300,
            slo: 3.0,
            cap: 16,
            bound: 2.0,
            failure: 0.5,
            incident_at: 1100,
            incident_for: 500,
            trip_after: 5,
            window: 50,
            trip_for: 200,
            ticks: 2000,
            seed: 1,
        }
    }
}

impl Config {
    /// Servers in the pool.
    pub fn servers(&self) -> u32 {
        self.replicas * self.slots
    }

    /// Requests per tick the pool completes when every server is busy.
    pub fn capacity(&self) -> f64 {
        f64::from(self.servers()) / self.service
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("load", "Offered load", "", (0.1, 3.0, 0.05), |c| c.load, |c, x| c.load = x)
            .doc("Arrivals as a share of what the pool can serve; past 100% the queue can only grow.")
            .show(Show::Percent(0)),
        P::real("slo", "TTFT SLO", "× service", (0.5, 50.0, 0.5), |c| c.slo, |c, x| c.slo = x)
            .doc("A request meets the SLO when its first token comes within this many mean service times."),
        P::whole("cap", "Queue cap", "requests", (0, 10_000, 1), |c| c.cap.into(), |c, x| c.cap = narrow(x))
            .doc("The queue-cap policy answers 429 once this many requests wait."),
        P::real("bound", "Queue-time bound", "× service", (0.1, 50.0, 0.1), |c| c.bound, |c, x| c.bound = x)
            .doc("The queue-time policy drops a request that waited longer than this many mean service times."),
        P::real("surge", "Surge", "", (0.0, 5.0, 0.1), |c| c.surge, |c, x| c.surge = x)
            .doc("Extra arrivals during the surge window, as a share of the steady load.")
            .show(Show::Percent(0)),
        P::real("failure", "Failing replica", "", (0.0, 1.0, 0.05), |c| c.failure, |c, x| c.failure = x)
            .doc("During the incident, the share of replica 1's requests that fail.")
            .show(Show::Percent(0)),
        P::whole("replicas", "Replicas", "", (1, 32, 1), |c| c.replicas.into(), |c, x| c.replicas = narrow(x))
            .doc("Replicas in the pool.")
            .advanced(),
        P::whole("slots", "Slots per replica", "", (1, 64, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Requests one replica serves at once.")
            .advanced(),
        P::real("service", "Mean service time", "ticks", (1.0, 1000.0, 1.0), |c| c.service, |c, x| c.service = x)
            .doc("Ticks a request holds its server, on average.")
            .advanced(),
        P::real("service-cv", "Service-time spread", "", (0.0, 4.0, 0.05), |c| c.service_cv, |c, x| c.service_cv = x)
            .doc("Standard deviation over mean of service times (Gamma).")
            .advanced(),
        P::real("first-token", "First token at", "", (0.01, 1.0, 0.01), |c| c.first_token, |c, x| c.first_token = x)
            .doc("Time from dispatch to the first token, as a share of the mean service time.")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("surge-at", "Surge starts", "ticks", (0, 100_000, 1), |c| c.surge_at.into(), |c, x| c.surge_at = narrow(x))
            .doc("Tick the surge begins.")
            .advanced(),
        P::whole("surge-for", "Surge lasts", "ticks", (0, 100_000, 1), |c| c.surge_for.into(), |c, x| c.surge_for = narrow(x))
            .doc("Ticks the surge lasts.")
            .advanced(),
        P::whole("incident-at", "Incident starts", "ticks", (0, 100_000, 1), |c| c.incident_at.into(), |c, x| c.incident_at = narrow(x))
            .doc("Tick replica 1 starts failing.")
            .advanced(),
        P::whole("incident-for", "Incident lasts", "ticks", (0, 100_000, 1), |c| c.incident_for.into(), |c, x| c.incident_for = narrow(x))
            .doc("Ticks replica 1 keeps failing.")
            .advanced(),
        P::whole("trip-after", "Breaker trips after", "failures", (1, 1000, 1), |c| c.trip_after.into(), |c, x| c.trip_after = narrow(x))
            .doc("Failures within the window that take a replica out.")
            .advanced(),
        P::whole("window", "Breaker window", "ticks", (1, 10_000, 1), |c| c.window.into(), |c, x| c.window = narrow(x))
            .doc("How far back the breaker counts failures.")
            .advanced(),
        P::whole("trip-for", "Trip duration", "ticks", (1, 100_000, 1), |c| c.trip_for.into(), |c, x| c.trip_for = narrow(x))
            .doc("Ticks a tripped replica stays out of rotation.")
            .advanced(),
        P::whole("ticks", "Ticks", "", (100, 20_000, 100), |c| c.ticks.into(), |c, x| c.ticks = narrow(x))
            .doc("Ticks simulated (every tick of every policy is kept for the player).")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}
