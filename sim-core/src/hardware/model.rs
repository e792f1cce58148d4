//! Model presets: the shapes a step-cost model needs, read from each
//! model's published `config.json` on Hugging Face (layers, hidden size,
//! query and key/value heads, head size, MLP width, vocabulary); the
//! parameter count is computed from those shapes (embeddings, an untied
//! output head, and per layer the q/k/v/o projections, the three MLP
//! matrices and the norms).
//!
//! - Llama 3.1 8B (meta-llama/Llama-3.1-8B-Instruct): 32 layers, hidden
//!   4,096, 32 query / 8 KV heads of 128, MLP 14,336, vocabulary 128,256:
//!   8.03 B parameters.
//! - Qwen2.5 32B (Qwen/Qwen2.5-32B-Instruct): 64 layers, hidden 5,120,
//!   40 query / 8 KV heads of 128, MLP 27,648, vocabulary 152,064: 32.76 B.
//! - DeepSeek-R1-Distill-Qwen-32B: the same architecture as Qwen2.5 32B
//!   (its config.json is Qwen2's); a reasoning model, so its requests have
//!   long outputs, which is a workload choice rather than a shape.
//! - Llama 3 70B (meta-llama/Meta-Llama-3-70B-Instruct; 3.1 and 3.3 share
//!   the shape): 80 layers, hidden 8,192, 64 query / 8 KV heads of 128, MLP
//!   28,672, vocabulary 128,256: 70.55 B.

/// A dense decoder's shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelSpec {
    /// Parameters, all of them read once per step (dense model).
    pub params: f64,
    /// Transformer layers.
    pub layers: u32,
    /// Hidden size (the width of the activations tensor parallelism reduces).
    pub hidden: u32,
    /// Query heads (attention FLOPs scale with these).
    pub q_heads: u32,
    /// Key/value heads (the KV cache scales with these: grouped-query attention).
    pub kv_heads: u32,
    /// Size of one head.
    pub head_dim: u32,
}

impl ModelSpec {
    /// KV-cache bytes per token at `bytes` per element: keys and values, in
    /// every layer, for every KV head (the usual accounting, e.g. kipp.ly's
    /// "Transformer Inference Arithmetic").
    pub fn kv_bytes_per_token(&self, bytes: f64) -> f64 {
        2.0 * f64::from(self.layers) * f64::from(self.kv_heads) * f64::from(self.head_dim) * bytes
    }

    /// Attention FLOPs for one new token attending to `context` tokens:
    /// `QKᵀ` and `AV` are `2·d` FLOPs each per query head, per context
    /// token, per layer (the FlashAttention benchmark's count,
    /// `4·seqlen²·heads·head_dim` for a full forward, per token). Grouped
    /// query attention saves KV bytes, not these FLOPs.
    pub fn attention_flops(&self, context: f64) -> f64 {
        4.0 * f64::from(self.layers) * f64::from(self.q_heads) * f64::from(self.head_dim) * context
    }
}

crate::choices! {
    /// The model presets.
    pub enum Model {
        /// Llama 3.1 8B.
        Llama31_8b = ("llama-3.1-8b", "Llama 3.1 8B", "8.03 B dense, 32 layers, GQA 32/8: 128 KiB of KV per token in BF16."),
        /// Qwen2.5 32B.
        Qwen32b = ("qwen-32b", "Qwen2.5 32B", "32.8 B dense, 64 layers, GQA 40/8: 256 KiB of KV per token in BF16."),
        /// Llama 3 70B.
        Llama3_70b = ("llama-3-70b", "Llama 3 70B", "70.6 B dense, 80 layers, GQA 64/8: 320 KiB of KV per token in BF16."),
        /// DeepSeek R1 distilled into Qwen2.5 32B.
        R1Distill32b = ("r1-distill-32b", "R1-Distill-Qwen 32B", "Qwen2.5 32B's shape; a reasoning model (long outputs)."),
    }
}

impl Model {
    /// Its shape.
    pub const fn spec(self) -> ModelSpec {
        match self {
            Model::Llama31_8b => ModelSpec {
                params: 8.03e9,
                layers: 32,
                hidden: 4096,
                q_heads: 32,
                kv_heads: 8,
                head_dim: 128,
            },
            Model::Qwen32b | Model::R1Distill32b => ModelSpec {
                params: 32.76e9,
                layers: 64,
                hidden: 5120,
                q_heads: 40,
                kv_heads: 8,
                head_dim: 128,
            },
            Model::Llama3_70b => ModelSpec {
                params: 70.55e9,
                layers: 80,
                hidden: 8192,
                q_heads: 64,
                kv_heads: 8,
                head_dim: 128,
            },
        }
    }
}
