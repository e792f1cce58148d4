//! Retry amplification (§9.1): attempts multiply down a stack of layers, and a
//! seeded incident compares three places to put retries.

use sim_core::labs::queueing::retries;

use super::{card, heads, range, seed_controls, Explorable, Outcome, Page, Params};
use crate::charts::retries::{policies, spec, POLICIES};
use crate::components::{ControlKind, ControlSpec};
use crate::format::{fill, fixed};
use crate::html::{Cell, Row, Table};

/// Attempts per layer from text like `3,4,4,3` (1–8 layers, 1–10 each).
fn parse_attempts(text: &str) -> Option<Vec<u32>> {
    let a: Vec<u32> = text
        .split(',')
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    (!a.is_empty() && a.len() <= 8 && a.iter().all(|x| (1..=10).contains(x))).then_some(a)
}

/// A layer's name in a stack of `n`, top first (the article's four layers).
fn layer_name(i: usize, n: usize) -> String {
    match (i, n - 1 - i) {
        (_, 0) => "Provider SDK".into(),
        (_, 1) => "Gateway router".into(),
        (0, _) => "Client SDK".into(),
        (1, _) => "Agent tool loop".into(),
        (i, _) => fill("Middleware {}", &[i.to_string()]),
    }
}

fn controls() -> Vec<ControlSpec> {
    let int = |x: f64| fixed(x, 0);
    vec![
        ControlSpec {
            key: "attempts",
            label: "Attempts per layer",
            hint: "top layer first, comma-separated: 1–8 layers, 1–10 attempts each",
            kind: ControlKind::Text,
        },
        range(
            "budget",
            "Retry budget",
            "retries per step at most this share of the last step's successes",
            0.0,
            50.0,
            1.0,
            "%",
            int,
        ),
        range(
            "fail",
            "Failure rate in the incident",
            "chance each upstream call fails during steps 40–79",
            0.0,
            100.0,
            1.0,
            "%",
            int,
        ),
    ]
    .into_iter()
    .chain(seed_controls("Seed"))
    .collect()
}

fn compute(p: &Params) -> Result<Page, String> {
    let attempts = parse_attempts(p.text("attempts")).ok_or(
        "attempts must be 1–8 comma-separated whole numbers between 1 and 10, e.g. 3,4,4,3",
    )?;
    let cfg = retries::Config {
        attempts,
        budget: p.num("budget") / 100.0,
        incident_failure: p.num("fail") / 100.0,
        seed: p.whole("seed"),
        ..retries::Config::default()
    };
    let o = retries::run(&cfg).map_err(|e| e.to_string())?;
    let n = cfg.attempts.len();
    let mut html = String::from(
        r#"<h2>Worst case: attempts multiply</h2><p class="small muted">Calls leaving each layer per user action when every attempt fails, top layer first:</p><ol class="stack" id="stack">"#,
    );
    for (i, (&a, &product)) in cfg.attempts.iter().zip(&o.running_product).enumerate() {
        html += &fill(
            r#"<li><span class="stack-layer">{}</span><span class="stack-attempts">{} (+{} {})</span><span class="stack-product">×{}</span></li>"#,
            &[
                layer_name(i, n),
                if a == 1 {
                    "1 attempt".into()
                } else {
                    fill("{} attempts", &[a.to_string()])
                },
                (a - 1).to_string(),
                if a == 2 { "retry" } else { "retries" }.into(),
                product.to_string(),
            ],
        );
    }
    html += "</ol>";
    let window = cfg.incident_start as usize..(cfg.incident_start + cfg.incident_length) as usize;
    let peak = |s: &[f64]| s[window.clone()].iter().copied().fold(0.0, f64::max);
    let mean = |s: &[f64]| s[window.clone()].iter().sum::<f64>() / window.len() as f64;
    html += r#"<div class="cards">"#;
    html += &card(
        "card-upstream",
        "Upstream calls, worst case",
        &crate::format::thousands(o.upstream_calls),
        "per action",
        "The product of all layers' attempts: one action when every attempt fails.",
    );
    let series = policies(&o);
    let peaks: Vec<String> = series.iter().map(|s| fixed(peak(s), 2)).collect();
    for (i, id) in ["card-every", "card-one", "card-budget"]
        .into_iter()
        .enumerate()
    {
        html += &card(
            id,
            POLICIES[i],
            &peaks[i],
            "calls/action",
            "The most upstream calls per user action in one step of the incident.",
        );
    }
    html += "</div>";
    let head = std::mem::take(&mut html);
    let rows = (0..3)
        .map(|i| Row {
            cells: vec![
                Cell::new(POLICIES[i]),
                Cell::new(fixed(series[i][5], 2)),
                Cell::new(fixed(mean(series[i]), 2)),
                Cell::new(peaks[i].clone()),
            ],
            ..Row::default()
        })
        .collect();
    html += &Table {
        id: "policies",
        caption: fill(
            "{} user actions per step; the single retrying layer is the {}",
            &[
                o.config.actions.to_string(),
                layer_name(n.saturating_sub(2), n),
            ],
        ),
        head: heads(&[
            ("Policy", ""),
            (
                "Before",
                "upstream calls per action at step 5, before the incident",
            ),
            ("Incident mean", "mean calls per action over the incident"),
            (
                "Incident peak",
                "highest calls per action in one step of the incident",
            ),
        ]),
        rows,
        ..Table::default()
    }
    .render();
    html += r#"<p class="small muted">Budgeted retries back off 1, 2, 4 … steps (times a random 0.5–1.5) and are dropped once the step's budget is spent.</p>"#;
    let summary = fill(
        "Upstream calls per user action over {} steps. During the incident every layer retrying peaks at {}, one retrying layer at {}, and one layer under a {}% budget at {}.",
        &[
            cfg.steps.to_string(),
            peaks[0].clone(),
            peaks[1].clone(),
            fixed(cfg.budget * 100.0, 0),
            peaks[2].clone(),
        ],
    );
    Ok(Page {
        head,
        html,
        chart: spec(&o),
        summary,
        outcome: Outcome::Retries(o),
    })
}

/// The retries explorable.
pub static EXPLORABLE: Explorable = Explorable {
    id: "retries",
    header: r#"<h1>Retry amplification</h1><p class="lede">Every layer of an agent stack retries a little, and the counts multiply. Edit the attempts per layer, then watch an outage: retrying everywhere floods the provider, one retrying layer is bounded, and a retry budget keeps calls near one per action.</p><p class="small muted">A step is one time unit of the simulated incident. Follows §9.1 of the reference article.</p>"#,
    controls,
    defaults: &[
        ("attempts", "3,4,4,3"),
        ("budget", "10"),
        ("fail", "99"),
        ("seed", "1"),
    ],
    text_ok: |_, v| parse_attempts(v).is_some(),
    compute,
    defer: |_, _| false,
    caption: "Upstream calls per user action through an incident",
    help: "Calls reaching the provider per user action, step by step, on a log axis. In the shaded outage, retries at every layer multiply towards the worst case; one retrying layer sends at most its attempts; a budget tied to recent successes, which vanish in an outage, stays near one.",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_text_is_checked_and_layers_named() {
        assert_eq!(parse_attempts(" 3, 4,4 ,3"), Some(vec![3, 4, 4, 3]));
        for bad in ["", "3,,4", "0,2", "11", "1,2,3,4,5,6,7,8,9", "x"] {
            assert_eq!(parse_attempts(bad), None, "{bad}");
        }
        let names: Vec<String> = (0..4).map(|i| layer_name(i, 4)).collect();
        assert_eq!(
            names,
            [
                "Client SDK",
                "Agent tool loop",
                "Gateway router",
                "Provider SDK"
            ]
        );
        assert_eq!(layer_name(0, 1), "Provider SDK");
        assert_eq!(layer_name(2, 6), "Middleware 2");
    }
}
