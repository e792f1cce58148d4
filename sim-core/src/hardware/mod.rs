//! Milliseconds from hardware and model facts: how long one engine
//! iteration lasts, from what it computes and what it reads, on a GPU preset
//! running a model preset with a tensor-parallel degree.
//!
//! The model is a roofline with a linear correction, the form
//! doublewordai/inference-lab prices a step in (`src/compute/engine.rs`,
//! `time = max(flops / flop_rate, bytes / mem_bw)`, then
//! `t = alpha × t + beta`, `src/config/hardware.rs`):
//!
//! ```text
//! flops = tokens × 2·P/tp + Σ attended context × 4·L·n_q·d/tp
//! bytes = weights/tp + (KV tokens read + tokens written) × kv_per_token/tp
//! step  = alpha × (max(flops / (peak × compute_eff), bytes / (bw × bandwidth_eff)) + comm) + overhead
//! comm  = 2·L all-reduces (after attention and after the MLP, Megatron-LM's
//!         tensor parallelism), each `latency + tokens·hidden·2 B·2(tp−1)/tp / link`
//! ```
//!
//! `P` is the parameter count (2 FLOPs per parameter per token, Kaplan et
//! al. 2020, Table 1), `L` layers, `n_q` query heads of size `d` (attention
//! FLOPs as the FlashAttention benchmark counts them). A prefill chunk of
//! `t` new tokens after `c` already computed attends on average to
//! `c + t/2` (causal), as inference-lab's `attended = computed + ceil(new/2)`.
//! A decode step's new token attends to its whole context and reads its
//! whole KV. Weights are read once per step whatever the batch, which is why
//! decode is bandwidth-bound at small batches and prefill compute-bound.
//!
//! KV capacity follows vLLM's accounting: 90% of each GPU's memory
//! (`gpu_memory_utilization` 0.9) less the weights, split into blocks of
//! `kv_block_tokens` tokens at `kv_per_token` bytes. The KV cache is kept in
//! BF16 for both weight precisions (vLLM's default `kv_cache_dtype`), or in
//! FP8 with `kv_fp8` (vLLM's `--kv-cache-dtype=fp8`): half the bytes, so
//! twice the tokens and half the KV read of a decode step.
//!
//! Why the defaults (measured end-to-end figures, in docs/model.md's sanity
//! table): single-request decode in vLLM reaches 65–77% of the BF16
//! weight-read roofline on H100, A100 and L40 (Red Hat's model cards, vLLM
//! 0.7.2), and STREAM-like copies reach 79–95% of peak bandwidth on H100
//! and A100 (Azure's AI benchmarking guide): `bandwidth_eff` 0.8 with a
//! fixed `overhead` of 1 ms per iteration (scheduling, sampling, launch;
//! the vLLM v0.6.0 blog measured the CPU side of a step at a large share of
//! it) reproduces those single-request figures. Prefill reaches about 45% of
//! the dense peak on H100 (TensorRT-LLM's max-load table for Llama 3.1 8B
//! and 3.3 70B in FP8, NIM's 70B time to first token at 5,000 input
//! tokens): `compute_eff` 0.5.

pub mod gpu;
pub mod model;
pub mod timing;

use alloc::format;
use alloc::string::String;

pub use gpu::{Gpu, GpuSpec};
pub use model::{Model, ModelSpec};
pub use timing::Timing;

use crate::choice::Choice;

crate::choices! {
    /// Weight precision.
    pub enum Precision {
        /// 16-bit brain floating point: 2 bytes a weight.
        Bf16 = ("bf16", "BF16", "2 bytes a weight; every preset GPU runs it."),
        /// 8-bit floating point: 1 byte a weight and twice the tensor rate.
        Fp8 = ("fp8", "FP8", "1 byte a weight, twice the tensor rate; not on A100."),
    }
}

/// Share of each GPU's memory the engine may use (vLLM's
/// `gpu_memory_utilization` default).
pub const MEMORY_SHARE: f64 = 0.9;

/// Bytes of one activation element crossing the link (BF16).
const ACT_BYTES: f64 = 2.0;

/// Bytes of one KV element (BF16, vLLM's default KV dtype).
const KV_BYTES: f64 = 2.0;

/// Bytes of one KV element in FP8.
const KV_FP8_BYTES: f64 = 1.0;

/// The hardware, model and corrections behind a run in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Preset {
    /// The accelerator.
    pub gpu: Gpu,
    /// The model.
    pub model: Model,
    /// Tensor-parallel degree: GPUs per replica.
    pub tp: u32,
    /// Weight precision.
    pub precision: Precision,
    /// KV cache in FP8 rather than BF16.
    pub kv_fp8: bool,
    /// Share of the peak FLOP rate reached (0–1).
    pub compute_eff: f64,
    /// Share of the peak memory bandwidth reached (0–1).
    pub bandwidth_eff: f64,
    /// Multiplier on the roofline time (alpha of the linear correction).
    pub alpha: f64,
    /// Fixed cost of every iteration, in milliseconds (beta).
    pub overhead_ms: f64,
}

/// A preset that cannot run.
#[derive(Clone, Debug, PartialEq)]
pub struct PresetError(pub String);

/// The per-step constants of a preset, computed once per run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepCost {
    /// Seconds per FLOP one GPU takes (the reciprocal of the rate it
    /// reaches: a step is priced thousands of times a run, and a multiply
    /// is far cheaper than a divide).
    per_flop: f64,
    /// Seconds per byte one GPU moves.
    per_byte: f64,
    /// Weight bytes per GPU.
    weight_bytes: f64,
    /// KV bytes per token per GPU.
    kv_bytes: f64,
    /// Linear FLOPs per token per GPU.
    linear: f64,
    /// Attention FLOPs per (token × context token) per GPU.
    attention: f64,
    /// All-reduces per step (0 without tensor parallelism).
    reduces: f64,
    /// Seconds per all-reduce before its bytes.
    reduce_latency: f64,
    /// Seconds per token per all-reduce.
    reduce_per_token: f64,
    alpha: f64,
    overhead_s: f64,
}

impl Preset {
    /// The step costs, or why this preset cannot run.
    pub fn step_cost(&self) -> Result<StepCost, PresetError> {
        self.step_cost_of(&self.model.spec())
    }

    /// The step costs of this GPU, parallelism and corrections running a
    /// model of shape `m` instead of the preset's (for reference models a
    /// published figure was measured on).
    pub fn step_cost_of(&self, m: &ModelSpec) -> Result<StepCost, PresetError> {
        let g = self.gpu.spec();
        let tp = f64::from(self.tp.max(1));
        let (peak, weight_bytes) = match self.precision {
            Precision::Bf16 => (g.bf16_flops, 2.0),
            Precision::Fp8 => match g.fp8_flops {
                Some(f) => (f, 1.0),
                None => {
                    return Err(PresetError(format!(
                        "{} has no FP8 tensor cores; choose precision bf16",
                        self.gpu.title()
                    )))
                }
            },
        };
        let reduces = if self.tp > 1 {
            2.0 * f64::from(m.layers)
        } else {
            0.0
        };
        let cost = StepCost {
            per_flop: 1.0 / (peak * self.compute_eff),
            per_byte: 1.0 / (g.mem_bw * self.bandwidth_eff),
            weight_bytes: m.params * weight_bytes / tp,
            kv_bytes: m.kv_bytes_per_token(self.kv_element()) / tp,
            linear: 2.0 * m.params / tp,
            attention: m.attention_flops(1.0) / tp,
            reduces,
            reduce_latency: g.collective_latency_s,
            reduce_per_token: f64::from(m.hidden) * ACT_BYTES * 2.0 * (tp - 1.0) / tp / g.link_bw,
            alpha: self.alpha,
            overhead_s: self.overhead_ms / 1000.0,
        };
        if self.kv_tokens_of(m) < 1.0 {
            return Err(PresetError(format!(
                "{} in {} needs {:.0} GB of weights, more than {} × {} leaves ({:.0} GB at {:.0}% of memory); raise tp or use fp8",
                self.model.title(),
                self.precision.title(),
                m.params * weight_bytes / 1e9,
                self.tp,
                self.gpu.title(),
                tp * g.mem_bytes * MEMORY_SHARE / 1e9,
                MEMORY_SHARE * 100.0)));
        }
        Ok(cost)
    }

    /// Tokens of KV the replica's GPUs hold once the weights are loaded.
    pub fn kv_tokens(&self) -> f64 {
        self.kv_tokens_of(&self.model.spec())
    }

    fn kv_tokens_of(&self, m: &ModelSpec) -> f64 {
        let g = self.gpu.spec();
        let tp = f64::from(self.tp.max(1));
        let weight_bytes = match self.precision {
            Precision::Bf16 => 2.0,
            Precision::Fp8 => 1.0,
        };
        let free = tp * g.mem_bytes * MEMORY_SHARE - m.params * weight_bytes;
        (free / m.kv_bytes_per_token(self.kv_element())).max(0.0)
    }

    /// Bytes of one KV element.
    fn kv_element(&self) -> f64 {
        if self.kv_fp8 {
            KV_FP8_BYTES
        } else {
            KV_BYTES
        }
    }

    /// KV capacity in blocks of `block_tokens` tokens.
    pub fn kv_blocks(&self, block_tokens: u32) -> u32 {
        let blocks = libm::floor(self.kv_tokens() / f64::from(block_tokens.max(1)));
        blocks.min(f64::from(u32::MAX)) as u32
    }
}

impl StepCost {
    /// Seconds one iteration takes: `tokens` new tokens (prompt tokens
    /// prefilled, or one per decoding sequence), `attended` the sum over
    /// those tokens of the context each attends to, `kv_read` KV tokens read.
    pub fn step_s(&self, tokens: f64, attended: f64, kv_read: f64) -> f64 {
        let flops = tokens * self.linear + attended * self.attention;
        let bytes = self.weight_bytes + (kv_read + tokens) * self.kv_bytes;
        let roof = (flops * self.per_flop).max(bytes * self.per_byte);
        let comm = self.reduces * (self.reduce_latency + tokens * self.reduce_per_token);
        self.alpha * (roof + comm) + self.overhead_s
    }

    /// One prefill step of a single prompt chunk: `new` tokens after
    /// `computed` already in the KV cache.
    pub fn prefill_s(&self, new: f64, computed: f64) -> f64 {
        self.step_s(new, new * (computed + new / 2.0), computed)
    }

    /// One decode step of `batch` sequences whose contexts sum to `context` tokens.
    pub fn decode_s(&self, batch: f64, context: f64) -> f64 {
        self.step_s(batch, context, context)
    }
}
