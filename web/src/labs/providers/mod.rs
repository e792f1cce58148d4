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
use crate::ui::format::{fixed, thousands};
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
    let cost = format!(
        "The whole bill, ${} for reserved hours and metered tokens, over the {} calls made.",
        fixed(r.cost, 2),
        thousands(r.requests.into())
    );
    let hits = format!(
        "Share of prompt tokens the provider read from its cache instead of computing them; {} of follow-up turns found their history there.",
        percent(r.history_hits)
    );
    let refused = format!(
        "Calls the client saw answered 429, or with no deployment in service, after the router had done what it does; {} calls failed after every retry.",
        r.failed
    );
    view! {
        <h2>{format!("Routed by: {}", r.strategy.title())}</h2>
        <div class="cards">
            {card("card-cost", "Cost per 1,000 calls", &fixed(r.cost_per_1k, 3), "dollars", &cost)}
            {card("card-hits", "Provider cache hits", &percent(r.hit_share), "", &hits)}
            {card(
                "card-split",
                "Conversations split",
                &percent(r.split_share),
                "",
                "Share of conversations of two turns or more served in both regions, each region's cache starting cold; 0 with one region.",
            )}
            {card("card-429", "429s seen by clients", &r.client_429.to_string(), "", &refused)}
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
        meaning: "share of served calls that metered capacity served while reserved capacity exists; the star goes to the lowest, but spilling is how calls get through once reserved capacity is full, so neither side is simply better",
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
    let (sticky, shuffle) = (o.run(Strategy::Sticky)?, o.run(Strategy::Shuffle)?);
    Some(if v.config.regions >= 2 {
        format!(
            "Across two regions, session affinity keeps each conversation on one deployment and reads {} of prompt tokens from the provider's cache; simple shuffle splits {} of conversations between the regions and reads {}.",
            percent(sticky.hit_share),
            percent(shuffle.split_share),
            percent(shuffle.hit_share)
        )
    } else {
        format!(
            "With one region no conversation can change region: session affinity reads {} of prompt tokens from the provider's cache against simple shuffle's {}. The §14.3 link above puts the deployments in two regions.",
            percent(sticky.hit_share),
            percent(shuffle.hit_share)
        )
    })
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
    intro: || Html::trusted(HEADER_HTML),
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
            scene::scene(run(v)?, &v.outcome.names, v.step(), width, palette)
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
    .help("Each line is one strategy's running bill: reserved deployments are paid by the hour from the start, busy or idle, so every line climbs from the first second; metered tokens add to it as calls are served, less for prompt tokens read from the cache. A strategy that keeps reserved capacity busy and sends only the overflow on climbs slowest. Click to move the player there."),
    Chart::<Lab>::new(
        "providers-sweep-chart",
        |_| "Load sweep: spillover against equal weights, per 1,000 calls".into(),
        |v, _| chart::sweep(v.outcome),
        |v| chart::sweep_summary(v.outcome),
    )
    .shown(|v| !v.outcome.sweep.is_empty())
    .help("Separate short runs without the incident, at arrival rates from a quarter of the reserved capacity to two and a half times it. At low load the reserved hours dominate and every call is dear; spillover keeps them busy before paying for metered tokens, while equal weights sends half the calls to metered capacity even when the reserved one sits idle. The percentages over spillover's points are the share of calls it sent on to metered capacity; the vertical line is the load at the lab's own arrival rate.")],
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
const LEGEND_HTML: &str = r#"<p class="small legend">One column per deployment, reserved (PTU) first, then metered (PAYG). The bar in each box is how much of its capacity (reserved) or of this minute's quota (metered) is in use, red once it refuses calls; a box outlined in the accent colour says OUT while its breaker or cooldown keeps it out of rotation, with the time left. Under it, the calls it runs now and has served. Lines from the router are this tick's calls, green when served and red when refused or failed; the dot at the end of each has a green wedge for the share of its prompt read from the provider's cache. The bill under the stage counts reserved hours as they pass and metered tokens as they are served.</p>"#;

/// The page header (static). The two preset links carry the `pairs` of
/// `sim_core::labs::providers::PRESETS` (a test below holds them equal).
const HEADER_HTML: &str = r#"<h1>Providers and regions</h1><p class="lede">When you rent a model rather than run it, keeping GPUs busy is the provider's problem; yours is getting your calls through the capacity you bought, across quotas and regions. A reserved deployment is billed by the hour whether it works or idles; a metered one bills every token and answers 429 once its quota for the minute is used up; and the provider keeps a separate prompt cache for each deployment, so the router that picks where a call goes also decides whether its prompt is already cached there. The player opens on spillover, reserved capacity first and the overflow to metered; the table compares it with eight other gateway and SDK strategies on the same calls.</p><p>The article's two configurations: <a href="?lab=providers&amp;reserved=0&amp;metered=2&amp;regions=2&amp;incident-region=0&amp;strategy=shuffle">§14.3: LiteLLM, two regions, equal weights</a>, where shuffled calls lose their cached history when they change region, and <a href="?lab=providers&amp;rate=4.5&amp;incident-region=0&amp;breaker-429=0&amp;strategy=priority-pool">§14.4: APIM priority pool, breaker on server errors</a>, where a breaker that ignores 429 keeps the overflow from ever reaching the metered backend.</p><p class="small muted">One tick is 100 ms; times are in milliseconds and money in dollars. Follows §12, §14.3–14.4 and §10.3 of the reference article.</p>"#;

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
