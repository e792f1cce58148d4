//! The time mode of a lab with engines, as its configuration carries it:
//! ticks (no GPU chosen, the article's teaching unit) or milliseconds from a
//! [`Preset`]. In milliseconds one tick of the lab's clock is one
//! millisecond, so every setting read in ticks (arrival rate per tick, the
//! TTFT objective, scale-up time, the tick cap) is read per millisecond.

use serde::{Deserialize, Serialize};

use super::{Gpu, Model, Precision, Preset, PresetError, StepCost};
use crate::choice::Choice;

/// GPU, model and corrections; `gpu: None` keeps the lab in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timing {
    /// The accelerator, or none for ticks (default none).
    pub gpu: Option<Gpu>,
    /// The model (default Llama 3.1 8B).
    pub model: Model,
    /// GPUs per replica, tensor-parallel (1–8; default 1).
    pub tp: u32,
    /// Weight precision (default BF16).
    pub precision: Precision,
    /// KV cache in FP8, as vLLM's `--kv-cache-dtype=fp8` (default off: BF16).
    pub kv_fp8: bool,
    /// Share of peak FLOP rate reached (default 0.5; see the module docs of
    /// [`super`] for why).
    pub compute_eff: f64,
    /// Share of peak memory bandwidth reached (default 0.8).
    pub bandwidth_eff: f64,
    /// Multiplier on the roofline time (default 1).
    pub alpha: f64,
    /// Fixed cost of every iteration, ms (default 1).
    pub overhead_ms: f64,
    /// Speculative decoding (default off; only in milliseconds mode).
    pub spec: crate::engine::Speculation,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            gpu: None,
            model: Model::Llama31_8b,
            tp: 1,
            precision: Precision::Bf16,
            kv_fp8: false,
            compute_eff: 0.5,
            bandwidth_eff: 0.8,
            alpha: 1.0,
            overhead_ms: 1.0,
            spec: crate::engine::Speculation::default(),
        }
    }
}

/// The name of "no GPU" in URLs and flags.
pub const TICKS: &str = "none";

impl Timing {
    /// The preset, in milliseconds mode.
    pub fn preset(&self) -> Option<Preset> {
        self.gpu.map(|gpu| Preset {
            gpu,
            model: self.model,
            tp: self.tp,
            precision: self.precision,
            kv_fp8: self.kv_fp8,
            compute_eff: self.compute_eff,
            bandwidth_eff: self.bandwidth_eff,
            alpha: self.alpha,
            overhead_ms: self.overhead_ms,
        })
    }

    /// Whether times are milliseconds.
    pub fn in_ms(&self) -> bool {
        self.gpu.is_some()
    }

    /// The unit of every time the lab reports: `"ms"` or `"ticks"`.
    pub fn unit(&self) -> &'static str {
        if self.in_ms() {
            "ms"
        } else {
            "ticks"
        }
    }

    /// Ticks per second: what turns a count per tick into one per second
    /// (1,000 in milliseconds mode, where a tick is a millisecond; 1 in
    /// ticks, where counts stay per tick).
    pub fn per_second(&self) -> f64 {
        if self.in_ms() {
            1000.0
        } else {
            1.0
        }
    }

    /// The step costs in milliseconds mode (`Ok(None)` in ticks), or why
    /// the preset cannot run.
    pub fn step_cost(&self) -> Result<Option<StepCost>, PresetError> {
        self.preset().map(|p| p.step_cost()).transpose()
    }

    /// The GPU picker's name.
    pub fn gpu_name(&self) -> &'static str {
        self.gpu.map_or(TICKS, Gpu::name)
    }

    /// Set the GPU from the picker's name (`none` for ticks).
    pub fn set_gpu(&mut self, name: &str) {
        self.gpu = Gpu::from_name(name);
    }

    /// The picker's options: ticks first, then every GPU.
    pub fn gpu_options() -> alloc::vec::Vec<crate::params::Opt> {
        let mut o = alloc::vec![crate::params::Opt {
            name: TICKS,
            title: "None: ticks",
            doc: "Time in ticks, one engine iteration each (the article's unit).",
        }];
        o.extend(Gpu::options());
        o
    }

    /// One line on what the preset implies: prefill tokens per second,
    /// a decode step at batch 1 and at batch 32, and KV capacity (and, with
    /// speculative decoding on, its settings and chunk sizes). `None`
    /// in ticks; the error's words when the preset cannot run.
    pub fn summary(&self, kv_block_tokens: u32) -> Option<alloc::string::String> {
        let p = self.preset()?;
        let spec = self
            .spec
            .summary()
            .map(|s| alloc::format!(". {s}"))
            .unwrap_or_default();
        Some(match p.step_cost() {
            Err(e) => e.0,
            Ok(c) => {
                let prefill = 2048.0 / c.prefill_s(2048.0, 0.0);
                let d1 = c.decode_s(1.0, 1024.0) * 1000.0;
                let d32 = c.decode_s(32.0, 32.0 * 1024.0) * 1000.0;
                alloc::format!(
                    "{} on {}{} in {}: prefill about {} tokens/s; a decode step {:.1} ms at batch 1 and {:.1} ms at batch 32 (1k-token contexts); KV for {} tokens ({} blocks of {})",
                    p.model.title(),
                    if p.tp > 1 { alloc::format!("{} × ", p.tp) } else { alloc::string::String::new() },
                    p.gpu.title(),
                    p.precision.title(),
                    crate::params::thousands(libm::round(prefill) as u64),
                    d1,
                    d32,
                    crate::params::thousands(libm::floor(p.kv_tokens()) as u64),
                    crate::params::thousands(u64::from(p.kv_blocks(kv_block_tokens))),
                    kv_block_tokens
                ) + &spec
            }
        })
    }
}
