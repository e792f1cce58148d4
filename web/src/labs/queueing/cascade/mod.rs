//! Model cascades (§10.2): escalating the slowest share of an exponential
//! workload to a large model, and what that pool's service times become.

/// The chart spec.
pub mod chart;

use leptos::prelude::*;
use sim_core::labs::queueing::cascade::{self, CascadeLab};

use crate::page::{Chart, Page, View};
use crate::ui::format::fixed;
use crate::ui::html::Html;
use crate::ui::table::{card, Pick};

/// The share escalated, C² and the mean ratio, as shown.
fn shown(c: &cascade::Cascade) -> (String, String, String) {
    (
        fixed(c.escalate * 100.0, 0),
        fixed(c.cv2, 2),
        fixed(c.mean_ratio, 1),
    )
}

/// C², mean and the sampled check.
fn head(v: &View<'_, CascadeLab>) -> AnyView {
    let c = v.outcome;
    let (_, cv2, ratio) = shown(c);
    let cards: Vec<AnyView> = [
        card(
            "card-cv2",
            "Service-time C²",
            &cv2,
            "(raw: 1.00)",
            "Squared CV of the escalated service times: 1 / (1 + ln(1/q))².",
        ),
        card(
            "card-mean",
            "Mean service time",
            &format!("×{ratio}"),
            "the raw mean",
            "1 + ln(1/q) raw means: size the pool by work, not request count.",
        ),
        card(
            "card-sampled",
            "Sampled: C² · mean",
            &format!("{} · ×{}", fixed(c.sampled.0, 3), fixed(c.sampled.1, 2)),
            "",
            "Both figures measured on seeded draws (see More settings).",
        ),
    ]
    .into();
    view! {
        <h2>"What the large model's pool sees"</h2>
        <div class="cards">{cards}</div>
    }
    .into_any()
}

/// Where the cut falls, and what the arrivals become.
fn details(v: &View<'_, CascadeLab>, _: Pick) -> AnyView {
    let c = v.outcome;
    let q = c.escalate;
    let (share, _, ratio) = shown(c);
    let longer = format!("Escalating the slowest {share}% sends on every request longer than ");
    let bursts = format!(
        " what escalates depends on the small model, the prompts and the query mix, so the stream is not Poisson; it bursts, and jumps when any of them change. In Kingman's formula Ca² grows, on top of a mean ×{ratio}."
    );
    view! {
        <p>
            {longer}
            <strong>{fixed((1.0 / q).ln(), 2)}</strong>
            " mean service times. By C² alone the large pool looks easier."
        </p>
        <p class="notice" id="arrivals-note">
            <strong>"But arrivals change:"</strong>
            {bursts}
        </p>
    }
    .into_any()
}

/// The chart in words.
fn summary(v: &View<'_, CascadeLab>) -> String {
    let (share, cv2, ratio) = shown(v.outcome);
    format!(
        "Service-time C² and mean of the escalated requests against the share escalated; at {share}%, C² is {cv2} and the mean is {ratio} times the raw mean."
    )
}

/// The cascade page.
pub static PAGE: Page<CascadeLab> = Page {
    intro: crate::intro!(|| Html::trusted(INTRO)),
    cards: Some(head),
    charts: &[Chart::new(
        super::CHART,
        |_| "The escalated requests' service times against the share escalated".into(),
        |v, _| Some(crate::labs::queueing::cascade::chart::spec(v.outcome)),
        summary,
    )
    .help(HELP)],
    tables: &[details],
    ..Page::EMPTY
};

impl crate::page::LabPage for CascadeLab {
    const PAGE: &'static Page<Self> = &PAGE;
}

const INTRO: &str = r#"<h1>Model cascades</h1><p class="lede">A cascade tries a small model first and escalates hard requests to a large one. If the hard ones are the long ones, the large pool sees less variable but much longer work, arriving in a way that is no longer Poisson.</p><p class="small muted">Raw service times: exponential, mean 1. Follows §10.2 of the reference article.</p>"#;

const HELP: &str = "The squared CV (falling) and mean (rising) of the escalated requests' service times against the share escalated; the vertical line is your setting. The arrival process is not drawn: see the note below.";
