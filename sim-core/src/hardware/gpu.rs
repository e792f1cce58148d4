//! Accelerator presets: datasheet peaks, dense (without 2:4 sparsity; where
//! a datasheet quotes only the sparse figure it is halved).
//!
//! Sources, per GPU:
//! - H100 SXM5 80 GB: NVIDIA H100 Tensor Core GPU datasheet (BF16 1,979 and
//!   FP8 3,958 TFLOP/s "with sparsity", HBM3 3.35 TB/s, NVLink 900 GB/s
//!   both directions); dense figures as in doublewordai/inference-lab
//!   `catalog/hardware/h100.toml` (flops_bf16 9.895e14, flops_fp8 1.979e15).
//! - A100 SXM4 80 GB: NVIDIA A100 datasheet (BF16 312 dense, HBM2e
//!   2,039 GB/s, NVLink 600 GB/s both directions); Ampere has no FP8 tensor
//!   cores (NVIDIA Transformer Engine support matrix: compute capability 8.0
//!   "FP8: No").
//! - L4 24 GB: NVIDIA L4 datasheet (FP16 242 and FP8 485 TFLOP/s with
//!   sparsity, GDDR6 300 GB/s, PCIe Gen4 x16, no NVLink).
//! - L40S 48 GB: NVIDIA L40S datasheet (BF16 733 and FP8 1,466 with
//!   sparsity, GDDR6 864 GB/s, PCIe Gen4 x16 64 GB/s both directions, no NVLink).
//! - MI300X 192 GB: AMD Instinct MI300X data sheet (BF16 1,307.4 and FP8
//!   2,614.9 TFLOP/s dense, HBM3 5.3 TB/s, Infinity Fabric 7 links of
//!   128 GB/s).
//!
//! All-reduce latency is no datasheet figure: 8 µs on NVLink (NCCL's
//! small-message all-reduce within a node is of that order; inference-lab
//! prices a scale-up hop at 5 µs), 10 µs on A100's older NVLink, 20 µs over
//! PCIe, and 25 µs on MI300X's Infinity Fabric, the last chosen so eight-way
//! decode matches AMD's published single-request Llama 3.1 70B figure
//! (docs/model.md's sanity table says how close).

/// One accelerator's peaks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuSpec {
    /// Dense BF16 tensor rate, FLOP/s.
    pub bf16_flops: f64,
    /// Dense FP8 tensor rate, FLOP/s (`None`: no FP8 tensor cores).
    pub fp8_flops: Option<f64>,
    /// Memory bandwidth, bytes/s.
    pub mem_bw: f64,
    /// Memory capacity, bytes.
    pub mem_bytes: f64,
    /// One direction of the GPU-to-GPU link tensor parallelism uses, bytes/s
    /// (NVLink, Infinity Fabric, or PCIe where there is no such link).
    pub link_bw: f64,
    /// Seconds one all-reduce of a small message takes on that link, before
    /// its bytes: what makes tensor parallelism cost time at batch 1.
    pub collective_latency_s: f64,
}

crate::choices! {
    /// The accelerator presets.
    pub enum Gpu {
        /// NVIDIA H100 SXM5 80 GB.
        H100 = ("h100", "H100 SXM 80GB", "Hopper, HBM3 3.35 TB/s, NVLink; FP8 and BF16."),
        /// NVIDIA A100 SXM4 80 GB.
        A100 = ("a100", "A100 80GB", "Ampere, HBM2e 2.0 TB/s, NVLink; BF16 only (no FP8)."),
        /// NVIDIA L4 24 GB.
        L4 = ("l4", "L4 24GB", "Ada, GDDR6 300 GB/s, PCIe only; FP8 and BF16."),
        /// NVIDIA L40S 48 GB.
        L40s = ("l40s", "L40S 48GB", "Ada, GDDR6 864 GB/s, PCIe only; FP8 and BF16."),
        /// AMD Instinct MI300X 192 GB.
        Mi300x = ("mi300x", "MI300X 192GB", "CDNA 3, HBM3 5.3 TB/s, Infinity Fabric; FP8 and BF16."),
    }
}

impl Gpu {
    /// Its datasheet peaks.
    pub const fn spec(self) -> GpuSpec {
        const T: f64 = 1e12;
        const G: f64 = 1e9;
        match self {
            Gpu::H100 => GpuSpec {
                bf16_flops: 989.4 * T,
                fp8_flops: Some(1978.9 * T),
                mem_bw: 3350.0 * G,
                mem_bytes: 80.0 * G,
                link_bw: 450.0 * G,
                collective_latency_s: 8e-6,
            },
            Gpu::A100 => GpuSpec {
                bf16_flops: 312.0 * T,
                fp8_flops: None,
                mem_bw: 2039.0 * G,
                mem_bytes: 80.0 * G,
                link_bw: 300.0 * G,
                collective_latency_s: 10e-6,
            },
            Gpu::L4 => GpuSpec {
                bf16_flops: 121.0 * T,
                fp8_flops: Some(242.5 * T),
                mem_bw: 300.0 * G,
                mem_bytes: 24.0 * G,
                link_bw: 32.0 * G,
                collective_latency_s: 20e-6,
            },
            Gpu::L40s => GpuSpec {
                bf16_flops: 362.0 * T,
                fp8_flops: Some(733.0 * T),
                mem_bw: 864.0 * G,
                mem_bytes: 48.0 * G,
                link_bw: 32.0 * G,
                collective_latency_s: 20e-6,
            },
            Gpu::Mi300x => GpuSpec {
                bf16_flops: 1307.4 * T,
                fp8_flops: Some(2614.9 * T),
                mem_bw: 5300.0 * G,
                mem_bytes: 192.0 * G,
                link_bw: 448.0 * G,
                collective_latency_s: 25e-6,
            },
        }
    }
}
