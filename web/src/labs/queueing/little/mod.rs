//! Little's law sizing (§1.3): a replica's throughput ceiling from its KV
//! capacity and the residency of one sequence, with and without cache hits.

/// The chart spec.
pub mod chart;

use leptos::prelude::*;
use sim_core::labs::queueing::little::LittleLab;

use crate::page::{Chart, Page, View};
use crate::ui::format::{fixed, signed, thousands};
use crate::ui::html::Html;
use crate::ui::table::{card, Pick};

/// The six cards.
fn head(v: &View<'_, LittleLab>) -> AnyView {
    let (o, cfg) = (v.outcome, &v.outcome.config);
    let gain = if o.lambda_max > 0.0 {
        signed((o.lambda_max_cached / o.lambda_max - 1.0) * 100.0, 0)
    } else {
        "–".into()
    };
    let hit = fixed(cfg.cache_hit * 100.0, 0);
    let (lambda, lambda_cached) = (fixed(o.lambda_max, 3), fixed(o.lambda_max_cached, 3));
    let cards: Vec<AnyView> = [
        card(
            "card-lmax",
            "Lmax",
            &o.l_max.to_string(),
            "sequences",
            &format!(
                "Sequences the KV cache holds at once, at {} blocks each.",
                thousands(o.blocks_per_sequence.into())
            ),
        ),
        card(
            "card-w",
            "Residency W",
            &fixed(o.residency, 1),
            "ticks",
            &format!(
                "Without cache hits: {} ticks of prefill plus one per output token.",
                fixed(o.prefill_ticks, 1)
            ),
        ),
        card(
            "card-lambda",
            "λmax = Lmax / W",
            &lambda,
            "req/tick",
            "The most requests per tick one replica completes at this residency.",
        ),
        card(
            "card-lambda-cached",
            "λmax with cache hits",
            &lambda_cached,
            "req/tick",
            &format!(
                "With {hit}% cached, prefill takes {} ticks and W is {}; cached tokens still hold KV.",
                fixed(o.prefill_ticks_cached, 1),
                fixed(o.residency_cached, 1)
            ),
        ),
        card(
            "card-gain",
            "Gain from the cache",
            &gain,
            "%",
            "How much the shorter prefill raises the ceiling.",
        ),
        card(
            "card-check",
            "Seeded check",
            &fixed(o.check.throughput, 3),
            "req/tick",
            &format!(
                "Lmax slots kept busy for 200,000 ticks with exponential output lengths: {} sequences, mean W {} ticks{}. Little's law needs no distribution.",
                thousands(o.check.sequences),
                fixed(o.check.mean_residency, 1),
                if o.check.slots_simulated < o.l_max {
                    format!(
                        " ({} of the {} slots simulated, the rest counted at their rate)",
                        thousands(o.check.slots_simulated.into()),
                        thousands(o.l_max.into())
                    )
                } else {
                    String::new()
                }
            ),
        ),
    ]
    .into();
    view! {
        <h2>"Throughput ceiling of one replica"</h2>
        <div class="cards">{cards}</div>
    }
    .into_any()
}

/// What a ceiling of zero means, and the units.
fn details(v: &View<'_, LittleLab>, _: Pick) -> AnyView {
    let nothing_fits = (v.outcome.l_max == 0).then(|| {
        view! {
            <p class="notice">
                "One sequence needs more KV blocks than the replica has: nothing fits, so the ceiling is zero."
            </p>
        }
    });
    view! {
        {nothing_fits}
        <p class="small muted">
            "A tick is one engine iteration. W grows with the batch, so the ceiling holds where W was measured."
        </p>
    }
    .into_any()
}

/// The chart in words.
fn summary(v: &View<'_, LittleLab>) -> String {
    let o = v.outcome;
    format!(
        "λmax against the share of the prompt served from cache: from {} requests per tick with no hits to {} at {}%.",
        fixed(o.lambda_max, 3),
        fixed(o.lambda_max_cached, 3),
        fixed(o.config.cache_hit * 100.0, 0)
    )
}

/// The Little's-law page.
pub static PAGE: Page<LittleLab> = Page {
    intro: crate::intro!(|| Html::trusted(INTRO)),
    cards: Some(head),
    charts: &[Chart::new(
        super::CHART,
        |_| "Throughput ceiling against prefix-cache hits".into(),
        |v, _| Some(crate::labs::queueing::little::chart::spec(v.outcome)),
        summary,
    )
    .help(HELP)],
    tables: &[details],
    ..Page::EMPTY
};

impl crate::page::LabPage for LittleLab {
    const PAGE: &'static Page<Self> = &PAGE;
}

const INTRO: &str = r#"<h1>Sizing with Little's law</h1><p class="lede">A replica holds as many sequences as its KV cache fits, each for its prefill plus its decode; the ratio is the most requests per tick it can finish. Raise the cache hits and the ceiling rises; lengthen the output and it falls.</p><p class="small muted">L = λW holds for any scheduler and distribution. Follows §1.3 of the reference article.</p>"#;

const HELP: &str = "λmax = Lmax / W as more of the prompt comes from cache: cached tokens skip prefill, so sequences leave sooner. The flat line is the ceiling without hits; the ring is your setting and the dot inside it the seeded check. Long outputs make decode dominate W and flatten the curve.";
