//! Little's law sizing (§1.3): a replica's throughput ceiling from its KV
//! capacity and the residency of one sequence, with and without cache hits.

use sim_core::labs::queueing::little;

use super::{card, range, seed_controls, Explorable, Outcome, Page, Params};
use crate::components::ControlSpec;
use crate::format::{fill, fixed, signed, thousands};

fn controls() -> Vec<ControlSpec> {
    let int = |x: f64| thousands(x as u64);
    vec![
        range(
            "kv",
            "KV capacity",
            "blocks of 16 tokens on one replica",
            1000.0,
            200_000.0,
            1000.0,
            "blocks",
            int,
        ),
        range(
            "prompt",
            "Prompt",
            "tokens per request",
            100.0,
            64_000.0,
            100.0,
            "tokens",
            int,
        ),
        range(
            "output",
            "Output",
            "tokens per request, one decoded per tick",
            10.0,
            4000.0,
            10.0,
            "tokens",
            int,
        ),
        range(
            "rate",
            "Prefill speed",
            "prompt tokens processed per tick",
            64.0,
            8192.0,
            64.0,
            "tokens/tick",
            int,
        ),
        range(
            "hit",
            "Prefix-cache hits",
            "share of prompt tokens already cached",
            0.0,
            100.0,
            5.0,
            "%",
            |x| fixed(x, 0),
        ),
    ]
    .into_iter()
    .chain(seed_controls("Seed of the check"))
    .collect()
}

fn compute(p: &Params) -> Result<Page, String> {
    let cfg = little::Config {
        kv_blocks: p.num("kv") as u32,
        prompt_tokens: p.num("prompt") as u32,
        output_tokens: p.num("output") as u32,
        prefill_rate: p.num("rate") as u32,
        cache_hit: p.num("hit") / 100.0,
        seed: p.whole("seed"),
        ..little::Config::default()
    };
    let o = little::run(&cfg).map_err(|e| e.to_string())?;
    let gain = if o.lambda_max > 0.0 {
        signed((o.lambda_max_cached / o.lambda_max - 1.0) * 100.0, 0)
    } else {
        "–".into()
    };
    let hit = fixed(cfg.cache_hit * 100.0, 0);
    let (lambda, lambda_cached) = (fixed(o.lambda_max, 3), fixed(o.lambda_max_cached, 3));
    let mut html = String::from(r#"<h2>Throughput ceiling of one replica</h2><div class="cards">"#);
    html += &card(
        "card-lmax",
        "Lmax",
        &o.l_max.to_string(),
        "sequences",
        &fill(
            "Sequences the KV cache holds at once, at {} blocks each.",
            &[thousands(o.blocks_per_sequence.into())],
        ),
    );
    html += &card(
        "card-w",
        "Residency W",
        &fixed(o.residency, 1),
        "ticks",
        &fill(
            "Without cache hits: {} ticks of prefill plus one per output token.",
            &[fixed(o.prefill_ticks, 1)],
        ),
    );
    html += &card(
        "card-lambda",
        "λmax = Lmax / W",
        &lambda,
        "req/tick",
        "The most requests per tick one replica completes at this residency.",
    );
    html += &card(
        "card-lambda-cached",
        "λmax with cache hits",
        &lambda_cached,
        "req/tick",
        &fill(
            "With {}% cached, prefill takes {} ticks and W is {}; cached tokens still hold KV.",
            &[
                hit.clone(),
                fixed(o.prefill_ticks_cached, 1),
                fixed(o.residency_cached, 1),
            ],
        ),
    );
    html += &card(
        "card-gain",
        "Gain from the cache",
        &gain,
        "%",
        "How much the shorter prefill raises the ceiling.",
    );
    html += &card(
        "card-check",
        "Seeded check",
        &fixed(o.check.throughput, 3),
        "req/tick",
        &fill(
            "Lmax slots kept busy for 200,000 ticks with exponential output lengths: {} sequences, mean W {} ticks. Little's law needs no distribution.",
            &[thousands(o.check.sequences), fixed(o.check.mean_residency, 1)],
        ),
    );
    html += "</div>";
    let head = std::mem::take(&mut html);
    if o.l_max == 0 {
        html += r#"<p class="notice">One sequence needs more KV blocks than the replica has: nothing fits, so the ceiling is zero.</p>"#;
    }
    html += r#"<p class="small muted">A tick is one engine iteration. W grows with the batch, so the ceiling holds where W was measured.</p>"#;
    let summary = fill(
        "λmax against the share of the prompt served from cache: from {} requests per tick with no hits to {} at {}%.",
        &[lambda, lambda_cached, hit],
    );
    Ok(Page {
        head,
        html,
        chart: crate::charts::little::spec(&o),
        summary,
        outcome: Outcome::Little(o),
    })
}

/// The Little's-law explorable.
pub static EXPLORABLE: Explorable = Explorable {
    id: "little",
    header: r#"<h1>Sizing with Little's law</h1><p class="lede">A replica holds as many sequences as its KV cache fits, each for its prefill plus its decode; the ratio is the most requests per tick it can finish. Raise the cache hits and the ceiling rises; lengthen the output and it falls.</p><p class="small muted">L = λW holds for any scheduler and distribution. Follows §1.3 of the reference article.</p>"#,
    controls,
    defaults: &[
        ("kv", "20000"),
        ("prompt", "8000"),
        ("output", "100"),
        ("rate", "320"),
        ("hit", "75"),
        ("seed", "1"),
    ],
    text_ok: |_, _| false,
    compute,
    defer: |_, _| false,
    caption: "Throughput ceiling against prefix-cache hits",
    help: "λmax = Lmax / W as more of the prompt comes from cache: cached tokens skip prefill, so sequences leave sooner. The flat line is the ceiling without hits; the ring is your setting and the dot inside it the seeded check. Long outputs make decode dominate W and flatten the curve.",
};
