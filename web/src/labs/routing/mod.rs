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

use leptos::prelude::*;

use crate::page::{Chart, Comparison, Page, Seek, View};
use crate::ui::format::{fixed, one_decimal, percent, thousands, ticks};
use crate::ui::html::Html;
use crate::ui::table::card;

/// The six result cards of one rule; each card's meaning shows on hover and
/// keyboard focus and is its accessible description. Times are in ticks, or
/// in milliseconds when a GPU preset prices the iterations.
fn cards(r: Option<&RuleOutcome>, slo: u64, timing: &Timing) -> Vec<AnyView> {
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
    .into()
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

/// The page header: title, what to try, and what a tick means. Static
/// prose around two values of the lab's own (its title and the number of
/// rules), so it stays HTML text (the shell renders the intro as such).
fn header() -> Html {
    let rules = RuleKind::ALL.len();
    let mut h = Html::trusted("<div><h1>");
    h.push_text(Lab::INFO.title);
    h.push(Html::trusted(r#"</h1><p class="lede">"#));
    h.push_text(format!(
        "One seeded stream of requests, replayed under {rules} selection rules on identical replicas. \
         From light load up to about the pool's capacity (the offered load under the rate says where \
         you are), least outstanding keeps the slowest first tokens sooner than round robin in most \
         seeds; far past capacity every rule is just a queue and their order is close to a coin flip. \
         Play the ticks to watch where each request goes, or put two rules side by side."
    ));
    h.push(Html::trusted(
        "</p><p class=\"small muted\">A tick is one engine iteration (one prefill or one decode step), not a measured time; \
         choose a GPU under the workload settings to price each iteration in milliseconds from \
         that GPU and a model. Follows §4.2 of the reference article; compare rules by their \
         gaps, not absolute values.</p></div>",
    ));
    h
}

/// What the rule in focus reads and, for a real router's policy, where it is
/// from.
fn about_rule(rule: RuleKind) -> impl IntoView {
    let origin = rule.origin();
    let credit = (!origin.is_textbook()).then(
        || view! { <span class="muted">{format!(" Modelled on {}.", origin.credit())}</span> },
    );
    view! { <p class="small rule-about" id="rule-about">{rule.blurb()}{credit}</p> }
}

/// The rule in focus's outcome.
fn focused<'a>(v: &View<'a, Lab>) -> Option<&'a RuleOutcome> {
    v.outcome.rule(v.focus?)
}

/// The offered load's class, its words and its ARIA role, judged on the
/// whole percent the page prints beside them, so the words cannot disagree
/// with the number: above 100% is over capacity (the queue can only grow),
/// from 85% to 100% near it, below 85% below it. Over capacity is news (a
/// status a screen reader announces); otherwise a note.
fn load_verdict(load: f64) -> (&'static str, &'static str, &'static str) {
    let shown = (load * 100.0).round();
    if shown > 100.0 {
        (
            "offered over",
            "over capacity: requests arrive faster than the pool can serve them, so queues grow until arrivals stop",
            "status",
        )
    } else if shown >= 85.0 {
        (
            "offered near",
            "near capacity: queues build up while requests keep arriving",
            "note",
        )
    } else {
        ("offered", "below capacity", "note")
    }
}

/// The offered load under the rate, and the prompt range.
fn under_controls(v: &View<'_, Lab>) -> AnyView {
    let Some(r) = focused(v) else {
        return ().into_any();
    };
    let load = r.offered_load;
    let ms = v.config.timing.in_ms();
    let (class, verdict, role) = load_verdict(load);
    let replayed = v.outcome.source == TraceSource::Replayed;
    let of_capacity = if replayed {
        format!(" of the pool's capacity ({verdict}).")
    } else if ms {
        format!(
            " of the pool's capacity at {} req/s ({verdict}).",
            fixed(v.config.rps, 2)
        )
    } else {
        format!(
            " of the pool's capacity at {} req/tick ({verdict}).",
            fixed(v.config.rate, 2)
        )
    };
    let work = if ms {
        " Work the requests bring (uncached prompt in prefill steps, output at full batches, each step as long as the preset makes it) per millisecond of arrivals, over what the replicas can run."
    } else {
        " Work the requests bring (uncached prompt in prefill steps, output at full batches) per tick of arrivals, over what the replicas can run."
    };
    // What the preset implies, in one line.
    let preset = v
        .config
        .timing
        .summary(v.config.kv_block_tokens)
        .map(|s| view! { <p class="small" id="preset-summary">{format!("{s}.")}</p> });
    let t = &v.outcome.trace;
    let range = format!(
        "{} prompts: {}–{} tokens (mean {})",
        if replayed { "Trace" } else { "Generated" },
        thousands(t.prompt.min.into()),
        thousands(t.prompt.max.into()),
        thousands(t.prompt.mean.round() as u64)
    );
    view! {
        <p class=class id="offered-load" role=role>
            <strong>{format!("Offered load {}%", fixed(load * 100.0, 0))}</strong>
            {of_capacity}
            <span class="small muted">{work}</span>
        </p>
        {preset}
        <p class="small" id="prompt-range">{range}</p>
        {trace_stats(t, replayed)}
    }
    .into_any()
}

/// A workload's own statistics, as `lblab` prints them: how bursty its
/// arrivals are, its prompt and output lengths, and the share of prompt
/// tokens any prefix cache could have served (§15: read the reuse before
/// comparing cache-aware rules on it).
pub fn trace_stats(t: &sim_core::workload::TraceStats, replayed: bool) -> AnyView {
    let text = trace_stats_text(t, replayed);
    view! { <p class="small" id="trace-stats">{text}</p> }.into_any()
}

/// [`trace_stats`] as a sentence.
pub fn trace_stats_text(t: &sim_core::workload::TraceStats, replayed: bool) -> String {
    format!(
        "{}: inter-arrival CV {}; prompts P50 {} and P99 {} tokens; outputs P50 {} and P99 {}; reuse bound {}% of prompt tokens (the most any prefix cache could serve, in {}-token blocks).",
        if replayed { "The trace" } else { "The generated workload" },
        fixed(t.interarrival_cv, 2),
        thousands(t.prompt.p50.round() as u64),
        thousands(t.prompt.p99.round() as u64),
        thousands(t.output.p50.round() as u64),
        thousands(t.output.p99.round() as u64),
        fixed(t.reuse_bound * 100.0, 1),
        t.block_tokens
    )
}

/// The rule in focus: what it reads, and its six cards.
fn rule_cards(v: &View<'_, Lab>) -> AnyView {
    let Some(rule) = v.focus else {
        return ().into_any();
    };
    view! {
        <h2>{format!("Result for {}", rule.title())}</h2>
        {about_rule(rule)}
        <div class="cards">{cards(focused(v), v.config.slo_ticks(), &v.config.timing)}</div>
    }
    .into_any()
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

/// Why the comparison is not the article's table, beside it; the link sits
/// after the player and the controls in tab order.
fn comparison_note(v: &View<'_, Lab>) -> AnyView {
    let words = format!(
        "★ marks the best value in each column (every tied best is marked; a column where all rows tie has none). TTFT SLO: first token within {} {}. Hover a column title for its meaning. \
         The article's §4.2 table differs: it prints one trace of its generator, while this lab's claims hold as medians over seeds 1–100. ",
        v.config.slo_ticks(),
        v.config.timing.unit()
    );
    // A new tab: the lab keeps its state, and an embed does not turn into
    // the validation page.
    view! {
        <p class="small muted">
            {words}
            <a id="validation-link" href="?lab=validate" target="_blank" rel="noopener">"The validation page"</a>
            " (or lblab validate) sets the lab beside published deployments."
        </p>
    }
    .into_any()
}

/// The Routing Lab's page.
pub static PAGE: Page<Lab> = Page {
    intro: crate::intro!(header),
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
    tables: &[|v, _| {
        focused(v)
            .map(|r| tables::replica_table(r, v.config.timing.in_ms()))
            .unwrap_or_else(|| ().into_any())
    }],
    extras: &[crate::labs::routing::decisions::decisions],
    comparison: Some(Comparison {
        heading: "Every rule, same trace",
        table: |v, pick| {
            v.focus
                .map(|rule| {
                    let pick = v.pickable.then_some(pick);
                    tables::compare_table(v.outcome, rule, pick, v.config.timing.in_ms())
                })
                .unwrap_or_else(|| ().into_any())
        },
        note: comparison_note,
    }),
    ..Page::EMPTY
};

impl crate::page::LabPage for Lab {
    const PAGE: &'static Page<Self> = &PAGE;
}

#[cfg(test)]
mod tests {
    use super::load_verdict;

    /// The words follow the printed percent: 107% is over capacity (the
    /// review found it called "around capacity"), 100% is not over, 85% is
    /// near and 84% below.
    #[test]
    fn the_load_words_match_the_printed_percent() {
        let words = |load: f64| load_verdict(load).1.split(':').next().unwrap_or("");
        assert_eq!(words(1.07), "over capacity");
        assert_eq!(load_verdict(1.07).2, "status");
        assert_eq!(words(1.004), "near capacity", "printed as 100%");
        assert_eq!(words(1.006), "over capacity", "printed as 101%");
        assert_eq!(words(0.85), "near capacity");
        assert_eq!(words(0.844), "below capacity");
        assert_eq!(load_verdict(2.0).0, "offered over");
    }
}
