//! The fairness lab's settings, its schedulers and its tenants.

use serde::{Deserialize, Serialize};

use crate::params::{narrow, Configurable, Param, Show};

crate::choices! {
    /// How the engine picks the next waiting request when a slot frees.
    pub enum Scheduler {
        /// First come, first served, whoever sent it.
        Fcfs = ("fcfs", "First come, first served", "The oldest waiting request goes next, whoever sent it."),
        /// The tenant with the fewest requests admitted in the window.
        Rpm = ("rpm", "Request fairness (RPM)", "The tenant with the fewest requests admitted in the window goes next; a request's size does not count."),
        /// The tenant with the fewest tokens charged in the window.
        Tpm = ("tpm", "Token fairness (TPM)", "The tenant with the fewest tokens in the window goes next; input and output count alike, cached or not."),
        /// The tenant with the least weighted service so far (VTC).
        Vtc = ("vtc", "Virtual token counter (VTC)", "The tenant with the least weighted token service goes next, charged as tokens are produced."),
        /// Interactive before batch, preempting batch work.
        Priority = ("priority", "Strict priority", "Interactive requests first; one waiting with every slot busy evicts the newest batch sequence."),
    }
}

/// A tenant's kind of traffic (article §8.1: a request count hides all of this).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Its name in tables.
    pub name: &'static str,
    /// Mean prompt tokens, not counting a shared prefix.
    pub prompt: u32,
    /// Tokens of a system prompt every request of the tenant starts with
    /// (0: none).
    pub prefix: u32,
    /// Mean output tokens.
    pub output: u32,
    /// Interactive (served first under strict priority) or batch.
    pub interactive: bool,
    /// Requests sent in a burst every `every` ticks.
    pub burst: u32,
    /// Requests per iteration arriving on their own (Poisson), whatever the
    /// engine does. With neither a burst nor a rate, the tenant is `clients`
    /// clients each sending its next request as soon as one returns: it
    /// always wants more.
    pub rate: f64,
}

/// The four tenants, in order; a run has the first `tenants` of them.
pub const TENANTS: [Shape; 4] = [
    Shape {
        name: "long prompts",
        prompt: 1600,
        prefix: 0,
        output: 40,
        interactive: false,
        burst: 0,
        rate: 0.0,
    },
    Shape {
        name: "long outputs",
        prompt: 100,
        prefix: 0,
        output: 300,
        interactive: false,
        burst: 0,
        rate: 0.0,
    },
    Shape {
        name: "chat",
        prompt: 80,
        prefix: 0,
        output: 20,
        interactive: true,
        burst: 0,
        rate: 0.25,
    },
    Shape {
        name: "shared prompt",
        prompt: 80,
        prefix: 1200,
        output: 20,
        interactive: false,
        burst: 12,
        rate: 0.0,
    },
];

/// The fairness lab's configuration; ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Tenants sharing the engine (the first of [`TENANTS`]).
    pub tenants: u32,
    /// Sequences the engine runs at once.
    pub slots: u32,
    /// Tokens one iteration processes: one per decoding sequence, the rest
    /// for prefill chunks.
    pub budget: u32,
    /// Prefix-cache capacity, tokens.
    pub cache: u32,
    /// VTC's weight of an input token.
    pub w_in: f64,
    /// VTC's weight of an output token.
    pub w_out: f64,
    /// GPU time of an output token, in prefill tokens (a decode step is
    /// memory-bound: per token it costs more than a prompt token).
    pub decode_cost: f64,
    /// Window of the RPM and TPM counts, ticks.
    pub window: u32,
    /// Clients of each steady tenant (long prompts, long outputs).
    pub clients: u32,
    /// Ticks between bursts of the shared-prompt tenant.
    pub every: u32,
    /// Spread of prompt and output lengths (standard deviation ÷ mean).
    pub spread: f64,
    /// Ticks (iterations) simulated.
    pub ticks: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            tenants: 4,
            slots: 8,
            budget: 512,
            cache: 4096,
            w_in: 1.0,
            w_out: 2.0,
            decode_cost: 2.0,
            window: 200,
            clients: 8,
            every: 300,
            spread: 0.3,
            ticks: 3000,
            seed: 1,
        }
    }
}

impl Config {
    /// The tenants of this run.
    pub fn shapes(&self) -> &'static [Shape] {
        &TENANTS[..(self.tenants as usize).clamp(1, TENANTS.len())]
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::whole("tenants", "Tenants", "", (2, 4, 1), |c| c.tenants.into(), |c, x| c.tenants = narrow(x))
            .doc("Long prompts, long outputs, chat, and a tenant whose requests share a system prompt, in that order."),
        P::real("w-out", "VTC output weight", "× input", (0.1, 10.0, 0.1), |c| c.w_out, |c, x| c.w_out = x)
            .doc("What VTC charges for an output token against an input token."),
        P::whole("cache", "Prefix cache", "tokens", (0, 100_000, 256), |c| c.cache.into(), |c, x| c.cache = narrow(x))
            .doc("Prompt tokens the engine keeps for reuse; 0 keeps none."),
        P::whole("slots", "Slots", "", (1, 64, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Sequences the engine runs at once.")
            .advanced(),
        P::whole("budget", "Tokens per iteration", "", (16, 8192, 16), |c| c.budget.into(), |c, x| c.budget = narrow(x))
            .doc("One per decoding sequence; the rest go to prompt chunks.")
            .advanced(),
        P::real("w-in", "VTC input weight", "", (0.1, 10.0, 0.1), |c| c.w_in, |c, x| c.w_in = x)
            .doc("What VTC charges for an input token.")
            .advanced(),
        P::real("decode-cost", "GPU cost of an output token", "× input", (0.1, 20.0, 0.1), |c| c.decode_cost, |c, x| c.decode_cost = x)
            .doc("GPU time of an output token against a computed prompt token, for the GPU-time shares.")
            .advanced(),
        P::whole("window", "RPM/TPM window", "ticks", (10, 10_000, 10), |c| c.window.into(), |c, x| c.window = narrow(x))
            .doc("How far back request and token fairness count.")
            .advanced(),
        P::whole("clients", "Clients per tenant", "", (1, 64, 1), |c| c.clients.into(), |c, x| c.clients = narrow(x))
            .doc("Each steady tenant's clients send their next request when one returns.")
            .advanced(),
        P::whole("every", "Burst every", "ticks", (10, 100_000, 10), |c| c.every.into(), |c, x| c.every = narrow(x))
            .doc("Ticks between bursts of the shared-prompt tenant.")
            .advanced(),
        P::real("spread", "Length spread", "", (0.0, 2.0, 0.05), |c| c.spread, |c, x| c.spread = x)
            .doc("Standard deviation over mean of prompt and output lengths.")
            .show(Show::Fixed(2))
            .advanced(),
        P::whole("ticks", "Iterations", "", (100, 20_000, 100), |c| c.ticks.into(), |c, x| c.ticks = narrow(x))
            .doc("Engine iterations simulated.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];
}
