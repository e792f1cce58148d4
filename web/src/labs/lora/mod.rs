//! The LoRA page (article §6.3): adapters as a routing resource. Five rules
//! on the same requests, a player of the rule in focus stepping one engine
//! iteration at a time, and the queue each rule builds over the run.

/// The chart spec.
pub mod chart;
/// What the stage draws and says at one tick.
pub mod scene;

use sim_core::labs::lora::{LoraLab as Lab, RuleRun};

use leptos::prelude::*;

use crate::page::{compare_items, Chart, Comparison, FocusRow, Page, Player, Seek, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Column, Pick};

/// The run of the rule in focus.
fn run<'a>(v: &View<'a, Lab>) -> Option<&'a RuleRun> {
    v.outcome.run(v.focus?)
}

fn percent(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 1))
}

/// The rule in focus in four numbers.
fn cards(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = run(v) else {
        return ().into_any();
    };
    use sim_core::choice::Choice;
    let twin = &v.outcome.twin;
    let hottest = format!(
        "Share of all requests the busiest replica received (an even spread over {} replicas is {}). The same popularity on prompt prefixes under prefix-aware routing, with no adapters, gives {}.",
        v.config.replicas,
        percent(1.0 / f64::from(v.config.replicas.max(1))),
        percent(twin.hottest_share)
    );
    let p95 = format!(
        "95% of first tokens came within this; the median was {} ms.",
        fixed(r.ttft_p50, 0)
    );
    let cold = format!(
        "Adapters fetched from disk or a remote store, over the pool; each stalls its replica. {} more came from host memory.",
        r.host_loads
    );
    view! {
        <h2>{format!("Routed by: {}", r.rule.title())}</h2>
        <div class="cards">
            {card("card-ttft-p95", "TTFT P95", &fixed(r.ttft_p95, 0), "ms", &p95)}
            {card("card-cold", "Cold loads", &r.cold_loads.to_string(), "", &cold)}
            {card("card-hottest", "Hottest replica", &percent(r.hottest_share), "", &hottest)}
            {card(
                "card-goodput",
                "Goodput",
                &fixed(r.goodput, 1),
                "req/s",
                "Requests a second whose first token came within the objective.",
            )}
        </div>
    }
    .into_any()
}

/// The comparison's columns: the tail first, then what causes it.
pub(crate) const COLS: [Column<RuleRun>; 7] = [
    Column {
        title: "TTFT P95",
        meaning: "ms from arrival to first token, 95th percentile",
        value: |r| r.ttft_p95,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "TTFT P50",
        meaning: "ms from arrival to first token, median",
        value: |r| r.ttft_p50,
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Cold loads",
        meaning: "adapters fetched from disk or a remote store, over the pool",
        value: |r| f64::from(r.cold_loads),
        show: |x| fixed(x, 0),
        higher_is_better: false,
    },
    Column {
        title: "Swaps/min",
        meaning: "adapters pushed out of a slot to make room, per minute, over the pool",
        value: |r| r.swaps_per_min,
        show: |x| fixed(x, 1),
        higher_is_better: false,
    },
    Column {
        title: "Hottest replica",
        meaning: "share of requests the busiest replica received",
        value: |r| r.hottest_share,
        show: percent,
        higher_is_better: false,
    },
    Column {
        title: "Loading",
        meaning: "share of the replicas' busy time spent loading adapters",
        value: |r| r.loading_share,
        show: percent,
        higher_is_better: false,
    },
    Column {
        title: "Goodput",
        meaning: "requests a second with a first token within the objective",
        value: |r| r.goodput,
        show: |x| fixed(x, 1),
        higher_is_better: true,
    },
];

/// Every rule on the same requests; rows pick the player's rule.
fn compare(v: &View<'_, Lab>, pick: Pick) -> AnyView {
    compare_items(v, pick, "lora-compare", "Rule", &v.outcome.runs, &COLS)
}

impl FocusRow for RuleRun {
    type Item = <Lab as sim_core::labs::Lab>::Item;
    fn item(&self) -> Self::Item {
        self.rule
    }
}

/// Under the comparison: the prefix twin, and what the columns count.
fn note(v: &View<'_, Lab>) -> AnyView {
    let twin = &v.outcome.twin;
    let line = format!(
        "The same requests with no adapters, their popularity carried by the adapters' system prompts alone, routed prefix-aware: the hottest replica gets {} of requests and TTFT P95 is {} ms. A prefix match is a share of the prompt that a load guard can trade away; an adapter is in a slot or not.",
        percent(twin.hottest_share),
        fixed(twin.ttft_p95, 0)
    );
    view! {
        <p class="small" id="lora-twin">{line}</p>
        <p class="small muted">
            "Every rule sees the same requests. Pick a row to play that rule. ★ marks the best value in each column."
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

/// The LoRA page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(|| Html::trusted(HEADER_HTML)),
    inputs: "Adapters, replicas and loads",
    player: Some(Player {
        records: true,
        len: |v| run(v).and_then(|r| r.timeline.as_ref()).map_or(0, Vec::len),
        moments,
        narrate: |v| {
            run(v)
                .map(|r| crate::labs::lora::scene::narrate(r, v.config, v.step()))
                .unwrap_or_default()
        },
        scene: |v, width, palette| {
            crate::labs::lora::scene::scene(run(v)?, v.config, v.step(), width, palette)
        },
        legend: LEGEND_HTML,
        ..Player::PLAIN
    }),
    cards: Some(cards),
    charts: &[Chart::<Lab>::new(
        "lora-queue-chart",
        |_| "The longest replica queue each second, per rule".into(),
        |v, _| chart::spec(v.outcome, v.step()),
        |v| chart::summary(v.outcome),
    )
    .seek(Seek::Step)
    .help("Each line is one rule: the most requests waiting on any one replica in each second. Affinity without a load guard piles a popular adapter onto the replicas holding it; balance without affinity makes every replica load adapters all the time and stall. Click to move the player there."),
    Chart::<Lab>::new(
        "lora-tier-chart",
        |_| "Cache tiers: TTFT P95 against the shared store's bandwidth".into(),
        |v, _| chart::tiers(v.outcome),
        |v| chart::tiers_summary(v.outcome),
    )
    .help("A separate run on the same arrivals without adapters: long prompts that mostly repeat one of the popular documents, replicas whose accelerator cache holds only four of them, and a store the whole pool shares. A document missing on a replica comes from the store at its bandwidth instead of being computed again (a transfer never costs more than the prefill it replaces). Without the store, least load scatters documents and pays for recomputing them; as the store gets faster that penalty fades and prefix affinity's advantage goes with it. The tier-aware cost is Dynamo's KV cost with the store's tokens weighed by what they save: one minus the prefill rate over the link rate.")],
    comparison: Some(Comparison {
        heading: "Five rules on the same requests",
        table: compare,
        note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

/// Under the player's stage.
const LEGEND_HTML: &str = r#"<p class="small legend">One column per replica: its adapter slots as numbered squares, one colour per adapter, ringed while that adapter loads and the replica waits; the red bar and number above are the requests in its queue, the count below the sequences it runs. Lines from the router are this tick's requests, in their adapter's colour.</p>"#;

/// The page header (static).
const HEADER_HTML: &str = r#"<h1>LoRA and cache tiers</h1><p class="lede">Many fine-tunes share one base model as LoRA adapters, but a replica holds only a few in accelerator memory, and loading another stalls it. Routing on adapters is the prefix trade-off again, on a lumpier resource: send a request where its adapter is and a popular adapter piles up there; send it where the load is lowest and every replica keeps loading. The player opens on residency-only affinity; compare least load, then llm-d's pipeline, which weighs both.</p><p>Below, the same trade on another resource: when a store shared by the pool can hand any replica a prefix it lacks, affinity is bandwidth against compute.</p><p class="small muted">One tick is a 25 ms engine iteration; times are in milliseconds. Follows §6.3 and the last row of §6.1's table in the reference article.</p>"#;
