//! The validation page (`?lab=validate`): the Routing Lab set against
//! published deployments, as `lblab validate` prints it. The published
//! figures show at once; each scenario then runs in the worker, one after
//! another and seed by seed (progress per scenario), and its simulated
//! figures, rank orders, headline ratios and verdicts fill in as it ends.
//! The simulation and the verdicts are sim-core's
//! (`sim_core::labs::validation`); this page only lays them out.

use leptos::prelude::*;
use sim_core::labs::validation::{self, scenarios, Scenario, Validation};

use crate::platform::worker::{self, Reply};
use crate::ui::html::{el, El, Html, Markup};
use crate::ui::table::{Cell, Row, Table};
use sim_core::labs::serve::Ask;

/// The seed counts the page offers (the CLI and the tests run 20).
pub const SEEDS: [u32; 3] = [5, 10, 20];

/// Where one scenario's run stands.
#[derive(Clone, Debug)]
enum Run {
    /// Not started yet.
    Waiting,
    /// In the worker: seeds measured so far.
    Running(u32),
    /// Done, with the comparison over the seeds.
    Done(Box<Validation>),
    /// The worker refused or failed it.
    Failed(String),
    /// The reader stopped the runs first.
    Stopped,
}

/// The seed count in the URL (`seeds=`), or 20 with a notice when it is not
/// one of [`SEEDS`].
pub fn seeds_of(pairs: &[(String, String)], notices: &mut Vec<String>) -> u32 {
    match pairs.iter().find(|(k, _)| k == "seeds") {
        None => 20,
        Some((_, v)) => match crate::platform::url::whole::<u32>(v) {
            Some(n) if SEEDS.contains(&n) => n,
            _ => {
                notices.push(format!(
                    "seeds must be 5, 10 or 20, got “{}”; running 20.",
                    crate::platform::clip(v)
                ));
                20
            }
        },
    }
}

/// Run scenario `i` and, when it ends, the ones after it.
fn run_from(i: usize, seeds: u32, runs: RwSignal<Vec<Run>>) {
    let Some(s) = scenarios::ALL.get(i) else {
        return;
    };
    runs.update(|r| r[i] = Run::Running(0));
    let job = Ask::Validate {
        scenario: s.id.to_string(),
        seeds,
    };
    worker::ask(
        &job,
        move |done, _| runs.update(|r| r[i] = Run::Running(done)),
        move |reply| {
            let state = match reply {
                Reply::Done { bytes, .. } => {
                    match sim_core::labs::decode::<Vec<(f64, f64)>>(&bytes) {
                        Ok(all) if all.len() == s.published.len() * seeds as usize => {
                            let per_seed: Vec<Vec<(f64, f64)>> =
                                all.chunks(s.published.len()).map(<[_]>::to_vec).collect();
                            let ids: Vec<u64> = (1..=u64::from(seeds)).collect();
                            Run::Done(Box::new(validation::summarise(s, &ids, &per_seed)))
                        }
                        _ => Run::Failed("the worker's figures did not read back".into()),
                    }
                }
                Reply::Failed(f) => Run::Failed(f.why),
                Reply::Text(_) => Run::Failed("the worker answered with text".into()),
                Reply::Cancelled => Run::Stopped,
            };
            let go_on = matches!(state, Run::Done(_) | Run::Failed(_));
            runs.update(|r| r[i] = state);
            if go_on {
                run_from(i + 1, seeds, runs);
            }
        },
    );
}

/// One scenario: its source, setup and gaps, the published figures beside
/// the simulated ones, and the judged lines with their verdicts.
fn scenario_html(s: &Scenario, run: &Run, seeds: u32) -> Html {
    let done = match run {
        Run::Done(v) => Some(v.as_ref()),
        _ => None,
    };
    let status = match run {
        Run::Waiting => el("p")
            .class("small muted")
            .text("Waiting for the scenario before it."),
        Run::Running(n) => el("p")
            .class("small")
            .child(
                el("progress")
                    .attr("max", seeds.to_string())
                    .attr("value", n.to_string())
                    .attr("aria-label", format!("{}: seeds measured", s.id)),
            )
            .text(format!(" Measuring… seed {n} of {seeds}")),
        Run::Done(v) => el("p")
            .class("small")
            .child(verdict(v.holds()))
            .text(format!(
                " over seeds 1–{seeds}: {} of 4 judged lines hold",
                validation::judged(v).iter().filter(|j| j.holds).count()
            )),
        Run::Failed(why) => el("p")
            .class("notice error")
            .attr("role", "alert")
            .text(format!("Could not run: {why}")),
        Run::Stopped => el("p")
            .class("small notice")
            .text("Stopped before this scenario finished."),
    };
    let empty;
    let shown = match done {
        Some(v) => v,
        None => {
            empty = validation::summarise(s, &[], &[]);
            &empty
        }
    };
    let rows = validation_rows(shown);
    let table = Table {
        id: "",
        class: "validation-table",
        caption: format!(
            "Published against simulated; simulated is the median [least–greatest] over seeds 1–{seeds}"
        ),
        head: ["figure", "lab rule", "published", "simulated", "sim / published", "rank"]
            .iter()
            .map(|h| (h.to_string(), String::new()))
            .collect(),
        rows,
    };
    let judged = done.map(|v| {
        el("ul")
            .class("judged")
            .children(validation::judged(v).into_iter().map(|j| {
                el("li")
                    .child(verdict(j.holds))
                    .text(format!(" {}", j.what))
            }))
    });
    let mut out = Html::from(el("h2").text(s.title));
    out.push(
        el("p")
            .class("small muted")
            .text(format!("Source: {}", s.source)),
    );
    out.push(
        el("p")
            .class("small")
            .child(
                el("a")
                    .href(s.link())
                    .text("Open this setup in the Routing Lab"),
            )
            .text(" · CLI: ")
            .child(el("code").text(format!("lblab validate --scenario={}", s.id))),
    );
    out.push(status);
    out.push(table.html());
    if let Some(j) = judged {
        out.push(j);
    }
    // A scenario that fails shows its gaps open: they say what blocks it.
    let failing = done.is_some_and(|v| !v.holds());
    out.push(
        el("details")
            .attr_opt("open", failing.then_some(""))
            .child(el("summary").text(if failing {
                "Modelling gaps (what keeps it from holding)"
            } else {
                "Modelling gaps"
            }))
            .child(el("ul").children(s.gaps.iter().map(|g| el("li").class("small").text(g)))),
    );
    el("section")
        .class("validation-scenario")
        .id(format!("scenario-{}", s.id))
        .child(out)
        .into()
}

/// The table rows: every published figure, and once measured the
/// simulated one with its rank.
fn validation_rows(v: &Validation) -> Vec<Row> {
    let measured = !v.seeds.is_empty();
    validation::figure_rows(v)
        .into_iter()
        .map(|r| {
            let rank = match (measured, r.in_order) {
                (false, _) => Cell::new(""),
                (true, true) => Cell::new("as published").class("holds"),
                (true, false) => Cell::new("out of order").class("fails"),
            };
            Row {
                cells: vec![
                    Cell::new(r.figure),
                    Cell::new(r.rule),
                    Cell::new(r.published),
                    Cell::new(r.simulated),
                    Cell::new(r.ratio),
                    rank,
                ],
                ..Row::default()
            }
        })
        .collect()
}

/// A verdict word, styled.
fn verdict(holds: bool) -> El {
    el("strong")
        .class(if holds {
            "verdict holds"
        } else {
            "verdict fails"
        })
        .text(if holds { "holds" } else { "fails" })
}

/// The page's heading and what it judges.
fn intro_html(seeds: u32) -> Html {
    let choices = SEEDS.iter().map(|&n| {
        el("a")
            .href(format!("?lab=validate&seeds={n}"))
            .attr_opt("aria-current", (n == seeds).then_some("page"))
            .text(format!("{n} seeds"))
    });
    let mut out =
        Html::from(el("h1").text("Validation: the Routing Lab against published deployments"));
    out.push(el("p").class("lede").text(format!(
        "Three public A/B tests of routing policies, each rebuilt as a Routing Lab setup (GPU, model, pool, \
         workload) and run over {seeds} seeds in the background. Absolute figures are shown but not judged: \
         the lab prices iterations with a roofline, not the source's engine. What is judged is the source's \
         rank order of its policies (in at least 80% of seeds; figures within 10% of each other are a tie) \
         and the ratio between its best policy and its baseline (throughput within 1.5×, TTFT within 5×)."
    )));
    out.push(el("p").class("small").text(
        "The Routing Lab's own default table differs from the article's §4.2 table for a related reason: the \
         article prints one trace of its generator, while the lab's claims are tested as medians over seeds.",
    ));
    out.push(el("p").class("small").text("Seeds: ").children(choices));
    out
}

/// The Stop button while a scenario runs, the Run again link once stopped.
fn controls_html(runs: &[Run], seeds: u32) -> Html {
    if runs.iter().any(|x| matches!(x, Run::Running(_))) {
        el("button")
            .attr("type", "button")
            .id("validation-stop")
            .attr("data-key", "stop")
            .text("Stop")
            .into()
    } else if runs.iter().any(|x| matches!(x, Run::Stopped)) {
        el("a")
            .id("validation-again")
            .href(format!("?lab=validate&seeds={seeds}"))
            .text("Run again")
            .into()
    } else {
        Html::new()
    }
}

/// The validation page: one view, the rest HTML text (see `crate::ui::html`),
/// the Stop button's click delegated.
#[component]
pub fn ValidationPage(
    /// Seeds per scenario (one of [`SEEDS`]).
    seeds: u32,
) -> impl IntoView {
    let runs = RwSignal::new(vec![Run::Waiting; scenarios::ALL.len()]);
    run_from(0, seeds, runs);
    let on_click = move |ev: web_sys::MouseEvent| {
        if crate::ui::html::clicked_key(&ev).as_deref() == Some("stop") {
            worker::cancel_all();
            runs.update(|r| {
                for x in r.iter_mut() {
                    if matches!(x, Run::Waiting | Run::Running(_)) {
                        *x = Run::Stopped;
                    }
                }
            });
        }
    };
    let body = move || {
        runs.with(|r| {
            let mut out = Html::from(el("p").class("run-controls").child(controls_html(r, seeds)));
            for (s, run) in scenarios::ALL.iter().zip(r) {
                out.push(scenario_html(s, run, seeds));
            }
            out
        })
    };
    view! {
        <article class="lab validation" on:click=on_click>
            <Markup html=intro_html(seeds) />
            <Markup html=body />
        </article>
    }
}
