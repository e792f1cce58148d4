//! The step-cost model against published measurements: for each GPU and
//! model preset, single-request decode speed and prefill throughput beside
//! a figure a vendor or an engine published for that hardware and model,
//! within the factor docs/model.md's sanity table states. The table there is
//! this list; `cargo test -p lblab-tests --test presets -- --nocapture`
//! prints it.

use sim_core::choice::Choice;
use sim_core::hardware::{Gpu, Model, ModelSpec, Precision, Preset, StepCost};

/// What a published figure measured.
#[derive(Clone, Copy, Debug)]
enum What {
    /// Output tokens per second of one request decoding alone, at a context
    /// of about `context` tokens.
    Decode { context: f64 },
    /// Prompt tokens per second prefilling one prompt of `tokens` tokens in
    /// one step.
    Prefill { tokens: f64 },
}

struct Row {
    gpu: Gpu,
    model: Option<Model>,
    tp: u32,
    precision: Precision,
    what: What,
    /// The published figure, tokens per second.
    published: f64,
    /// Largest ratio either way between the model and the figure.
    factor: f64,
    source: &'static str,
}

/// Qwen2.5 0.5B (config.json: 24 layers, hidden 896, 14 query / 2 KV heads
/// of 64, 0.494 B parameters): the only model with a published
/// single-request figure on L4 that was found; not a preset.
const QWEN_05B: ModelSpec = ModelSpec {
    params: 0.494e9,
    layers: 24,
    hidden: 896,
    q_heads: 14,
    kv_heads: 2,
    head_dim: 64,
};

fn rows() -> Vec<Row> {
    use Gpu::*;
    use Model::*;
    use Precision::*;
    let d = |context| What::Decode { context };
    let p = |tokens| What::Prefill { tokens };
    let row = |gpu, model, tp, precision, what, published, factor, source| Row {
        gpu,
        model,
        tp,
        precision,
        what,
        published,
        factor,
        source,
    };
    vec![
        row(H100, Some(Llama31_8b), 1, Bf16, d(768.0), 1000.0 / 7.42, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Llama-8B (Llama 3.1 8B shape), vLLM 0.7.2, 256 in / 1,024 out: 7.6 s"),
        row(H100, Some(Llama31_8b), 1, Fp8, d(768.0), 1000.0 / 5.57, 1.5,
            "Red Hat AI model card, the W8A8 FP8 variant of the same, vLLM 0.7.2: 5.7 s"),
        row(H100, Some(Llama31_8b), 1, Fp8, p(2048.0), 55_000.0, 2.0,
            "TensorRT-LLM perf-overview, Llama 3.1 8B FP8 on one H100, 2,048 in / 128 out at max load: 3,450 output tok/s, i.e. about 55k prompt tok/s"),
        row(A100, Some(Llama31_8b), 1, Bf16, d(768.0), 1000.0 / 11.8, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Llama-8B, vLLM 0.7.2 on A100: 12.1 s for 1,024 tokens"),
        row(A100, Some(Llama31_8b), 1, Bf16, p(4096.0), 9_000.0, 2.0,
            "Red Hat AI model card, same, 4,096 in / 512 out in 6.5 s less the decode: about 9k prompt tok/s (rough)"),
        row(H100, Some(Qwen32b), 1, Bf16, d(768.0), 1000.0 / 26.0, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Qwen-32B (Qwen2.5 32B shape), vLLM 0.7.2: 26.6 s for 1,024 tokens"),
        row(H100, Some(R1Distill32b), 1, Fp8, d(768.0), 1000.0 / 16.9, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Qwen-32B FP8-dynamic, vLLM 0.7.2: 17.3 s"),
        row(A100, Some(R1Distill32b), 1, Bf16, d(768.0), 1000.0 / 43.0, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Qwen-32B on A100, vLLM 0.7.2: 44.0 s"),
        row(H100, Some(Llama3_70b), 2, Bf16, d(768.0), 1000.0 / 29.3, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Llama-70B (Llama 3.3 70B shape) on 2 H100, vLLM 0.7.2: 30.0 s"),
        row(H100, Some(Llama3_70b), 2, Fp8, d(2750.0), 1000.0 / 18.58, 1.5,
            "NVIDIA NIM 1.8.0 benchmarks, Llama 3.3 70B FP8 on 2 H100 (TP2), 5,000 in / 500 out: ITL 18.58 ms"),
        row(H100, Some(Llama3_70b), 2, Fp8, p(5000.0), 5000.0 / 0.40677, 1.5,
            "NVIDIA NIM 1.8.0 benchmarks, same: TTFT 406.77 ms at 5,000 input tokens"),
        row(A100, Some(Llama3_70b), 2, Bf16, d(768.0), 1000.0 / 49.2, 1.5,
            "Red Hat AI model card, DeepSeek-R1-Distill-Llama-70B on 2 A100, vLLM 0.7.2: 50.4 s"),
        row(L40s, Some(Llama31_8b), 1, Bf16, d(768.0), 1000.0 / 24.5, 1.5,
            "Red Hat AI model card, granite-3.1-8b-instruct (8 B dense) on L40 (the L40S's 864 GB/s; decode is bandwidth-bound), vLLM 0.6.6: 25.1 s"),
        row(L4, None, 1, Bf16, d(300.0), 1000.0 / 5.1, 1.5,
            "ai.wmx.dev benchmarks, Qwen2.5-0.5B BF16 on one L4, vLLM 0.23.0, 256 in / 128 out: ITL p50 5.1 ms"),
        row(Mi300x, Some(Llama3_70b), 8, Fp8, d(1100.0), 1000.0 / 8.4, 1.5,
            "AMD ROCm performance results, Llama 3.1 70B FP8 on 8 MI300X (TP8), vLLM 0.9.1, 128 in / 2,048 out, batch 1: 17.236 s"),
    ]
}

/// The preset of `row` at the defaults (efficiencies, correction).
fn preset(row: &Row) -> Preset {
    let defaults = sim_core::labs::routing::Config::default().timing;
    Preset {
        gpu: row.gpu,
        model: row.model.unwrap_or(Model::Llama31_8b),
        tp: row.tp,
        precision: row.precision,
        kv_fp8: false,
        compute_eff: defaults.compute_eff,
        bandwidth_eff: defaults.bandwidth_eff,
        alpha: defaults.alpha,
        overhead_ms: defaults.overhead_ms,
    }
}

/// The cost constants, with the reference-only model swapped in.
fn cost(row: &Row) -> StepCost {
    let p = preset(row);
    match row.model {
        Some(_) => p.step_cost().expect("the preset runs"),
        None => p.step_cost_of(&QWEN_05B).expect("the reference model runs"),
    }
}

fn modelled(row: &Row) -> f64 {
    let c = cost(row);
    match row.what {
        What::Decode { context } => 1.0 / c.decode_s(1.0, context),
        What::Prefill { tokens } => tokens / c.prefill_s(tokens, 0.0),
    }
}

#[test]
fn every_preset_is_within_its_stated_factor_of_a_published_figure() {
    let mut failures = Vec::new();
    println!("| GPU | model | TP | precision | measure | model tok/s | published tok/s | ratio | within |");
    for row in rows() {
        let m = modelled(&row);
        let ratio = m / row.published;
        let ok = ratio <= row.factor && ratio >= 1.0 / row.factor;
        let what = match row.what {
            What::Decode { .. } => "decode, 1 request",
            What::Prefill { .. } => "prefill",
        };
        println!(
            "| {} | {} | {} | {} | {what} | {m:.0} | {:.0} | {ratio:.2} | {}× {} |",
            row.gpu.title(),
            row.model.map_or("Qwen2.5 0.5B (reference)", |m| m.title()),
            row.tp,
            row.precision.title(),
            row.published,
            row.factor,
            if ok { "yes" } else { "NO" }
        );
        if !ok {
            failures.push(format!(
                "{:?} {:?}: {ratio:.2} ({})",
                row.gpu, row.model, row.source
            ));
        }
    }
    assert!(failures.is_empty(), "outside their factor: {failures:#?}");
}

#[test]
fn every_gpu_and_model_preset_has_a_published_decode_figure() {
    let rows = rows();
    for gpu in Gpu::ALL {
        assert!(
            rows.iter()
                .any(|r| r.gpu == *gpu && matches!(r.what, What::Decode { .. })),
            "{gpu:?} has no decode row"
        );
    }
    for model in Model::ALL {
        assert!(
            rows.iter().any(|r| r.model == Some(*model)),
            "{model:?} has no row"
        );
    }
}

#[test]
fn a_model_too_big_for_its_gpus_and_fp8_on_a100_are_refused_with_why() {
    let mut p = preset(&rows()[0]);
    p.model = Model::Llama3_70b;
    let e = p.step_cost().unwrap_err();
    assert!(e.0.contains("raise tp"), "{}", e.0);
    p.tp = 2;
    assert!(p.step_cost().is_ok());
    p.gpu = Gpu::A100;
    p.precision = Precision::Fp8;
    let e = p.step_cost().unwrap_err();
    assert!(e.0.contains("no FP8"), "{}", e.0);
}

#[test]
fn kv_capacity_is_the_memory_left_after_the_weights() {
    // One H100 with Llama 3.1 8B in BF16: 72 GB usable, 16.06 GB of weights,
    // 128 KiB a token: about 427k tokens, 26.7k blocks of 16.
    let p = preset(&rows()[0]);
    let tokens = p.kv_tokens();
    assert!(
        (tokens - (72.0e9 - 16.06e9) / 131_072.0).abs() < 1.0,
        "{tokens}"
    );
    assert_eq!(p.kv_blocks(16), (tokens / 16.0) as u32);
}
