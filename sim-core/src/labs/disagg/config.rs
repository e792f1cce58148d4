//! The disaggregation lab's settings, its setups and its decode routers.

use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::hardware::{Gpu, Model, Precision, Preset};
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};

crate::choices! {
    /// Where a request's prefill runs.
    pub enum Setup {
        /// Every GPU prefills and decodes, prefill chunks sharing steps with decodes.
        Colocated = ("colocated", "Colocated", "Every GPU both prefills and decodes; a prompt's chunks share steps with the batch's decodes."),
        /// Every prefill on the prefill pool, its KV sent to the decode pool.
        Disagg = ("disagg", "Disaggregated", "Every prompt is prefilled on the prefill pool and its KV sent over the link to a decode GPU."),
        /// Dynamo's `isl_bounding`: prefill locally when little of the prompt is new.
        Isl = ("isl", "Conditional: input length", "Prefill on the decode GPU when the prompt's uncached part is short and a small share of it (Dynamo's isl_bounding)."),
        /// Dynamo's `prefill_load`: prefill locally when the prefill GPU is busy.
        Load = ("load", "Conditional: prefill load", "Prefill on the decode GPU when the prefill GPU it would use is busy (Dynamo's prefill_load)."),
        /// Dynamo's `isl_or_load`: either condition.
        IslOrLoad = ("isl-or-load", "Conditional: either", "Prefill on the decode GPU when either condition holds (Dynamo's isl_or_load)."),
    }
}

impl Setup {
    /// Whether the setup splits the GPUs into a prefill and a decode pool.
    pub fn split(self) -> bool {
        self != Setup::Colocated
    }

    /// Whether the setup decides per request where to prefill.
    pub fn conditional(self) -> bool {
        matches!(self, Setup::Isl | Setup::Load | Setup::IslOrLoad)
    }
}

crate::choices! {
    /// How the decode pool's router weighs a GPU that already caches the prompt's prefix.
    pub enum DecodeRouter {
        /// As Dynamo does: load only under plain disaggregation, prefix credit under conditional.
        Dynamo = ("dynamo", "As Dynamo", "Load only when every prefill is remote; prefix credit when a prefill may run on the decode GPU."),
        /// The least loaded decode GPU, whatever it caches.
        Load = ("load", "Load only", "The decode GPU holding the fewest KV tokens, whatever it caches."),
        /// Load less the tokens of the prompt the GPU caches.
        Prefix = ("prefix", "Prefix credit", "KV tokens held less the prompt tokens the GPU already caches."),
    }
}

/// The disaggregation lab's configuration; ranges are in [`Config::PARAMS`].
/// Times are in milliseconds, priced by the GPU and model presets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// The accelerator of every GPU.
    pub gpu: Gpu,
    /// The model, in BF16.
    pub model: Model,
    /// GPUs per engine (tensor parallel).
    pub tp: u32,
    /// Engines of the prefill pool when split.
    pub prefill: u32,
    /// Engines of the decode pool when split (colocated, all `prefill +
    /// decode` engines do both).
    pub decode: u32,
    /// Arrivals per second (Poisson).
    pub rate: f64,
    /// Mean prompt length, tokens (log-normal around it).
    pub prompt: u32,
    /// Share of the mean prompt that is a shared prefix (system prompt, history).
    pub shared: f64,
    /// Distinct shared prefixes, equally popular.
    pub groups: u32,
    /// Mean output length, tokens.
    pub output: u32,
    /// Tokens one engine step may process (vLLM's `max_num_batched_tokens`).
    pub chunk: u32,
    /// Link bandwidth out of each prefill GPU, GB/s.
    pub bandwidth: f64,
    /// Fixed cost of a remote prefill, ms: the second request, the transfer's set-up.
    pub hop: f64,
    /// `isl_bounding`: effective input length must be below this many tokens.
    pub isl_threshold: u32,
    /// `isl_bounding`: effective over raw input length must be below this.
    pub isl_ratio: f64,
    /// `prefill_load`: a prefill GPU is busy with more than this many steps' worth of prompt tokens queued.
    pub busy: f64,
    /// The decode pool's router.
    pub decode_router: DecodeRouter,
    /// Shared prefixes one GPU's cache holds (least recently used goes first).
    pub cache: u32,
    /// Requests simulated per setup and prompt length.
    pub requests: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

/// Eight H100s serving Llama 3.1 8B, one engine each, two of them
/// prefilling when split; a
/// 200 Gb/s link per GPU; prompts of 2,000 tokens half made of one of 16
/// shared prefixes; Dynamo's default thresholds.
impl Default for Config {
    // Not inlined, as every lab config's (each inlined copy costs the bundle).
    #[inline(never)]
    fn default() -> Self {
        Config {
            gpu: Gpu::H100,
            model: Model::Llama31_8b,
            tp: 1,
            prefill: 2,
            decode: 6,
            rate: 10.0,
            prompt: 2000,
            shared: 0.5,
            groups: 16,
            output: 256,
            chunk: 2048,
            bandwidth: 25.0,
            hop: 5.0,
            isl_threshold: 2048,
            isl_ratio: 0.7,
            busy: 2.0,
            decode_router: DecodeRouter::Dynamo,
            cache: 8,
            requests: 1000,
            seed: 1,
        }
    }
}

impl Config {
    /// The GPU and model as a preset (BF16, one GPU per engine).
    pub fn preset(&self) -> Preset {
        let t = crate::hardware::Timing::default();
        Preset {
            gpu: self.gpu,
            model: self.model,
            tp: self.tp,
            precision: Precision::Bf16,
            kv_fp8: false,
            compute_eff: t.compute_eff,
            bandwidth_eff: t.bandwidth_eff,
            alpha: t.alpha,
            overhead_ms: t.overhead_ms,
        }
    }

    /// Tokens of the shared prefix every prompt of a group starts with.
    pub fn prefix_tokens(&self) -> u32 {
        (f64::from(self.prompt) * self.shared) as u32
    }
}

/// Shorthand for the table below.
type P = Param<Config>;

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("rate", "Arrival rate", "req/s", (0.1, 200.0, 0.1), |c| c.rate, |c, x| c.rate = x)
            .doc("Requests per second (Poisson), the same for every setup."),
        P::whole("prompt", "Mean prompt", "tokens", (64, 65_536, 64), |c| c.prompt.into(), |c, x| c.prompt = narrow(x))
            .doc("Mean prompt length (log-normal around it); the table is at this length, the chart sweeps it."),
        P::real("bandwidth", "Link bandwidth", "GB/s", (0.5, 900.0, 0.5), |c| c.bandwidth, |c, x| c.bandwidth = x)
            .doc("Bytes per second out of each prefill GPU for the KV it sends (25 GB/s is one 200 Gb/s NIC; NVLink is 450)."),
        P::whole("prefill", "Prefill engines", "", (1, 16, 1), |c| c.prefill.into(), |c, x| c.prefill = narrow(x))
            .doc("Engines that only prefill when the pool is split; colocated, every engine does both."),
        P::whole("decode", "Decode engines", "", (1, 16, 1), |c| c.decode.into(), |c, x| c.decode = narrow(x))
            .doc("Engines that decode when the pool is split."),
        P::choice("decode-router", "Decode router", DecodeRouter::options, |c| c.decode_router.name(), |c, x| {
            if let Some(r) = DecodeRouter::from_name(x) {
                c.decode_router = r;
            }
        })
        .doc("How the decode pool's router weighs a GPU that already caches the prompt's prefix."),
        P::whole("tp", "GPUs per engine", "", (1, 8, 1), |c| c.tp.into(), |c, x| c.tp = narrow(x))
            .doc("Tensor parallel: each engine splits the weights, KV and work over this many GPUs.")
            .advanced(),
        P::choice("gpu", "GPU", Gpu::options, |c| c.gpu.name(), |c, x| {
            if let Some(g) = Gpu::from_name(x) {
                c.gpu = g;
            }
        })
        .doc("The accelerator; steps are priced from its datasheet and the model's shape.")
        .advanced(),
        P::choice("model", "Model", Model::options, |c| c.model.name(), |c, x| {
            if let Some(m) = Model::from_name(x) {
                c.model = m;
            }
        })
        .doc("The model every engine serves, in BF16; its KV bytes per token set the transfer.")
        .advanced(),
        P::real("shared", "Shared prefix", "", (0.0, 0.95, 0.05), |c| c.shared, |c, x| c.shared = x)
            .doc("Share of the mean prompt that is one of the shared prefixes (system prompt, conversation so far).")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("groups", "Shared prefixes", "", (1, 1000, 1), |c| c.groups.into(), |c, x| c.groups = narrow(x))
            .doc("Distinct shared prefixes, equally popular.")
            .advanced(),
        P::whole("output", "Mean output", "tokens", (2, 4096, 1), |c| c.output.into(), |c, x| c.output = narrow(x))
            .doc("Mean output length (log-normal around it).")
            .advanced(),
        P::whole("chunk", "Tokens per step", "", (256, 16_384, 256), |c| c.chunk.into(), |c, x| c.chunk = narrow(x))
            .doc("Tokens one engine step may process (vLLM's max_num_batched_tokens): decodes first, then prompt chunks.")
            .advanced(),
        P::real("hop", "Remote prefill overhead", "ms", (0.0, 200.0, 0.5), |c| c.hop, |c, x| c.hop = x)
            .doc("Fixed time a remote prefill adds besides the bytes: the second request, the transfer's set-up.")
            .advanced(),
        P::whole("isl-threshold", "Input length threshold", "tokens", (0, 65_536, 64), |c| c.isl_threshold.into(), |c, x| c.isl_threshold = narrow(x))
            .doc("Input-length rule: prefill locally only when fewer uncached prompt tokens than this (Dynamo's default 2,048).")
            .advanced(),
        P::real("isl-ratio", "Uncached share threshold", "", (0.0, 1.0, 0.05), |c| c.isl_ratio, |c, x| c.isl_ratio = x)
            .doc("Input-length rule: and only when the uncached share of the prompt is below this (Dynamo's default 70%).")
            .show(Show::Percent(0))
            .advanced(),
        P::real("busy", "Prefill busy threshold", "steps", (0.0, 100.0, 0.5), |c| c.busy, |c, x| c.busy = x)
            .doc("Load rule: a prefill GPU is busy with more than this many steps' worth of prompt tokens queued.")
            .advanced(),
        P::whole("cache", "Prefixes cached", "", (1, 1000, 1), |c| c.cache.into(), |c, x| c.cache = narrow(x))
            .doc("Shared prefixes one GPU keeps (least recently used goes first).")
            .advanced(),
        P::whole("requests", "Requests", "", (100, 5000, 100), |c| c.requests.into(), |c, x| c.requests = narrow(x))
            .doc("Requests simulated for every setup and every prompt length of the sweep.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    /// The preset must fit its GPUs.
    fn cross_check(&self) -> Result<(), ParamError> {
        if let Err(e) = self.preset().step_cost() {
            return Err(ParamError {
                key: "model",
                given: String::from(self.model.name()),
                problem: Problem::Unfit(e.0),
            });
        }
        Ok(())
    }
}
