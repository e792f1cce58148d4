//! The Routing Lab page (article §4.2): controls with the offered load, a
//! tick-by-tick player (one rule, or two side by side), headline cards for one
//! rule, the queue-evolution chart, and the all-rules comparison.

/// The chart spec.
pub mod chart;
/// The decision explorer.
pub mod decisions;
/// The page's own panels (tables, readouts).
pub mod panel;
/// What the stage draws and says at one step.
pub mod scene;

mod player;

pub(crate) mod tables;

use sim_core::choice::Choice;
use sim_core::hardware::Timing;
use sim_core::labs::routing::{RoutingLab as Lab, RuleOutcome, TraceSource};
use sim_core::labs::Lab as _;
use sim_core::routing::RuleKind;

use crate::page::{Chart, Comparison, Page, Seek, View};
use crate::ui::format::{one_decimal, percent, thousands, ticks};
use crate::ui::html::{el, Html};
use crate::ui::table::card;

/// The six result cards of one rule; each card's meaning shows on hover and
/// keyboard focus and is its accessible description. Times are in ticks, or
/// in milliseconds when a GPU preset prices the iterations.
fn cards(r: Option<&RuleOutcome>, slo: u64, timing: &Timing) -> Html {
    let ms = timing.in_ms();
    let value = |f: &dyn Fn(&RuleOutcome) -> String| r.map(f).unwrap_or_else(|| "–".into());
    let (unit, per) = if ms {
        ("ms", "second")
    } else {
        ("ticks", "tick")
    };
    let scale = timing.per_second();
    [
        card(
            "card-ttft-p50",
            "TTFT median",
            &value(&|r| ticks(r.ttft_p50)),
            unit,
            &format!(
                "{} from arrival to first token for the middle request.",
                capital(unit)
            ),
        ),
        card(
            "card-ttft-p95",
            "TTFT P95",
            &value(&|r| ticks(r.ttft_p95)),
            unit,
            &format!("95% of requests saw their first token within this many {unit}."),
        ),
        card(
            "card-e2e-p95",
            "E2E P95",
            &value(&|r| ticks(r.e2e_p95)),
            unit,
            &format!("95% of requests finished their whole answer within this many {unit}."),
        ),
        card(
            "card-slo",
            "TTFT SLO met",
            &value(&|r| percent(r.slo_attainment)),
            "",
            &format!(
                "Share of requests whose first token arrived within the {slo}-{} TTFT objective.",
                if ms { "ms" } else { "tick" }
            ),
        ),
        card(
            "card-cache",
            "Prompt from cache",
            &value(&|r| percent(r.cache_hit_share)),
            "",
            "Share of prompt tokens reused from a replica's prefix cache instead of recomputed.",
        ),
        card(
            "card-throughput",
            "Output throughput",
            &value(&|r| one_decimal(r.output_throughput * scale)),
            if ms { "tokens/s" } else { "tokens/tick" },
            &format!("Output tokens of finished requests per {per}, over the whole run."),
        ),
    ]
    .into_iter()
    .collect()
}

/// `s` with its first letter in capitals (ASCII: the titles are ours, and
/// Unicode case tables would add some 15 KB to the bundle).
fn capital(s: &str) -> String {
    let mut out = s.to_string();
    if let Some(f) = out.get_mut(..1) {
        f.make_ascii_uppercase();
    }
    out
}

/// The page header: title, what to try, and what a tick means.
fn header() -> Html {
    let rules = RuleKind::ALL.len();
    el("div")
        .child(el("h1").text(Lab::INFO.title))
        .child(el("p").class("lede").text(format!(
            "One seeded stream of requests, replayed under {rules} selection rules on identical replicas. \
             From light load up to about the pool's capacity (the offered load under the rate says where \
             you are), least outstanding keeps the slowest first tokens sooner than round robin in most \
             seeds; far past capacity every rule is just a queue and their order is close to a coin flip. \
             Play the ticks to watch where each request goes, or put two rules side by side."
        )))
        .child(el("p").class("small muted").text(
            "A tick is one engine iteration (one prefill or one decode step), not a measured time; \
             choose a GPU under the workload settings to price each iteration in milliseconds from \
             that GPU and a model. Follows §4.2 of the reference article; compare rules by their \
             gaps, not absolute values.",
        ))
        .into()
}

/// What the rule in focus reads and, for a real router's policy, where it is
/// from.
fn about_rule(rule: RuleKind) -> Html {
    let origin = rule.origin();
    let mut p = el("p")
        .class("small rule-about")
        .id("rule-about")
        .text(rule.blurb());
    if !origin.is_textbook() {
        p = p.child(
            el("span")
                .class("muted")
                .text(format!(" Modelled on {}.", origin.credit())),
        );
    }
    p.into()
}

/// The rule in focus's outcome.
fn focused<'a>(v: &View<'a, Lab>) -> Option<&'a RuleOutcome> {
    v.outcome.rule(v.focus?)
}

/// The offered load under the rate, and the prompt range.
fn under_controls(v: &View<'_, Lab>) -> Html {
    let Some(r) = focused(v) else {
        return Html::new();
    };
    let load = r.offered_load;
    let ms = v.config.timing.in_ms();
    let (class, verdict) = if load > 1.15 {
        (
            "offered over",
            "over capacity: requests arrive faster than the pool can serve them, so queues grow until arrivals stop",
        )
    } else if load > 0.85 {
        (
            "offered near",
            "around capacity: queues build up while requests keep arriving",
        )
    } else {
        ("offered", "below capacity")
    };
    let replayed = v.outcome.source == TraceSource::Replayed;
    let offered = el("p")
        .class(class)
        .id("offered-load")
        .attr("role", if load > 1.15 { "status" } else { "note" })
        .child(el("strong").text(format!("Offered load {}%", crate::ui::format::fixed(load * 100.0, 0))))
        .text(if replayed {
            format!(" of the pool's capacity ({verdict}).")
        } else if ms {
            format!(
                " of the pool's capacity at {} req/s ({verdict}).",
                crate::ui::format::fixed(v.config.rps, 2)
            )
        } else {
            format!(
                " of the pool's capacity at {} req/tick ({verdict}).",
                crate::ui::format::fixed(v.config.rate, 2)
            )
        })
        .child(el("span").class("small muted").text(if ms {
            " Work the requests bring (uncached prompt in prefill steps, output at full batches, each step as long as the preset makes it) per millisecond of arrivals, over what the replicas can run."
        } else {
            " Work the requests bring (uncached prompt in prefill steps, output at full batches) per tick of arrivals, over what the replicas can run."
        }));
    // What the preset implies, in one line.
    let preset = v
        .config
        .timing
        .summary(v.config.kv_block_tokens)
        .map(|s| {
            Html::from(
                el("p")
                    .class("small")
                    .id("preset-summary")
                    .text(format!("{s}.")),
            )
        })
        .unwrap_or_default();
    let t = &v.outcome.trace;
    let range = el("p").class("small").id("prompt-range").text(format!(
        "{} prompts: {}–{} tokens (mean {})",
        if replayed { "Trace" } else { "Generated" },
        thousands(t.prompt.min.into()),
        thousands(t.prompt.max.into()),
        thousands(t.prompt.mean.round() as u64)
    ));
    [Html::from(offered), preset, range.into()]
        .into_iter()
        .collect()
}

/// The rule in focus: what it reads, and its six cards.
fn rule_cards(v: &View<'_, Lab>) -> Html {
    let Some(rule) = v.focus else {
        return Html::new();
    };
    [
        Html::from(el("h2").text(format!("Result for {}", rule.title()))),
        about_rule(rule),
        el("div")
            .class("cards")
            .child(cards(focused(v), v.config.slo_ticks(), &v.config.timing))
            .into(),
    ]
    .into_iter()
    .collect()
}

/// The queue chart of `rule` on the axes every rule shares, marking the
/// player's tick.
fn queue_spec(v: &View<'_, Lab>, rule: Option<RuleKind>) -> Option<crate::ui::plot::ChartSpec> {
    let o = v.outcome;
    let range = chart::shared_range(o.rules.iter().map(|r| &r.queue));
    let r = o.rule(rule?)?;
    Some(chart::spec(
        &r.queue,
        range,
        Some(v.step() as f64),
        tick_word(v),
    ))
}

/// What one step of the clock is called: a tick, or a millisecond.
fn tick_word(v: &View<'_, Lab>) -> &'static str {
    if v.config.timing.in_ms() {
        "ms"
    } else {
        "tick"
    }
}

/// The second rule side by side, if it is not the one in focus.
fn vs_rule(v: &View<'_, Lab>) -> Option<RuleKind> {
    v.vs.filter(|r| Some(*r) != v.focus)
}

/// The Routing Lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: header,
    inputs: "Workload",
    under_controls: Some(under_controls),
    imported: Some(|v| v.outcome.import.as_ref().map(|i| i.summary())),
    progress: "rules",
    player: Some(player::PLAYER),
    cards: Some(rule_cards),
    charts: &[
        Chart::<Lab>::new(
            "queue-chart",
            |v| {
                format!(
                    "Queue evolution under {}: outstanding requests (waiting + running) per replica; the line marks the player's tick (click to move it)",
                    v.focus.map_or("", |r| r.title())
                )
            },
            |v, _| queue_spec(v, v.focus),
            |v| {
                focused(v)
                    .map(|r| chart::summary(&r.queue, tick_word(v)))
                    .unwrap_or_default()
            },
        )
        .help(
            "Each line is one replica's queue plus batch: requests routed to it and not yet finished. \
             Lines that stay together mean the rule spreads work evenly; one line climbing away from \
             the others is a replica the rule keeps feeding while it is already behind. Each point is \
             the highest value within a few ticks.",
        )
        .seek(Seek::Step),
        Chart::<Lab>::new(
            "queue-chart-vs",
            |v| {
                vs_rule(v)
                    .map(|r| format!("… and under {}, on the same axes", r.title()))
                    .unwrap_or_default()
            },
            |v, _| queue_spec(v, vs_rule(v)),
            |v| {
                vs_rule(v)
                    .and_then(|r| v.outcome.rule(r))
                    .map(|r| chart::summary(&r.queue, tick_word(v)))
                    .unwrap_or_default()
            },
        )
        .seek(Seek::Step)
        .shown(|v| vs_rule(v).is_some()),
    ],
    tables: &[|v| {
        focused(v)
            .map(|r| tables::replica_table(r, v.config.timing.in_ms()))
            .unwrap_or_default()
    }],
    extras: &[crate::labs::routing::decisions::decisions],
    comparison: Some(Comparison {
        heading: "Every rule, same trace",
        table: |v| {
            v.focus
                .map(|rule| {
                    tables::compare_table(v.outcome, rule, v.pickable, v.config.timing.in_ms())
                })
                .unwrap_or_default()
        },
        note: |v| {
            // Why this table is not the article's, beside the table; the
            // link sits after the player and the controls in tab order.
            el("p")
                .class("small muted")
                .text(format!(
                    "★ marks the best value in each column (every tied best is marked; a column where all rows tie has none). TTFT SLO: first token within {} {}. Hover a column title for its meaning. \
                     The article's §4.2 table differs: it prints one trace of its generator, while this lab's claims hold as medians over seeds 1–100. ",
                    v.config.slo_ticks(),
                    v.config.timing.unit()
                ))
                .child(
                    el("a")
                        .id("validation-link")
                        .href("?lab=validate")
                        // A new tab: the lab keeps its state, and an embed
                        // does not turn into the validation page.
                        .attr("target", "_blank")
                        .attr("rel", "noopener")
                        .text("The validation page"),
                )
                .text(" (or lblab validate) sets the lab beside three published deployments.")
                .into()
        },
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}
