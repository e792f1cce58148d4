//! Model cascades (§10.2): escalating the slowest share of an exponential
//! workload to a large model, and what that pool's service times become.

use sim_core::labs::queueing::cascade;

use super::{card, seed_controls, Explorable, Outcome, Page, Params};
use crate::components::{ControlKind, ControlSpec};
use crate::format::{fill, fixed};

fn controls() -> Vec<ControlSpec> {
    vec![ControlSpec {
        key: "escalate",
        label: "Escalated",
        hint: "the slowest requests, sent on to the large model",
        kind: ControlKind::Range {
            min: 1.0,
            max: 100.0,
            step: 1.0,
            unit: "%",
            format: |x| fixed(x, 0),
        },
    }]
    .into_iter()
    .chain(seed_controls("Seed of the sampled check"))
    .collect()
}

fn compute(p: &Params) -> Result<Page, String> {
    let q = p.num("escalate") / 100.0;
    let c = cascade::cascade(q, cascade::SAMPLES, p.whole("seed")).map_err(|e| e.to_string())?;
    let (share, cv2, ratio) = (fixed(q * 100.0, 0), fixed(c.cv2, 2), fixed(c.mean_ratio, 1));
    let mut html = String::from(r#"<h2>What the large model's pool sees</h2><div class="cards">"#);
    html += &card(
        "card-cv2",
        "Service-time C²",
        &cv2,
        "(raw: 1.00)",
        "Squared CV of the escalated service times: 1 / (1 + ln(1/q))².",
    );
    html += &card(
        "card-mean",
        "Mean service time",
        &format!("×{ratio}"),
        "the raw mean",
        "1 + ln(1/q) raw means: size the pool by work, not request count.",
    );
    html += &card(
        "card-sampled",
        "Sampled: C² · mean",
        &fill("{} · ×{}", &[fixed(c.sampled.0, 3), fixed(c.sampled.1, 2)]),
        "",
        "Both figures measured on 200,000 seeded draws.",
    );
    html += "</div>";
    let head = std::mem::take(&mut html);
    html += &fill(
        r#"<p>Escalating the slowest {}% sends on every request longer than <strong>{}</strong> mean service times. By C² alone the large pool looks easier.</p><p class="notice" id="arrivals-note"><strong>But arrivals change:</strong> what escalates depends on the small model, the prompts and the query mix, so the stream is not Poisson; it bursts, and jumps when any of them change. In Kingman's formula Ca² grows, on top of a mean ×{}.</p>"#,
        &[share.clone(), fixed((1.0 / q).ln(), 2), ratio.clone()],
    );
    let summary = fill(
        "Service-time C² and mean of the escalated requests against the share escalated; at {}%, C² is {} and the mean is {} times the raw mean.",
        &[share, cv2, ratio],
    );
    Ok(Page {
        head,
        html,
        chart: crate::charts::cascade::spec(&c),
        summary,
        outcome: Outcome::Cascade(c),
    })
}

/// The cascade explorable.
pub static EXPLORABLE: Explorable = Explorable {
    id: "cascade",
    header: r#"<h1>Model cascades</h1><p class="lede">A cascade tries a small model first and escalates hard requests to a large one. If the hard ones are the long ones, the large pool sees less variable but much longer work, arriving in a way that is no longer Poisson.</p><p class="small muted">Raw service times: exponential, mean 1. Follows §10.2 of the reference article.</p>"#,
    controls,
    defaults: &[("escalate", "10"), ("seed", "1")],
    text_ok: |_, _| false,
    compute,
    defer: |_, _| false,
    caption: "The escalated requests' service times against the share escalated",
    help: "The squared CV (falling) and mean (rising) of the escalated requests' service times against the share escalated; the vertical line is your setting. The arrival process is not drawn: see the note below.",
};
