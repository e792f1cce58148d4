//! Routing Lab configuration and its parameter table. Defaults are the
//! article's lab (§4.2) and the engine constants documented in `docs/model.md`.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::engine::EngineSpec;
use crate::hardware::{Model, Precision, Timing};
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};
use crate::routing::{rule_rows_len, with_rule_rows, HasRules, RuleSettings};
use crate::workload::generator::GeneratorSpec;

/// Everything one Routing Lab run depends on. Missing keys take their defaults;
/// ranges are in [`Config::PARAMS`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Replicas in the pool (default 4).
    pub replicas: u32,
    /// Requests in the trace (default 160, a multiple of 4 so round robin
    /// deals every replica the same count).
    pub requests: u32,
    /// Mean arrivals per tick, λ (default 0.20; ticks mode).
    pub rate: f64,
    /// Mean arrivals per second (default 24; milliseconds mode: four H100s
    /// serving Llama 3.1 8B at the default engine settings are then near
    /// capacity, an offered load of about 0.94, as the ticks defaults are).
    pub rps: f64,
    /// Gamma shape of inter-arrival times: 1 is Poisson, lower is burstier
    /// (CV of inter-arrivals = 1/√b; default 1).
    pub burstiness: f64,
    /// The arrival rate at the end of the trace over the rate at its start:
    /// it climbs linearly in time between them (default 1, a steady rate;
    /// published benchmarks ramp their load, e.g. 3 to 60 QPS is 20).
    pub ramp: f64,
    /// Load stages, each `[rate, duration]` (requests per second and
    /// seconds in milliseconds mode; per tick and ticks otherwise), run one
    /// after another as inference-perf runs its stages: a stage sends
    /// `⌊rate × duration⌋` requests, Poisson at its rate, and the next one
    /// starts a second (a tick) after every request of the stage has its
    /// answer (`inference_perf/loadgen/load_generator.py`, `run_stage`).
    /// `requests` still counts the requests: past the last stage they
    /// come at its rate, and fewer cut the last stages short. Empty (the
    /// default): one stage at `rate`/`rps` with `ramp`.
    pub stages: Vec<[f64; 2]>,
    /// Clients sending the trace's requests in order (default 0: none, each
    /// request leaves at its trace time). With N > 0 a request leaves at its
    /// trace time or, when all N are waiting on answers, once one is free a
    /// think time after its response: a closed loop of N users at a high
    /// rate, a load generator's concurrency cap with no think time.
    pub clients: u32,
    /// Mean think time of a client between a response and its next
    /// request, in ticks (milliseconds in milliseconds mode); exponential,
    /// and 0 sends at once (default 0).
    pub think: f64,
    /// Mean prompt length, in tokens (default 957).
    pub mean_prompt: u32,
    /// Coefficient of variation of prompt length (default 0.75).
    pub prompt_cv: f64,
    /// Prompts are clipped to at least this many tokens (default 64).
    pub prompt_min: u32,
    /// Prompts are clipped to at most this many tokens (default 8,192).
    pub prompt_max: u32,
    /// Share of requests with long outputs (0–1; default 0.20).
    pub long_share: f64,
    /// Mean output of a short request, in tokens (default 100).
    pub short_output_mean: f64,
    /// Mean output of a long request, in tokens (default 300).
    pub long_output_mean: f64,
    /// CV of short outputs (default 0.25).
    pub short_output_cv: f64,
    /// CV of long outputs (default 0.5).
    pub long_output_cv: f64,
    /// Shared prefixes in the pool (default 6).
    pub prefix_pool: u32,
    /// Zipf exponent of the shared prefixes' popularity: 1 (default) makes
    /// the first twice as likely as the second; 0 makes them equally likely,
    /// as benchmark tools' shared-prefix groups are.
    pub prefix_zipf: f64,
    /// Fixed prompts per shared prefix: 0 (default) gives every request a
    /// tail of its own after the prefix; V > 0 draws the tail from V fixed
    /// ones, so whole prompts repeat (a benchmark's few questions per group).
    pub prefix_variants: u32,
    /// Least share of a prompt its prefix covers (0–1; default 0.6).
    pub prefix_cover_min: f64,
    /// Largest share of a prompt its prefix covers (0–1; default 0.9).
    pub prefix_cover_max: f64,
    /// TTFT service-level objective, in ticks (default 80; ticks mode).
    pub slo_ttft: u32,
    /// TTFT service-level objective, in ms (default 1,000; milliseconds mode).
    pub slo_ms: u32,
    /// Seed of every random stream (default 55: of seeds 1–100, the one whose
    /// table is nearest the seed-median table, so the lab opens on a typical
    /// run; `most_typical_seeds` in tests/calibration/search.rs).
    pub seed: u64,
    /// Batch slots per replica (default 8).
    pub slots: u32,
    /// KV capacity per replica, in blocks (default 600).
    pub kv_blocks: u32,
    /// Tokens per KV block (default 16).
    pub kv_block_tokens: u32,
    /// Prompt tokens per prefill step (default 192: a mean prompt takes five
    /// uncached ticks; chosen by the calibration search, docs/model.md).
    pub prefill_budget: u32,
    /// Prefix-cache capacity per replica, in tokens (default 8,192).
    pub cache_tokens: u32,
    /// The prefix cache lives in the KV blocks running sequences leave free,
    /// as vLLM's does, rather than beside them (default off).
    pub cache_in_kv: bool,
    /// A host-memory tier under the prefix cache, in tokens per replica
    /// (default 0: none; [`EngineSpec::host_cache_tokens`]).
    #[serde(default)]
    pub host_cache_tokens: u32,
    /// Prompt tokens a tick the host link moves into accelerator memory
    /// (default 0: the tier is off; [`EngineSpec::host_tokens_per_tick`]).
    #[serde(default)]
    pub host_tokens_per_tick: u32,
    /// Tokens per prefix hash block of generated traces (default 64).
    pub hash_block_tokens: u32,
    /// Every selection rule's settings (one field per rule; see each rule's file).
    pub rules: RuleSettings,
    /// Speed of each replica, in iterations per tick (missing entries are 1,
    /// entries past the pool size are ignored; default: all 1). A 2× faster
    /// replica runs two iterations per tick.
    pub speeds: Vec<f64>,
    /// Tick at which one more replica (speed 1, empty cache) joins the pool;
    /// 0 means none (default).
    pub scale_up_at: u64,
    /// Record, for every decision, what each other rule would have picked at
    /// that moment (default off: it re-asks every rule at every decision).
    pub counterfactuals: bool,
    /// Copies of the gateway in front of the pool (default 1). Requests
    /// reach them in turn, and each copy keeps its own router state (its
    /// prefix tree, its counters), as several instances of a real gateway
    /// do; each still reads the replicas' live load.
    pub gateways: u32,
    /// Requests reach a random copy of the gateway rather than each copy in
    /// turn (default off).
    pub gateway_random: bool,
    /// Safety cap on simulated ticks per rule (default 20,000,000).
    pub max_ticks: u64,
    /// Ticks, or milliseconds from a GPU and model preset (default ticks).
    pub timing: Timing,
}

impl Default for Config {
    // Not inlined: the parameter code asks for it in several places, and a
    // copy of every field at each cost the page's bundle 4 KB in all.
    #[inline(never)]
    fn default() -> Self {
        Config {
            replicas: 4,
            requests: 160,
            rate: 0.20,
            rps: 24.0,
            burstiness: 1.0,
            ramp: 1.0,
            stages: Vec::new(),
            clients: 0,
            think: 0.0,
            mean_prompt: 957,
            prompt_cv: 0.75,
            prompt_min: 64,
            prompt_max: 8192,
            long_share: 0.20,
            short_output_mean: 100.0,
            long_output_mean: 300.0,
            short_output_cv: 0.25,
            long_output_cv: 0.5,
            prefix_pool: 6,
            prefix_zipf: 1.0,
            prefix_variants: 0,
            prefix_cover_min: 0.6,
            prefix_cover_max: 0.9,
            slo_ttft: 80,
            slo_ms: 1000,
            seed: 55,
            slots: 8,
            kv_blocks: 600,
            kv_block_tokens: 16,
            prefill_budget: 192,
            cache_tokens: 8192,
            cache_in_kv: false,
            host_cache_tokens: 0,
            host_tokens_per_tick: 0,
            hash_block_tokens: 64,
            rules: RuleSettings::default(),
            speeds: Vec::new(),
            scale_up_at: 0,
            counterfactuals: false,
            gateways: 1,
            gateway_random: false,
            max_ticks: 20_000_000,
            timing: Timing::default(),
        }
    }
}

/// A configuration built on the Routing Lab's: the lab's own, and the goodput
/// lab's, which sweeps the rate over the same workload and pool. The rows of
/// the Routing Lab's table edit any of them through this.
pub trait AsRouting: Clone + 'static {
    /// The Routing Lab's settings.
    fn routing(&self) -> &Config;
    /// The Routing Lab's settings, to edit.
    fn routing_mut(&mut self) -> &mut Config;
}

impl AsRouting for Config {
    fn routing(&self) -> &Config {
        self
    }
    fn routing_mut(&mut self) -> &mut Config {
        self
    }
}

impl<C: AsRouting> HasRules for C {
    fn rules(&self) -> &RuleSettings {
        &self.routing().rules
    }
    fn rules_mut(&mut self) -> &mut RuleSettings {
        &mut self.routing_mut().rules
    }
}

/// The Routing Lab's rows of a parameter table over any config built on it;
/// every selection rule appends its rows after these.
pub struct Rows<C>(core::marker::PhantomData<C>);

impl<C: AsRouting> Rows<C> {
    /// The pool size, first of the main controls.
    pub const HEAD: &'static [Param<C>] = &[Param::<C>::whole(
        "replicas",
        "Replicas",
        "",
        (1, 16, 1),
        |c| c.routing().replicas.into(),
        |c, x| c.routing_mut().replicas = narrow(x),
    )
    .doc("Identical engines in the pool.")];

    /// The arrivals: rate, ramp and clients (the goodput lab sweeps the
    /// rate of steady open-loop arrivals instead).
    pub const RATE: &'static [Param<C>] = &[
        Param::<C>::real(
            "rate",
            "Arrival rate",
            "req/tick",
            (0.01, 2.0, 0.01),
            |c| c.routing().rate,
            |c, x| c.routing_mut().rate = x,
        )
        .doc("Mean arrivals per tick (λ); load stages, when set, bring their own rates.")
        .ticks_only(),
        Param::<C>::real(
            "rps",
            "Arrival rate",
            "req/s",
            (0.01, 1000.0, 0.01),
            |c| c.routing().rps,
            |c, x| c.routing_mut().rps = x,
        )
        .doc("Mean arrivals per second; load stages, when set, bring their own rates.")
        .ms_only(),
        Param::<C>::real(
            "ramp",
            "Load ramp",
            "×",
            (1.0, 40.0, 0.1),
            |c| c.routing().ramp,
            |c, x| c.routing_mut().ramp = x,
        )
        .doc("The rate climbs linearly to this multiple of itself over the trace; 1 keeps it steady. Not used with load stages.")
        .advanced(),
        Param::<C>::text(
            "stages",
            "Load stages",
            (
                "stages as rate×duration separated by commas (e.g. 3x20,10x20): at most 64, rate and duration above 0; empty for the rate and ramp above",
                &["3x20,10x20", "5x60"],
            ),
            |c| stages_text(&c.routing().stages),
            |c, t| {
                c.routing_mut().stages = parse_stages(t)?;
                Ok(())
            },
        )
        .doc("Stages of steady load, each a rate (req/s, or per tick) for a duration (s, or ticks); each starts once the previous one's requests are all answered, as inference-perf runs its stages.")
        .advanced(),
        Param::<C>::whole(
            "clients",
            "Clients",
            "",
            (0, 100_000, 1),
            |c| c.routing().clients.into(),
            |c, x| c.routing_mut().clients = narrow(x),
        )
        .doc("At most this many requests in flight: each waits for a client free of its last answer; 0 for no cap. At a high rate, a closed loop.")
        .advanced(),
        Param::<C>::real(
            "think",
            "Think time",
            "ticks",
            (0.0, 1_000_000.0, 1.0),
            |c| c.routing().think,
            |c, x| c.routing_mut().think = x,
        )
        .doc("Mean pause of a client between an answer and its next request (exponential).")
        .advanced(),
    ];

    /// The workload, engine and run settings.
    pub const REST: &'static [Param<C>] = &[
    Param::<C>::whole(
        "mean-prompt",
        "Mean prompt",
        "tokens",
        (64, 8192, 1),
        |c| c.routing().mean_prompt.into(),
        |c, x| c.routing_mut().mean_prompt = narrow(x),
    )
    .doc("Mean prompt length before clipping."),
    Param::<C>::real(
        "prompt-cv",
        "Prompt-length CV",
        "",
        (0.0, 3.0, 0.05),
        |c| c.routing().prompt_cv,
        |c, x| c.routing_mut().prompt_cv = x,
    )
    .doc("Spread of prompt lengths (log-normal)."),
    Param::<C>::real(
        "long-share",
        "Long requests",
        "",
        (0.0, 1.0, 0.05),
        |c| c.routing().long_share,
        |c, x| c.routing_mut().long_share = x,
    )
    .doc("Share of requests from the long-output class.")
    .show(Show::Percent(0)),
    Param::<C>::seed(|c| c.routing().seed, |c, x| c.routing_mut().seed = x),
    Param::<C>::whole(
        "requests",
        "Requests",
        "",
        (1, 200_000, 1),
        |c| c.routing().requests.into(),
        |c, x| c.routing_mut().requests = narrow(x),
    )
    .doc("Requests in the generated trace.")
    .advanced(),
    Param::<C>::real(
        "burstiness",
        "Burstiness",
        "",
        (0.05, 20.0, 0.05),
        |c| c.routing().burstiness,
        |c, x| c.routing_mut().burstiness = x,
    )
    .doc("Gamma shape of inter-arrival times: 1 is Poisson, lower is burstier.")
    .advanced(),
    Param::<C>::whole(
        "prompt-min",
        "Shortest prompt",
        "tokens",
        (1, 8192, 1),
        |c| c.routing().prompt_min.into(),
        |c, x| c.routing_mut().prompt_min = narrow(x),
    )
    .doc("Prompts are clipped to at least this length.")
    .advanced(),
    Param::<C>::whole(
        "prompt-max",
        "Longest prompt",
        "tokens",
        (1, 65_536, 1),
        |c| c.routing().prompt_max.into(),
        |c, x| c.routing_mut().prompt_max = narrow(x),
    )
    .doc("Prompts are clipped to at most this length.")
    .advanced(),
    Param::<C>::real(
        "short-output-mean",
        "Short output",
        "tokens",
        (1.0, 10_000.0, 1.0),
        |c| c.routing().short_output_mean,
        |c, x| c.routing_mut().short_output_mean = x,
    )
    .doc("Mean output of a short request (Gamma).")
    .advanced(),
    Param::<C>::real(
        "short-output-cv",
        "Short output CV",
        "",
        (0.05, 3.0, 0.05),
        |c| c.routing().short_output_cv,
        |c, x| c.routing_mut().short_output_cv = x,
    )
    .doc("Spread of short outputs: standard deviation over mean.")
    .advanced(),
    Param::<C>::real(
        "long-output-mean",
        "Long output",
        "tokens",
        (1.0, 10_000.0, 1.0),
        |c| c.routing().long_output_mean,
        |c, x| c.routing_mut().long_output_mean = x,
    )
    .doc("Mean output of a long request (Gamma).")
    .advanced(),
    Param::<C>::real(
        "long-output-cv",
        "Long output CV",
        "",
        (0.05, 3.0, 0.05),
        |c| c.routing().long_output_cv,
        |c, x| c.routing_mut().long_output_cv = x,
    )
    .doc("Spread of long outputs: standard deviation over mean.")
    .advanced(),
    Param::<C>::whole(
        "prefix-pool",
        "Shared prefixes",
        "",
        (0, 4096, 1),
        |c| c.routing().prefix_pool.into(),
        |c, x| c.routing_mut().prefix_pool = narrow(x),
    )
    .doc("Distinct shared prefixes; 0 disables sharing.")
    .advanced(),
    Param::<C>::real(
        "prefix-zipf",
        "Prefix popularity skew",
        "",
        (0.0, 3.0, 0.05),
        |c| c.routing().prefix_zipf,
        |c, x| c.routing_mut().prefix_zipf = x,
    )
    .doc("Zipf exponent of prefix popularity; 0 makes them equally likely.")
    .advanced(),
    Param::<C>::whole(
        "prefix-variants",
        "Prompts per prefix",
        "",
        (0, 64, 1),
        |c| c.routing().prefix_variants.into(),
        |c, x| c.routing_mut().prefix_variants = narrow(x),
    )
    .doc("Fixed prompts per prefix, so whole prompts repeat; 0 gives each prompt its own tail.")
    .advanced(),
    Param::<C>::real(
        "prefix-cover-min",
        "Prefix covers at least",
        "",
        (0.0, 1.0, 0.05),
        |c| c.routing().prefix_cover_min,
        |c, x| c.routing_mut().prefix_cover_min = x,
    )
    .doc("Smallest share of a prompt its shared prefix covers.")
    .show(Show::Percent(0))
    .advanced(),
    Param::<C>::real(
        "prefix-cover-max",
        "Prefix covers at most",
        "",
        (0.0, 1.0, 0.05),
        |c| c.routing().prefix_cover_max,
        |c, x| c.routing_mut().prefix_cover_max = x,
    )
    .doc("Largest share of a prompt its shared prefix covers.")
    .show(Show::Percent(0))
    .advanced(),
    Param::<C>::whole(
        "slo-ttft",
        "TTFT objective",
        "ticks",
        (1, 10_000, 1),
        |c| c.routing().slo_ttft.into(),
        |c, x| c.routing_mut().slo_ttft = narrow(x),
    )
    .doc("A request meets the SLO when its first token arrives within this many ticks.")
    .ticks_only()
    .advanced(),
    Param::<C>::whole(
        "slo-ms",
        "TTFT objective",
        "ms",
        (1, 600_000, 1),
        |c| c.routing().slo_ms.into(),
        |c, x| c.routing_mut().slo_ms = narrow(x),
    )
    .doc("A request meets the SLO when its first token arrives within this many milliseconds.")
    .ms_only()
    .advanced(),
    Param::<C>::whole(
        "slots",
        "Batch slots",
        "",
        (1, 256, 1),
        |c| c.routing().slots.into(),
        |c, x| c.routing_mut().slots = narrow(x),
    )
    .doc("Sequences one replica runs at once.")
    .advanced(),
    Param::<C>::whole(
        "kv-blocks",
        "KV capacity",
        "blocks",
        (1, 10_000_000, 1),
        |c| c.routing().kv_blocks.into(),
        |c, x| c.routing_mut().kv_blocks = narrow(x),
    )
    .doc("KV-cache blocks per replica.")
    .advanced(),
    Param::<C>::whole(
        "kv-block-tokens",
        "KV block size",
        "tokens",
        (1, 1024, 1),
        |c| c.routing().kv_block_tokens.into(),
        |c, x| c.routing_mut().kv_block_tokens = narrow(x),
    )
    .doc("Tokens per KV block (vLLM's default is 16).")
    .advanced(),
    Param::<C>::whole(
        "prefill-budget",
        "Prefill speed",
        "tokens/tick",
        (1, 1_000_000, 1),
        |c| c.routing().prefill_budget.into(),
        |c, x| c.routing_mut().prefill_budget = narrow(x),
    )
    .doc("Prompt tokens one prefill step computes.")
    .advanced(),
    Param::<C>::whole(
        "cache-tokens",
        "Prefix cache",
        "tokens",
        (0, 10_000_000, 1),
        |c| c.routing().cache_tokens.into(),
        |c, x| c.routing_mut().cache_tokens = narrow(x),
    )
    .doc("Prefix-cache capacity per replica (LRU).")
    .advanced(),
    Param::<C>::switch(
        "cache-in-kv",
        "Prefix cache in free KV",
        |c| c.routing().cache_in_kv,
        |c, x| c.routing_mut().cache_in_kv = x,
    )
    .doc("The prefix cache holds only the KV running sequences leave free, as vLLM's does.")
    .advanced(),
    Param::<C>::whole(
        "host-cache-tokens",
        "Host-memory tier",
        "tokens",
        (0, 100_000_000, 1),
        |c| c.routing().host_cache_tokens.into(),
        |c, x| c.routing_mut().host_cache_tokens = narrow(x),
    )
    .doc("Tokens of KV a replica keeps in host memory under its prefix cache (0: none); a prefix evicted from the accelerator comes back over the host link instead of being computed again.")
    .advanced(),
    Param::<C>::whole(
        "host-tokens-per-tick",
        "Host link",
        "tokens/tick",
        (0, 100_000_000, 1),
        |c| c.routing().host_tokens_per_tick.into(),
        |c, x| c.routing_mut().host_tokens_per_tick = narrow(x),
    )
    .doc("Prompt tokens a tick the host link moves into accelerator memory (0: the tier is off); a transfer never costs more than the prefill it replaces.")
    .advanced(),
    Param::<C>::whole(
        "hash-block-tokens",
        "Hash block size",
        "tokens",
        (1, 4096, 1),
        |c| c.routing().hash_block_tokens.into(),
        |c, x| c.routing_mut().hash_block_tokens = narrow(x),
    )
    .doc("Tokens per prefix hash block of generated traces.")
    .advanced(),
    Param::<C>::text(
        "speeds",
        "Replica speeds",
        (
            "speeds 0.25–4 separated by commas, first replica first (e.g. 2,1,1,1); empty for all 1",
            &["2", "1,1,1,2", "0.5,4"],
        ),
        |c| speeds_text(&c.routing().speeds),
        |c, t| {
            c.routing_mut().speeds = parse_speeds(t)?;
            Ok(())
        },
    )
    .doc("Iterations per tick of each replica: a 2 makes that replica twice as fast; entries past the pool size are ignored."),
    Param::<C>::whole(
        "scale-up-at",
        "Scale up at",
        "tick",
        (0, 1_000_000, 1),
        |c| c.routing().scale_up_at,
        |c, x| c.routing_mut().scale_up_at = x,
    )
    .doc("At this tick one more replica (speed 1, cold cache) joins the pool; 0 for none.")
    .advanced(),
    Param::<C>::switch(
        "counterfactuals",
        "Record what every other rule would have picked",
        |c| c.routing().counterfactuals,
        |c, x| c.routing_mut().counterfactuals = x,
    )
    .doc("For every decision, ask each other rule where it would have sent the request.")
    .advanced(),
    Param::<C>::whole(
        "gateways",
        "Gateways",
        "",
        (1, 16, 1),
        |c| c.routing().gateways.into(),
        |c, x| c.routing_mut().gateways = narrow(x),
    )
    .doc("Copies of the gateway, each with its own router state; each sees a share of the traffic.")
    .advanced(),
    Param::<C>::choice(
        "gateway-spread",
        "Requests reach the gateways",
        gateway_spreads,
        |c| if c.routing().gateway_random { "random" } else { "in-turn" },
        |c, x| c.routing_mut().gateway_random = x == "random",
    )
    .doc("How requests are spread over the copies of the gateway (with one copy, no matter).")
    .advanced(),
    Param::<C>::whole(
        "max-ticks",
        "Tick cap",
        "ticks",
        (1, 100_000_000, 1),
        |c| c.routing().max_ticks,
        |c, x| c.routing_mut().max_ticks = x,
    )
    .doc("A run stops here; unfinished requests are reported outstanding.")
    .advanced(),
    ];
}

impl<C: AsRouting> Rows<C> {
    /// The time mode: ticks, or milliseconds from a GPU and model preset
    /// (`crate::hardware`).
    pub const TIME: &'static [Param<C>] = &[
    Param::<C>::choice(
        "gpu",
        "GPU",
        Timing::gpu_options,
        |c| c.routing().timing.gpu_name(),
        |c, x| c.routing_mut().timing.set_gpu(x),
    )
    .doc("None keeps time in ticks; a GPU prices every engine iteration in milliseconds from its datasheet and the model's shape (then every time setting in ticks is read in milliseconds)."),
    Param::<C>::choice(
        "model",
        "Model",
        Model::options,
        |c| c.routing().timing.model.name(),
        |c, x| {
            if let Some(m) = Model::from_name(x) {
                c.routing_mut().timing.model = m;
            }
        },
    )
    .doc("The model every replica serves (milliseconds mode).")
    .ms_only(),
    Param::<C>::whole(
        "tp",
        "Tensor parallel",
        "GPUs",
        (1, 8, 1),
        |c| c.routing().timing.tp.into(),
        |c, x| c.routing_mut().timing.tp = narrow(x),
    )
    .doc("GPUs per replica, splitting weights, KV and FLOPs, with two all-reduces per layer (milliseconds mode).")
    .ms_only(),
    Param::<C>::choice(
        "precision",
        "Precision",
        Precision::options,
        |c| c.routing().timing.precision.name(),
        |c, x| {
            if let Some(p) = Precision::from_name(x) {
                c.routing_mut().timing.precision = p;
            }
        },
    )
    .doc("Weight precision; the KV cache stays BF16 unless KV in FP8 is on (milliseconds mode).")
    .advanced()
    .ms_only(),
    Param::<C>::switch(
        "kv-fp8",
        "KV cache in FP8",
        |c| c.routing().timing.kv_fp8,
        |c, x| c.routing_mut().timing.kv_fp8 = x,
    )
    .doc("Half the bytes per token of KV: twice the tokens fit (milliseconds mode).")
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "compute-eff",
        "Compute efficiency",
        "",
        (0.05, 1.0, 0.01),
        |c| c.routing().timing.compute_eff,
        |c, x| c.routing_mut().timing.compute_eff = x,
    )
    .doc("Share of the GPU's peak FLOP rate an iteration reaches (milliseconds mode).")
    .show(Show::Percent(0))
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "bandwidth-eff",
        "Bandwidth efficiency",
        "",
        (0.05, 1.0, 0.01),
        |c| c.routing().timing.bandwidth_eff,
        |c, x| c.routing_mut().timing.bandwidth_eff = x,
    )
    .doc("Share of the GPU's peak memory bandwidth an iteration reaches (milliseconds mode).")
    .show(Show::Percent(0))
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "alpha",
        "Correction α",
        "×",
        (0.1, 10.0, 0.01),
        |c| c.routing().timing.alpha,
        |c, x| c.routing_mut().timing.alpha = x,
    )
    .doc("Multiplies the roofline time, to match a measured engine (milliseconds mode).")
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "overhead-ms",
        "Overhead per iteration β",
        "ms",
        (0.0, 100.0, 0.1),
        |c| c.routing().timing.overhead_ms,
        |c, x| c.routing_mut().timing.overhead_ms = x,
    )
    .doc("Fixed time every iteration adds: scheduling, sampling, kernel launches (milliseconds mode).")
    .advanced()
    .ms_only(),
    Param::<C>::whole(
        "spec-k",
        "Speculative drafts",
        "tokens",
        (0, 8, 1),
        |c| c.routing().timing.spec.k.into(),
        |c, x| c.routing_mut().timing.spec.k = narrow(x),
    )
    .doc("Speculative decoding: tokens drafted per sequence each iteration, checked in one pass (0: off). A streamed chunk then carries several tokens, so ITL parts from TPOT.")
    .ms_only(),
    Param::<C>::real(
        "spec-accept",
        "Acceptance, prose",
        "",
        (0.0, 1.0, 0.01),
        |c| c.routing().timing.spec.accept,
        |c, x| c.routing_mut().timing.spec.accept = x,
    )
    .doc("Chance a drafted token of prose is kept (until the first miss).")
    .show(Show::Percent(0))
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "spec-accept-structured",
        "Acceptance, structured",
        "",
        (0.0, 1.0, 0.01),
        |c| c.routing().timing.spec.accept_structured,
        |c, x| c.routing_mut().timing.spec.accept_structured = x,
    )
    .doc("The same for structured output (JSON, code), which is easier to guess.")
    .show(Show::Percent(0))
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "structured-share",
        "Structured requests",
        "",
        (0.0, 1.0, 0.01),
        |c| c.routing().timing.spec.structured_share,
        |c, x| c.routing_mut().timing.spec.structured_share = x,
    )
    .doc("Share of requests whose output is structured, drawn per request.")
    .show(Show::Percent(0))
    .advanced()
    .ms_only(),
    Param::<C>::real(
        "draft-cost",
        "Draft cost",
        "× step",
        (0.0, 1.0, 0.01),
        |c| c.routing().timing.spec.draft_cost,
        |c, x| c.routing_mut().timing.spec.draft_cost = x,
    )
    .doc("A drafted token's cost in plain decode steps: about 0.05 for a one-layer head (EAGLE), 0.15–0.2 for a small draft model.")
    .advanced()
    .ms_only(),
    ];
}

/// Engine settings for replaying real traces: their prompts run to tens of
/// thousands of tokens (Mooncake's mean is near 12,000), which the lab's
/// teaching-sized engine (prefill 192 tokens a tick, 600 KV blocks) cannot
/// hold. The page applies them when a reader loads a trace (so they show in
/// the URL); the trace tests and `lblab bench` replay with the same values.
pub const TRACE_ENGINE: &[(&str, &str)] = &[
    ("replicas", "8"),
    ("prefill-budget", "8192"),
    ("kv-blocks", "40000"),
    ("slots", "16"),
    ("cache-tokens", "262144"),
    ("slo-ttft", "50"),
];

/// vLLM's benchmark documentation example of speculative decoding
/// (`docs/benchmarking/cli.md`, "Understanding the Latency Metrics"): the
/// gaps between streamed chunks are 40 ms, so mean ITL is 40 ms, while TPOT
/// is 20 ms a token, because a chunk carries two tokens on average. Here:
/// Llama 3.1 8B in FP8 on one L4, one request in flight at a time, where a
/// plain decode step lasts about 34.5 ms; three drafts a step at acceptance
/// 0.54 give 1.99 tokens a chunk (Leviathan et al. 2023, eq. 1), and
/// drafting at 0.05 of a step each brings a step to about 40 ms.
pub const SPEC_EXAMPLE: &[(&str, &str)] = &[
    ("gpu", "l4"),
    ("model", "llama-3.1-8b"),
    ("precision", "fp8"),
    ("replicas", "1"),
    ("requests", "40"),
    ("clients", "1"),
    ("think", "0"),
    ("mean-prompt", "512"),
    ("prompt-cv", "0"),
    ("long-share", "0"),
    ("short-output-mean", "256"),
    ("short-output-cv", "0.05"),
    ("spec-k", "3"),
    ("spec-accept", "0.54"),
    ("draft-cost", "0.05"),
];

/// The lab's own rows, before every rule's.
const OWN: [Param<Config>;
    Rows::<Config>::HEAD.len()
        + Rows::<Config>::RATE.len()
        + Rows::<Config>::REST.len()
        + Rows::<Config>::TIME.len()] = crate::params::concat(&[
    Rows::<Config>::HEAD,
    Rows::<Config>::RATE,
    Rows::<Config>::REST,
    Rows::<Config>::TIME,
]);

/// The whole table: the lab's rows, then each rule's, in registry order.
const ALL: [Param<Config>; OWN.len() + rule_rows_len::<Config>()] = with_rule_rows(&OWN);

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &ALL;

    fn cross_check(&self) -> Result<(), ParamError> {
        if self.prompt_max < self.prompt_min {
            return Err(ParamError {
                key: "prompt-max",
                given: self.prompt_max.to_string(),
                problem: Problem::Below("prompt-min"),
            });
        }
        if self.prefix_cover_max < self.prefix_cover_min {
            return Err(ParamError {
                key: "prefix-cover-max",
                given: crate::params::real_text(self.prefix_cover_max),
                problem: Problem::Below("prefix-cover-min"),
            });
        }
        if let Err(e) = self.timing.step_cost() {
            // FP8 where the GPU has none is the precision's fault; a model
            // too big for its GPUs falls back to ticks (no tp in range
            // is sure to fit).
            let fp8 = self.timing.precision == Precision::Fp8
                && self
                    .timing
                    .gpu
                    .is_some_and(|g| g.spec().fp8_flops.is_none());
            let (key, given) = if fp8 {
                ("precision", self.timing.precision.name())
            } else {
                ("gpu", self.timing.gpu_name())
            };
            return Err(ParamError {
                key,
                given: String::from(given),
                problem: Problem::Unfit(e.0),
            });
        }
        Ok(())
    }
}

/// Most entries of the speeds list (the largest pool).
pub const MAX_SPEEDS: usize = 16;

/// The `gateway-spread` options.
fn gateway_spreads() -> Vec<crate::params::Opt> {
    alloc::vec![
        crate::params::Opt {
            name: "in-turn",
            title: "Each in turn",
            doc: "Request k reaches copy k mod N, as round-robin connection spreading does.",
        },
        crate::params::Opt {
            name: "random",
            title: "A random copy",
            doc: "Each request reaches a copy drawn at random.",
        },
    ]
}

/// Most load stages.
pub const MAX_STAGES: usize = 64;

/// Stages in their text form: `3x20,10x20` (empty for none).
fn stages_text(stages: &[[f64; 2]]) -> String {
    let parts: Vec<String> = stages
        .iter()
        .map(|[r, d]| {
            alloc::format!(
                "{}x{}",
                crate::params::real_text(*r),
                crate::params::real_text(*d)
            )
        })
        .collect();
    parts.join(",")
}

/// Parse `3x20,10x20`: 1–64 stages of a rate and a duration, both above 0
/// (and at most a million), or empty for none.
pub fn parse_stages(text: &str) -> Result<Vec<[f64; 2]>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    let why =
        || String::from("empty, or 1–64 stages rate×duration (e.g. 3x20,10x20), each above 0");
    let num = |x: &str| crate::params::real(x).filter(|v| v.is_finite() && *v > 0.0 && *v <= 1e6);
    let stages: Vec<[f64; 2]> = t
        .split(',')
        .map(|s| {
            let (r, d) = s.split_once(['x', '×'])?;
            Some([num(r)?, num(d)?])
        })
        .collect::<Option<_>>()
        .ok_or_else(why)?;
    if stages.len() > MAX_STAGES {
        return Err(why());
    }
    Ok(stages)
}

/// Speeds in their text form: `2,1,1,1` (empty for none).
fn speeds_text(speeds: &[f64]) -> String {
    let parts: Vec<String> = speeds
        .iter()
        .map(|x| crate::params::real_text(*x))
        .collect();
    parts.join(",")
}

/// Parse `2,1,1,1`: 1–16 speeds from 0.25 to 4, or empty for none.
pub fn parse_speeds(text: &str) -> Result<Vec<f64>, String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(Vec::new());
    }
    let why = || String::from("empty, or 1–16 speeds from 0.25 to 4 separated by commas");
    let speeds: Vec<f64> = t
        .split(',')
        .map(crate::params::real)
        .map(|x| x.filter(|v| v.is_finite() && (0.25..=4.0).contains(v)))
        .collect::<Option<_>>()
        .ok_or_else(why)?;
    if speeds.len() > MAX_SPEEDS {
        return Err(why());
    }
    Ok(speeds)
}

impl Config {
    /// Mean arrivals per tick of the clock: `rate` in ticks, `rps` / 1000
    /// in milliseconds mode (a tick is a millisecond).
    pub fn arrivals_per_tick(&self) -> f64 {
        if self.timing.in_ms() {
            self.rps / 1000.0
        } else {
            self.rate
        }
    }

    /// The load stages as (arrivals per tick, requests sent), in order
    /// (empty without stages). A stage sends `⌊rate × duration⌋` requests,
    /// as inference-perf's `run_stage` does, and at least one.
    pub fn stage_plan(&self) -> Vec<(f64, u32)> {
        let per_tick = if self.timing.in_ms() {
            1.0 / 1000.0
        } else {
            1.0
        };
        self.stages
            .iter()
            .map(|&[rate, duration]| {
                (
                    rate * per_tick,
                    (libm::floor(rate * duration) as u32).max(1),
                )
            })
            .collect()
    }

    /// The first request of each load stage after the first, for a run of
    /// `n` requests (empty without stages; a stage past `n` is not sent).
    /// The run holds each of these until the stages before are answered.
    pub fn stage_starts(&self, n: usize) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut sent = 0usize;
        for (_, count) in self.stage_plan() {
            sent += count as usize;
            if sent >= n {
                break;
            }
            starts.push(sent);
        }
        starts
    }

    /// The TTFT objective in ticks of the clock.
    pub fn slo_ticks(&self) -> u64 {
        if self.timing.in_ms() {
            u64::from(self.slo_ms)
        } else {
            u64::from(self.slo_ttft)
        }
    }

    /// Speed of replica `i` (1 past the end of the list).
    pub fn speed(&self, i: usize) -> f64 {
        self.speeds.get(i).copied().unwrap_or(1.0)
    }

    /// The workload generator's view of this config.
    pub fn generator(&self) -> GeneratorSpec {
        GeneratorSpec {
            requests: self.requests,
            rate: self.arrivals_per_tick(),
            ramp: self.ramp,
            stages: self.stage_plan(),
            burstiness: self.burstiness,
            mean_prompt: f64::from(self.mean_prompt),
            prompt_cv: self.prompt_cv,
            prompt_min: self.prompt_min,
            prompt_max: self.prompt_max,
            long_share: self.long_share,
            short_output_mean: self.short_output_mean,
            short_output_cv: self.short_output_cv,
            long_output_mean: self.long_output_mean,
            long_output_cv: self.long_output_cv,
            prefix_pool: self.prefix_pool,
            prefix_zipf: self.prefix_zipf,
            prefix_variants: self.prefix_variants,
            prefix_cover_min: self.prefix_cover_min,
            prefix_cover_max: self.prefix_cover_max,
            block_tokens: self.hash_block_tokens,
        }
    }

    /// The defaults with [`TRACE_ENGINE`] applied: the engine real traces
    /// replay on.
    pub fn for_traces() -> Config {
        let (config, errors) = crate::params::from_pairs::<Config>(TRACE_ENGINE.iter().copied());
        debug_assert!(errors.is_empty(), "TRACE_ENGINE is in range: {errors:?}");
        config
    }

    /// What the pool can do, for a trace import's utilisation estimate (the
    /// scale-up replica is not counted).
    pub fn capacity(&self) -> crate::workload::trace::Capacity {
        crate::workload::trace::Capacity {
            replicas: self.replicas,
            slots: self.slots,
            prefill_budget: self.prefill_budget,
        }
    }

    /// The step costs of milliseconds mode (`None` in ticks, or for a
    /// preset `cross_check` refuses).
    pub fn step_cost(&self) -> Option<crate::hardware::StepCost> {
        self.timing.step_cost().ok().flatten()
    }

    /// A fresh replica of this config's engine (in milliseconds mode,
    /// priced by its preset), running `speed` iterations per tick and
    /// joining the pool at `at`.
    pub fn replica(
        &self,
        block_tokens: u32,
        speed: f64,
        at: crate::time::Tick,
    ) -> crate::engine::Replica {
        let r = crate::engine::Replica::new(self.engine(), block_tokens)
            .with_speed(speed)
            .joined(at);
        match self.step_cost() {
            Some(c) => r.with_cost(c).with_speculation(self.timing.spec, self.seed),
            None => r,
        }
    }

    /// The engine constants of this config.
    pub fn engine(&self) -> EngineSpec {
        EngineSpec {
            slots: self.slots,
            // With a GPU preset, the KV its memory holds after the weights.
            kv_blocks: match self.timing.preset() {
                Some(p) => p.kv_blocks(self.kv_block_tokens),
                None => self.kv_blocks,
            },
            kv_block_tokens: self.kv_block_tokens,
            prefill_budget: self.prefill_budget,
            cache_tokens: self.cache_tokens,
            cache_in_kv: self.cache_in_kv,
            host_cache_tokens: self.host_cache_tokens,
            host_tokens_per_tick: self.host_tokens_per_tick,
            shared_tokens_per_tick: 0,
        }
    }
}
