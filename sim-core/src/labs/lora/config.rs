//! The LoRA lab's settings and the rules it compares.

use serde::{Deserialize, Serialize};

use crate::engine::AdapterSpec;
use crate::params::{narrow, Configurable, Param};

/// Milliseconds one tick (one engine iteration) stands for in this lab.
pub const TICK_MS: u32 = 25;

crate::choices! {
    /// How a request's replica is chosen.
    pub enum Rule {
        /// Next in the rotation; adapters not read.
        RoundRobin = ("round-robin", "Round robin", "Next replica in the rotation; neither load nor adapters read."),
        /// Fewest outstanding requests; adapters not read.
        LeastLoad = ("least-load", "Least load", "The replica with the fewest requests waiting or running, whatever adapters it holds."),
        /// A replica holding the adapter, whatever its load.
        Residency = ("residency", "Residency only", "A replica already holding the adapter, the least loaded of those; the least loaded of all only when none holds it."),
        /// llm-d's scorers summed: queue, KV, prefix and LoRA affinity.
        Llmd = ("llm-d", "llm-d pipeline", "llm-d's weighted scorers summed: queue 2, KV use 2, prefix 3 and LoRA affinity 1; the highest total wins."),
        /// AIBrix: place each adapter on a few replicas, route among them.
        Placement = ("placement", "Placement first", "Each adapter placed on a few replicas with the fewest adapters (AIBrix); the least loaded of those."),
    }
}

/// The LoRA lab's configuration; ranges are in [`Config::PARAMS`]. Time
/// runs in ticks of [`TICK_MS`]; the settings are in milliseconds and
/// seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Requests per second (Poisson).
    pub rate: f64,
    /// Seconds during which requests arrive; the run then drains.
    pub seconds: u32,
    /// Distinct adapters.
    pub adapters: u32,
    /// Zipf exponent of adapter popularity (0: all equally popular).
    pub zipf: f64,
    /// Replicas.
    pub replicas: u32,
    /// Sequences one replica runs at once.
    pub slots: u32,
    /// Adapter slots per replica (vLLM's `max_loras`).
    pub lora_slots: u32,
    /// Adapters a replica keeps in host memory (`max_cpu_loras`).
    pub host_adapters: u32,
    /// Size of one adapter, MB.
    pub adapter_mb: u32,
    /// Bandwidth a cold adapter is fetched at (disk or remote store), MB/s.
    pub cold_mbps: u32,
    /// Host-to-accelerator bandwidth for adapters in host memory, GB/s.
    pub host_gbps: f64,
    /// Extra step time per distinct adapter beyond the first in a batch, ‰.
    pub mixed_permille: u32,
    /// Placement first: replicas each adapter is placed on.
    pub copies: u32,
    /// Prompt tokens, of which `system` are the adapter's own system prompt.
    pub prompt: u32,
    /// Tokens of each adapter's system prompt (the shared, cacheable part).
    pub system: u32,
    /// Mean output tokens (exponential).
    pub output: u32,
    /// Prompt tokens a prefill step computes.
    pub prefill: u32,
    /// Time-to-first-token objective for goodput, ms.
    pub slo_ms: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

/// Eight replicas of 32 sequences, each holding 8 of 32 adapters of
/// Zipf(1) popularity, with 16 in host memory; 160 MB adapters fetched
/// cold at 400 MB/s (400 ms) or from host memory at 16 GB/s (one tick).
impl Default for Config {
    #[inline(never)]
    fn default() -> Self {
        Config {
            rate: 40.0,
            seconds: 60,
            adapters: 32,
            zipf: 1.0,
            replicas: 8,
            slots: 32,
            lora_slots: 8,
            host_adapters: 16,
            adapter_mb: 160,
            cold_mbps: 400,
            host_gbps: 16.0,
            mixed_permille: 20,
            copies: 2,
            prompt: 1024,
            system: 512,
            output: 128,
            prefill: 4096,
            slo_ms: 1000,
            seed: 1,
        }
    }
}

impl Config {
    /// Ticks to load one adapter at `mb_per_s`: its size over the
    /// bandwidth, rounded up to whole ticks.
    fn load_ticks(&self, mb_per_s: f64) -> u32 {
        let ms = f64::from(self.adapter_mb) / mb_per_s.max(1e-9) * 1000.0;
        libm::ceil(ms / f64::from(TICK_MS)) as u32
    }

    /// The engine's adapter settings.
    pub fn adapter_spec(&self) -> AdapterSpec {
        AdapterSpec {
            slots: self.lora_slots,
            host: self.host_adapters,
            load_host_ticks: self.load_ticks(self.host_gbps * 1000.0),
            load_cold_ticks: self.load_ticks(f64::from(self.cold_mbps)),
            step_permille: self.mixed_permille,
        }
    }

    /// Ticks during which requests arrive.
    pub fn ticks(&self) -> u64 {
        u64::from(self.seconds) * 1000 / u64::from(TICK_MS)
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("rate", "Arrival rate", "req/s", (1.0, 100.0, 1.0), |c| c.rate, |c, x| c.rate = x)
            .doc("Requests per second (Poisson), the same stream for every rule."),
        P::whole("adapters", "Adapters", "", (1, 500, 1), |c| c.adapters.into(), |c, x| c.adapters = narrow(x))
            .doc("Distinct LoRA adapters the requests ask for."),
        P::real("zipf", "Popularity skew", "", (0.0, 3.0, 0.1), |c| c.zipf, |c, x| c.zipf = x)
            .doc("Zipf exponent of adapter popularity: 0 spreads requests evenly, 1 gives the most popular adapter about a quarter of them at 32 adapters."),
        P::whole("lora-slots", "Adapter slots", "", (1, 64, 1), |c| c.lora_slots.into(), |c, x| c.lora_slots = narrow(x))
            .doc("Adapters a replica holds in accelerator memory at once, and the most distinct adapters one batch may hold (vLLM's max_loras)."),
        P::whole("cold-mbps", "Cold-load bandwidth", "MB/s", (10, 100_000, 10), |c| c.cold_mbps.into(), |c, x| c.cold_mbps = narrow(x))
            .doc("How fast an adapter in neither accelerator nor host memory arrives (disk or a remote store); size over this is the cold-load time, during which the replica stalls."),
        P::whole("copies", "Placement copies", "", (1, 64, 1), |c| c.copies.into(), |c, x| c.copies = narrow(x))
            .doc("Placement first: replicas each adapter is placed on, each time on the replica with the fewest adapters."),
        P::whole("replicas", "Replicas", "", (1, 32, 1), |c| c.replicas.into(), |c, x| c.replicas = narrow(x))
            .doc("Model replicas, each with its own adapter slots and host cache."),
        P::whole("host-adapters", "Adapters in host memory", "", (0, 1000, 1), |c| c.host_adapters.into(), |c, x| c.host_adapters = narrow(x))
            .doc("Adapters a replica keeps in host memory (vLLM's max_cpu_loras); loading one of those is fast.")
            .advanced(),
        P::whole("adapter-mb", "Adapter size", "MB", (1, 10_000, 1), |c| c.adapter_mb.into(), |c, x| c.adapter_mb = narrow(x))
            .doc("Bytes of one adapter's weights (rank 16 on a 70B model's attention is about 160 MB).")
            .advanced(),
        P::real("host-gbps", "Host link", "GB/s", (0.1, 900.0, 0.1), |c| c.host_gbps, |c, x| c.host_gbps = x)
            .doc("Host-to-accelerator bandwidth for an adapter already in host memory (PCIe 4 x16 is about 25 GB/s).")
            .advanced(),
        P::whole("mixed-permille", "Mixed-batch overhead", "‰", (0, 1000, 1), |c| c.mixed_permille.into(), |c, x| c.mixed_permille = narrow(x))
            .doc("Extra step time for each distinct adapter beyond the first in a batch, in thousandths of a step: a few percent, as batched LoRA kernels measure.")
            .advanced(),
        P::whole("slots", "Sequences per replica", "", (1, 512, 1), |c| c.slots.into(), |c, x| c.slots = narrow(x))
            .doc("Sequences one replica runs at once.")
            .advanced(),
        P::whole("prompt", "Prompt", "tokens", (64, 32_768, 64), |c| c.prompt.into(), |c, x| c.prompt = narrow(x))
            .doc("Prompt tokens of every request: the adapter's system prompt, then a part of its own.")
            .advanced(),
        P::whole("system", "Adapter system prompt", "tokens", (0, 32_768, 64), |c| c.system.into(), |c, x| c.system = narrow(x))
            .doc("Leading prompt tokens every request of one adapter shares (a replica's prefix cache can hold them).")
            .advanced(),
        P::whole("output", "Mean output", "tokens", (1, 8192, 1), |c| c.output.into(), |c, x| c.output = narrow(x))
            .doc("Mean output tokens (exponential).")
            .advanced(),
        P::whole("prefill", "Prefill per step", "tokens", (256, 65_536, 256), |c| c.prefill.into(), |c, x| c.prefill = narrow(x))
            .doc("Prompt tokens one prefill step computes.")
            .advanced(),
        P::whole("slo-ms", "TTFT objective", "ms", (25, 60_000, 25), |c| c.slo_ms.into(), |c, x| c.slo_ms = narrow(x))
            .doc("A request counts toward goodput when its first token comes within this.")
            .advanced(),
        P::whole("seconds", "Duration", "s", (5, 600, 5), |c| c.seconds.into(), |c, x| c.seconds = narrow(x))
            .doc("Seconds during which requests arrive; the run then lets the replicas drain.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    /// An adapter's system prompt fits inside its prompt.
    fn cross_check(&self) -> Result<(), crate::params::ParamError> {
        if self.system > self.prompt {
            return Err(crate::params::ParamError {
                key: "system",
                given: alloc::format!("{}", self.system),
                problem: crate::params::Problem::Unfit(alloc::format!(
                    "the adapter's system prompt cannot be longer than the prompt ({} tokens)",
                    self.prompt
                )),
            });
        }
        Ok(())
    }
}
