//! The providers page (article §12, §14.3–14.4, §10.3): capacity you rent.
//! Nine gateway and SDK strategies on the same calls over reserved and
//! metered deployments, a player of the strategy in focus stepping 100 ms
//! at a time, the running bill of each, and a load sweep of spillover
//! against equal weights.

/// The chart specs.
pub mod chart;
/// What the stage draws and says at one tick.
pub mod scene;

use sim_core::labs::providers::{ProvidersLab as Lab, Strategy, StrategyRun};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, Seek, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the strategy in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a StrategyRun> {
    v.outcome.run(v.focus?)
}

fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 1))
}

/// The strategy in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    use sim_core::choice::Choice;
    view! {
        <h2>{format!("Routed by: {}", r.strategy.title())}</h2>
        <div class="cards">
            {card("card-cost", "Cost per 1,000 calls", &fixed(r.cost_per_1k, 3), "dollars", "The whole bill, reserved hours and metered tokens, over the calls made.")}
            {card("card-hits", "Provider cache hits", &percent(r.hit_share), "", "Share of prompt tokens the provider read from its cache instead of computing them.")}
            {card(
                "card-split",
                "Conversations split",
                &percent(r.split_share),
                "",
                "Share of conversations of two turns or more served in both regions, each region's cache starting cold; 0 with one region.",
            )}
            {card("card-429", "429s seen by clients", &r.client_429.to_string(), "", "Calls the client saw answered 429, or with no deployment in service, once the router had done what it does.")}
        </div>
    }
    .into_any()
}

/// The comparison's columns: the bill and what drives it, then what the
/// clients felt.
pub(crate) const COLS: [Column<StrategyRun>; 8] = [
    Column {
        title: "$/1k calls",
        meaning: "the bill per 1,000 calls made: reserved hours and metered tokens, dollars",
        value: |r| r.cost_per_1k,
        show: |x| fixed(x, 3),
        higher_is_better: false,
    },
    Column {
        title: "Cache hits",
        meaning: "share of prompt tokens read from the provider's cache",
        value: |r| r.hit_share,
        show: percent,
        higher_is_better: true,
    },
    Column {
        title: "Split",
        meaning: "share of conversations of two turns or more served in both regions",
        value: |r| r.split_share,
        show: percent,
        higher_is_better: false,
    },
    Column {
        title: "Spill",
        meaning: "share of served calls on metered capacity while reserved exists; past reserved capacity spilling is how calls get through, so the lowest is not simply best",
        value: |r| r.spill_share,
        show: percent,
        higher_is_better: false,
    },
    Column {
        title: "429s seen",
        meaning: "calls the client saw answered 429 or with no deployment in service",
        value: |r| f64::from(r.client_429),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Failed",
        meaning: "calls that failed after every retry",
        value: |r| f64::from(r.failed),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "TTFT P95",
        meaning: "ms from the first send to the first token, 95th percentile",
        value: |r| r.ttft[1],
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "TTFT P99",
        meaning: "ms from the first send to the first token, 99th percentile",
        value: |r| r.ttft[2],
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
];

/// Every strategy on the same calls; rows pick the player's strategy.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(
        v,
        pick,
        "providers-compare",
        "Strategy",
        &v.outcome.runs,
        &COLS,
    )
}

impl FocusRow for StrategyRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.strategy
    }
}

/// Session affinity's cache hits against simple shuffle's, in a sentence.
fn affinity_line(v: &View<'_, Lab>) -> Option<String> {
    let o = v.outcome;
    // With one region nothing can split: the sentence would say 0%.
    if v.config.regions < 2 {
        return None;
    }
    let (sticky, shuffle) = (o.run(Strategy::Sticky)?, o.run(Strategy::Shuffle)?);
    Some(format!(
        "Session affinity keeps each conversation on one deployment and reads {} of prompt tokens from the provider's cache; simple shuffle splits {} of conversations between regions and reads {}.",
        percent(sticky.hit_share),
        percent(shuffle.split_share),
        percent(shuffle.hit_share)
    ))
}

/// Under the comparison: affinity against shuffle, and how to read it.
fn note(v: &View<'_, Lab>) -> AnyView {
    let line = affinity_line(v).unwrap_or_default();
    view! {
        <p class="small" id="providers-affinity">{line}</p>
        <p class="small muted">
            "Every strategy sees the same calls. Pick a row to play that strategy. ★ marks the best value in each column."
        </p>
    }
    .into_any()
}

fn moments(v: &View<'_, Lab>) -> Vec<usize> {
    run(v)
        .and_then(|r| r.timeline.as_ref())
        .map(|tl| crate::ui::scene::moment_steps(tl, |s| s.moment.is_some()))
        .unwrap_or_default()
}

/// The providers page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Deployments, traffic and prices",
    player: Some(Player {
        records: true,
        len: |v| run(v).and_then(|r| r.timeline.as_ref()).map_or(0, Vec::len),
        moments,
        narrate: |v| {
            run(v)
                .map(|r| scene::narrate(r, &v.outcome.names, v.step()))
                .unwrap_or_default()
        },
        scene: |v, width, palette| {
            scene::scene(run(v)?, v.config, v.step(), width, palette)
        },
        legend: LEGEND_HTML,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    charts: &[Chart::<Lab>::new(
        "providers-cost-chart",
        |_| "The bill so far, per strategy".into(),
        |v, _| chart::cost(v.outcome, v.focus, v.step()),
        |v| chart::cost_summary(v.outcome),
    )
    .seek(Seek::Step)
    .help("Each line is one strategy's running bill: reserved hours from the first second, busy or idle, plus metered tokens as calls are served (cached prompt tokens cost less). Keeping reserved capacity busy and sending on only the overflow climbs slowest. Click to move the player there."),
    Chart::<Lab>::new(
        "providers-sweep-chart",
        |_| "Load sweep: spillover against equal weights, per 1,000 calls".into(),
        |v, _| chart::sweep(v.outcome),
        |v| chart::sweep_summary(v.outcome),
    )
    .shown(|v| !v.outcome.sweep.is_empty())
    .help("Short runs without the incident, from a quarter of the reserved capacity to over twice it. Spillover fills reserved capacity before paying for metered tokens; equal weights sends half the calls to metered capacity even while reserved sits idle. The percentages are the calls spillover sent on; the vertical line is the lab's own rate.")],
    comparison: Some(Comparison {
        heading: "Nine strategies on the same calls",
        table: compare,
        note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">One column per deployment, reserved (PTU) first. The bar is its load over the last 10 s against its capacity or quota, red at 100%; OUT and an accent outline mean a breaker or cooldown holds it out, with the time left. Below: calls running and served. Lines are this tick's calls, green when served and red when refused; the green wedge on a dot is the share of its prompt read from the cache. The bill counts reserved hours as they pass and metered tokens as they are served.</p>"#;

/// The page header (static). The two preset links carry the `pairs` of
/// `sim_core::labs::providers::PRESETS` (a test below holds them equal).
const HEADER_HTML: &str = r#"<h1>Providers and regions</h1><p class="lede">Renting a model moves the job from keeping GPUs busy to getting calls through the capacity you bought. Reserved capacity is billed by the hour, used or not; metered capacity bills every token and answers 429 past its quota; and each deployment keeps its own prompt cache, so where a call goes decides whether its prompt is already cached. Nine gateway and SDK strategies route the same calls: play one, or compare them in the table.</p><p>The article's two configurations: <a href="?lab=providers&amp;reserved=0&amp;metered=2&amp;regions=2&amp;incident-region=0&amp;strategy=shuffle">§14.3: LiteLLM, two regions, equal weights</a> (turns that change region lose their cached history) and <a href="?lab=providers&amp;rate=4.5&amp;incident-region=0&amp;breaker-429=0&amp;strategy=priority-pool">§14.4: APIM priority pool, breaker on server errors</a> (a breaker that ignores 429 never lets the overflow through).</p><p class="small muted">One tick is 100 ms; times are in milliseconds and money in dollars. Follows §12, §14.3–14.4 and §10.3 of the reference article.</p>"#;

#[cfg(test)]
mod tests {
    use super::HEADER_HTML;
    use sim_core::labs::providers::PRESETS;

    /// Each preset's link in the header carries exactly its settings and
    /// its title, so the static header cannot drift from sim-core.
    #[test]
    fn the_header_links_are_the_presets() {
        assert_eq!(PRESETS.len(), 2);
        for p in PRESETS {
            let query: String = p
                .pairs
                .iter()
                .map(|(k, v)| format!("&amp;{k}={v}"))
                .collect();
            let link = format!(r#"<a href="?lab=providers{query}">{}</a>"#, p.title);
            assert!(HEADER_HTML.contains(&link), "{}: {link}", p.name);
        }
        assert_eq!(HEADER_HTML.matches("<a href=").count(), PRESETS.len());
    }
}
