//! The utilisation knee (§1.2): Pollaczek–Khinchine and Kingman curves, the
//! usable utilisation at a tolerable wait, and a seeded single-server simulation.

/// The chart spec.
pub mod chart;

use leptos::prelude::*;
use sim_core::labs::queueing::knee::{self, KneeLab};

use super::heads;
use crate::labs::queueing::knee::chart::{spec, COLORS, NAMES};
use crate::page::{Chart, Page, View};
use crate::ui::format::{fixed, signed, thousands};
use crate::ui::html::Html;
use crate::ui::table::{card, Cell, Pick, Row, Table};

/// Each curve's usable utilisation, as shown.
fn usable(o: &knee::Outcome) -> Vec<String> {
    o.curves
        .iter()
        .map(|k| fixed(k.usable_utilization, 2))
        .collect()
}

/// Three read-offs: CV² 0, 1 and 4.
fn head(v: &View<'_, KneeLab>) -> AnyView {
    let (o, c) = (v.outcome, &v.outcome.config);
    let usable = usable(o);
    let wait = fixed(c.wait, 1);
    let cards: Vec<AnyView> = ["0", "1", "4"]
        .into_iter()
        .enumerate()
        .map(|(i, cv2)| {
            card(
                &format!("readoff-{cv2}"),
                &format!("CV² {cv2}"),
                &usable[i],
                "ρ",
                &format!(
                    "Utilisation where the mean wait reaches {wait} service times at service-time CV² {cv2}."
                ),
            )
        })
        .collect();
    view! {
        <h2>"Usable utilisation"</h2>
        <div class="cards">{cards}</div>
    }
    .into_any()
}

/// Every curve, and the simulated points if any.
fn details(v: &View<'_, KneeLab>, _: Pick) -> AnyView {
    let (o, c) = (v.outcome, &v.outcome.config);
    let usable = usable(o);
    let wait = fixed(c.wait, 1);
    let deterministic = o.curves[0].usable_utilization;
    let rows = o
        .curves
        .iter()
        .enumerate()
        .map(|(i, curve)| Row {
            cells: vec![
                Cell::new(NAMES[i]).swatch(crate::ui::theme::replica_hex(COLORS[i])),
                Cell::new(fixed(curve.cv2, 1)),
                Cell::new(fixed(curve.ca2, 1)),
                Cell::new(usable[i].clone()),
                Cell::new(fixed((deterministic - curve.usable_utilization) * 100.0, 0)),
            ],
            ..Row::default()
        })
        .collect();
    let curves = Table {
        id: "curves",
        caption: format!(
            "Every curve at a tolerable wait of {wait} service times ({} s at a {} s mean)",
            fixed(c.wait * c.service_mean, 1),
            fixed(c.service_mean, 1),
        ),
        head: heads(&[
            ("Curve", ""),
            ("Cs²", "squared CV of service times"),
            ("Ca²", "squared CV of inter-arrival times"),
            (
                "Usable ρ",
                "utilisation where the mean wait reaches the tolerable wait",
            ),
            (
                "Points lost",
                "percentage points of utilisation given up against deterministic service",
            ),
        ]),
        rows,
        ..Table::default()
    }
    .view(None);
    let simulated = (!o.simulated.is_empty()).then(|| {
        let rows = o
            .simulated
            .iter()
            .map(|s| Row {
                cells: vec![
                    Cell::new(fixed(s.rho, 1)),
                    Cell::new(format!("{} ± {}", fixed(s.mean_wait, 2), fixed(s.band, 2))),
                    Cell::new(format!("{} s", fixed(s.mean_wait * c.service_mean, 1))),
                    Cell::new(fixed(s.formula, 2)),
                    Cell::new(format!(
                        "{}%",
                        signed((s.mean_wait / s.formula - 1.0) * 100.0, 1)
                    )),
                ],
                ..Row::default()
            })
            .collect();
        Table {
            id: "simulated",
            caption: format!(
                "Simulated: {} customers per point, seed {}",
                thousands(c.customers.into()),
                c.seed
            ),
            head: heads(&[
                ("ρ", ""),
                (
                    "Measured wait",
                    "mean wait in service times, ± half-width of the 95% band (20 batch means)",
                ),
                ("In seconds", "the measured wait at your mean service time"),
                (
                    "Formula",
                    "Kingman with your Ca² and CV² (Pollaczek–Khinchine when Ca² = 1)",
                ),
                ("Difference", "measured against formula"),
            ]),
            rows,
            ..Table::default()
        }
        .view(None)
    });
    view! { {curves}{simulated} }.into_any()
}

/// The chart in words.
fn summary(v: &View<'_, KneeLab>) -> String {
    let (o, c) = (v.outcome, &v.outcome.config);
    let usable = usable(o);
    let wait = fixed(c.wait, 1);
    format!(
        "Mean wait over service time against utilisation. At a tolerable wait of {wait} service times the usable utilisation is {} for CV² 0, {} for CV² 1, {} for CV² 4 and {} for your CV² of {}.{}",
        usable[0],
        usable[1],
        usable[2],
        usable[3],
        fixed(c.cv2, 1),
        if o.simulated.is_empty() {
            ""
        } else {
            " Simulated points with their 95% band sit on the formula's curve."
        },
    )
}

/// The knee's page.
pub static PAGE: Page<KneeLab> = Page {
    intro: crate::intro!(|| Html::trusted(INTRO)),
    cards: Some(head),
    charts: &[Chart::new(
        super::CHART,
        |_| "Mean wait against utilisation, one curve per service-time variability".into(),
        |v, _| Some(spec(v.outcome)),
        summary,
    )
    .help(HELP)],
    tables: &[details],
    defer: |c, key| c.simulate && matches!(key, "cv2" | "ca2" | "mean"),
    ..Page::EMPTY
};

impl crate::page::LabPage for KneeLab {
    const PAGE: &'static Page<Self> = &PAGE;
}

const INTRO: &str = r#"<h1>The utilisation knee</h1><p class="lede">How busy can a server run before requests wait too long? Set the wait you tolerate and read across: the more service times vary, the earlier each curve crosses it. Simulate to check the formula.</p><p class="small muted">Pollaczek–Khinchine (Poisson arrivals) and Kingman (any arrivals); waits in mean service times. Follows §1.2 of the reference article.</p>"#;

const HELP: &str = "Mean wait in queue, in service times, as utilisation grows. Where a curve crosses your tolerable wait (the horizontal line), a dot drops to the utilisation it allows: more variable service crosses earlier. Simulated dots carry their 95% band; the simulation reruns (off the page's thread) when you release a slider.";
