//! The utilisation knee (§1.2): Pollaczek–Khinchine and Kingman curves, the
//! usable utilisation at a tolerable wait, and a seeded single-server simulation.

use std::cell::RefCell;

use sim_core::labs::queueing::knee;

use super::{card, heads, range, seed_controls, Explorable, Outcome, Page, Params};
use crate::charts::knee::{spec, COLORS, NAMES};
use crate::components::{ControlKind, ControlSpec};
use crate::format::{fill, fixed, signed, thousands};
use crate::html::{Cell, Row, Table};

thread_local! {
    /// The last simulation and what it was run for: moving the tolerable wait
    /// does not change it, so the slider stays instant with the overlay on.
    static LAST_SIM: RefCell<Option<(Vec<u64>, Vec<knee::SimPoint>)>> = const { RefCell::new(None) };
}

fn simulated(c: &knee::Config) -> Vec<knee::SimPoint> {
    let key = vec![
        c.cv2.to_bits(),
        c.ca2.to_bits(),
        c.service_mean.to_bits(),
        u64::from(c.customers),
        c.seed,
    ];
    LAST_SIM.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some((k, points)) if *k == key => points.clone(),
            _ => {
                let points = knee::simulate_points(c);
                *last = Some((key, points.clone()));
                points
            }
        }
    })
}

fn controls() -> Vec<ControlSpec> {
    let one = |x: f64| fixed(x, 1);
    vec![
        range(
            "wait",
            "Tolerable wait",
            "mean time in queue you accept",
            0.5,
            20.0,
            0.1,
            "service times",
            one,
        ),
        range(
            "cv2",
            "Your service-time CV²",
            "squared coefficient of variation; measure yours",
            0.0,
            16.0,
            0.1,
            "",
            one,
        ),
        range(
            "ca2",
            "Arrival CV² (Kingman)",
            "1 is Poisson; bursty or thinned arrivals are higher",
            0.0,
            16.0,
            0.1,
            "",
            one,
        ),
        ControlSpec {
            key: "simulate",
            label: "Simulate a single-server queue at five utilisations",
            hint: "",
            kind: ControlKind::Check,
        },
        range(
            "mean",
            "Mean service time (simulation)",
            "Gamma-distributed service times with this mean and your CV²",
            0.1,
            30.0,
            0.1,
            "s",
            one,
        ),
    ]
    .into_iter()
    .chain(seed_controls("Seed"))
    .collect()
}

fn compute(p: &Params) -> Result<Page, String> {
    let mut config = knee::Config {
        wait: p.num("wait"),
        cv2: p.num("cv2"),
        ca2: p.num("ca2"),
        service_mean: p.num("mean"),
        seed: p.whole("seed"),
        ..knee::Config::default()
    };
    let mut o = knee::run(&config).map_err(|e| e.to_string())?;
    if p.on("simulate") {
        config.simulate = true;
        o.simulated = simulated(&config);
        o.config = config;
    }
    let c = &o.config;
    let usable: Vec<String> = o
        .curves
        .iter()
        .map(|k| fixed(k.usable_utilization, 2))
        .collect();
    let wait = fixed(c.wait, 1);
    let mut html = String::from(r#"<h2>Usable utilisation</h2><div class="cards">"#);
    for (i, cv2) in ["0", "1", "4"].into_iter().enumerate() {
        html += &card(
            &fill("readoff-{}", &[cv2.into()]),
            &fill("CV² {}", &[cv2.into()]),
            &usable[i],
            "ρ",
            &fill(
                "Utilisation where the mean wait reaches {} service times at service-time CV² {}.",
                &[wait.clone(), cv2.into()],
            ),
        );
    }
    html += "</div>";
    let head = std::mem::take(&mut html);
    let deterministic = o.curves[0].usable_utilization;
    let rows = o
        .curves
        .iter()
        .enumerate()
        .map(|(i, curve)| Row {
            cells: vec![
                Cell::new(NAMES[i]).swatch(crate::theme::replica_hex(COLORS[i])),
                Cell::new(fixed(curve.cv2, 1)),
                Cell::new(fixed(curve.ca2, 1)),
                Cell::new(usable[i].clone()),
                Cell::new(fixed((deterministic - curve.usable_utilization) * 100.0, 0)),
            ],
            ..Row::default()
        })
        .collect();
    html += &Table {
        id: "curves",
        caption: fill(
            "Every curve at a tolerable wait of {} service times ({} s at a {} s mean)",
            &[
                wait.clone(),
                fixed(c.wait * c.service_mean, 1),
                fixed(c.service_mean, 1),
            ],
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
    .render();
    if !o.simulated.is_empty() {
        let rows = o
            .simulated
            .iter()
            .map(|s| Row {
                cells: vec![
                    Cell::new(fixed(s.rho, 1)),
                    Cell::new(fill("{} ± {}", &[fixed(s.mean_wait, 2), fixed(s.band, 2)])),
                    Cell::new(fill("{} s", &[fixed(s.mean_wait * c.service_mean, 1)])),
                    Cell::new(fixed(s.formula, 2)),
                    Cell::new(fill(
                        "{}%",
                        &[signed((s.mean_wait / s.formula - 1.0) * 100.0, 1)],
                    )),
                ],
                ..Row::default()
            })
            .collect();
        html += &Table {
            id: "simulated",
            caption: fill(
                "Simulated: {} customers per point, seed {}",
                &[thousands(c.customers.into()), c.seed.to_string()],
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
        .render();
    }
    let summary = fill(
        "Mean wait over service time against utilisation. At a tolerable wait of {} service times the usable utilisation is {} for CV² 0, {} for CV² 1, {} for CV² 4 and {} for your CV² of {}.{}",
        &[
            wait,
            usable[0].clone(),
            usable[1].clone(),
            usable[2].clone(),
            usable[3].clone(),
            fixed(c.cv2, 1),
            if o.simulated.is_empty() {
                String::new()
            } else {
                " Simulated points with their 95% band sit on the formula's curve.".into()
            },
        ],
    );
    Ok(Page {
        head,
        html,
        chart: spec(&o),
        summary,
        outcome: Outcome::Knee(o),
    })
}

/// The knee explorable.
pub static EXPLORABLE: Explorable = Explorable {
    id: "knee",
    header: r#"<h1>The utilisation knee</h1><p class="lede">How busy can a server run before requests wait too long? Set the wait you tolerate and read across: the more service times vary, the earlier each curve crosses it. Simulate to check the formula.</p><p class="small muted">Pollaczek–Khinchine (Poisson arrivals) and Kingman (any arrivals); waits in mean service times. Follows §1.2 of the reference article.</p>"#,
    controls,
    defaults: &[
        ("wait", "3"),
        ("cv2", "2"),
        ("ca2", "1"),
        ("simulate", "0"),
        ("mean", "2"),
        ("seed", "1"),
    ],
    text_ok: |_, _| false,
    compute,
    defer: |p, key| p.on("simulate") && matches!(key, "cv2" | "ca2" | "mean"),
    caption: "Mean wait against utilisation, one curve per service-time variability",
    help: "Mean wait in queue, in service times, as utilisation grows. Where a curve crosses your tolerable wait (the horizontal line), a dot drops to the utilisation it allows: more variable service crosses earlier. Simulated dots carry their 95% band; the simulation reruns when you release a slider.",
};
