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
                Reply::Text(_) | Reply::Imported(_) => {
                    Run::Failed("the worker answered with text".into())
                }
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

/// Where a scenario's run stands, in a line: waiting, a progress bar, the
/// verdict, the failure, or stopped.
fn status(s: &Scenario, run: &Run, seeds: u32) -> AnyView {
    match run {
        Run::Waiting => {
            view! { <p class="small muted">"Waiting for the scenario before it."</p> }.into_any()
        }
        Run::Running(n) => {
            let label = format!("{}: seeds measured", s.id);
            view! {
                <p class="small">
                    <progress max=seeds.to_string() value=n.to_string() aria-label=label></progress>
                    {format!(" Measuring… seed {n} of {seeds}")}
                </p>
            }
            .into_any()
        }
        Run::Done(v) => {
            let held = validation::judged(v).iter().filter(|j| j.holds).count();
            view! {
                <p class="small">
                    {verdict(v.holds())}
                    {format!(" over seeds 1–{seeds}: {held} of 4 judged lines hold")}
                </p>
            }
            .into_any()
        }
        Run::Failed(why) => view! {
            <p class="notice error" role="alert">{format!("Could not run: {why}")}</p>
        }
        .into_any(),
        Run::Stopped => view! {
            <p class="small notice">"Stopped before this scenario finished."</p>
        }
        .into_any(),
    }
}

/// A scenario's figures: the published ones beside the simulated ones
/// (blank until measured), the judged lines with their verdicts, and the
/// modelling gaps (open when the scenario fails: they say what blocks it).
fn results(s: &Scenario, done: Option<&Validation>, seeds: u32) -> AnyView {
    let empty;
    let shown = match done {
        Some(v) => v,
        None => {
            empty = validation::summarise(s, &[], &[]);
            &empty
        }
    };
    let table = Table {
        id: "",
        class: "validation-table",
        caption: format!(
            "Published against simulated; simulated is the median [least–greatest] over seeds 1–{seeds}"
        ),
        head: ["figure", "lab rule", "published", "simulated", "sim / published", "rank at the median"]
            .iter()
            .map(|h| (h.to_string(), String::new()))
            .collect(),
        rows: validation_rows(shown),
    };
    let judged = done.map(|v| {
        let lines = validation::judged(v)
            .into_iter()
            .map(|j| view! { <li>{verdict(j.holds)}{format!(" {}", j.what)}</li> })
            .collect_view();
        view! { <ul class="judged">{lines}</ul> }
    });
    let failing = done.is_some_and(|v| !v.holds());
    let gaps = s
        .gaps
        .iter()
        .map(|g| view! { <li class="small">{*g}</li> })
        .collect_view();
    view! {
        {table.view(None)}
        {judged}
        <details open=failing>
            <summary>
                {if failing { "Modelling gaps (what keeps it from holding)" } else { "Modelling gaps" }}
            </summary>
            <ul>{gaps}</ul>
        </details>
    }
    .into_any()
}

/// One scenario: its source and setup, then its status line and its
/// figures, each redrawn from the runs (the figures only when the run
/// ends, not at every seed).
fn scenario(i: usize, s: &'static Scenario, runs: RwSignal<Vec<Run>>, seeds: u32) -> AnyView {
    let ended = Memo::new(move |_| runs.with(|r| matches!(r[i], Run::Done(_))));
    let figures = move || {
        // Read, not just tracked: a memo nobody has read has not run, so it
        // would never hear of the runs changing.
        let _ = ended.get();
        runs.with_untracked(|r| {
            let done = match &r[i] {
                Run::Done(v) => Some(v.as_ref()),
                _ => None,
            };
            results(s, done, seeds)
        })
    };
    view! {
        <section class="validation-scenario" id=format!("scenario-{}", s.id)>
            <h2>{s.title}</h2>
            <p class="small muted">{format!("Source: {}", s.source)}</p>
            <p class="small">
                <a href=s.link()>"Open this setup in the Routing Lab"</a>
                " · CLI: "
                <code>{format!("lblab validate --scenario={}", s.id)}</code>
            </p>
            {move || runs.with(|r| status(s, &r[i], seeds))}
            {figures}
        </section>
    }
    .into_any()
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
                (true, true) => Cell::new(validation::rank_verdict(true)).class("holds"),
                (true, false) => {
                    Cell::new(validation::rank_verdict(false).to_ascii_lowercase()).class("fails")
                }
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
fn verdict(holds: bool) -> impl IntoView {
    let (class, word) = if holds {
        ("verdict holds", "holds")
    } else {
        ("verdict fails", "fails")
    };
    view! { <strong class=class>{word}</strong> }
}

/// The page's heading and what it judges, with the seed counts offered.
fn intro(seeds: u32) -> AnyView {
    let choices = SEEDS
        .iter()
        .map(|&n| {
            let href = format!("?lab=validate&seeds={n}");
            let here = (n == seeds).then_some("page");
            view! { <a href=href aria-current=here>{format!("{n} seeds")}</a> }
        })
        .collect_view();
    view! {
        <h1>"Validation: the Routing Lab against published deployments"</h1>
        <p class="lede">{format!(
            "Three public A/B tests of routing policies, each rebuilt as a Routing Lab setup (GPU, model, pool, \
             workload) and run over {seeds} seeds in the background. Absolute figures are shown but not judged: \
             the lab prices iterations with a roofline, not the source's engine. What is judged is the source's \
             rank order of its policies (in at least 80% of seeds; figures within 10% of each other are a tie) \
             and the ratio between its best policy and its baseline (throughput within 1.5×, TTFT within 5×)."
        )}</p>
        <p class="small">{
            "The Routing Lab's own default table differs from the article's §4.2 table for a related reason: the \
             article prints one trace of its generator, while the lab's claims are tested as medians over seeds."
        }</p>
        <p class="small">"Seeds: "{choices}</p>
    }
    .into_any()
}

/// Stop every run still waiting or under way.
fn stop(runs: RwSignal<Vec<Run>>) {
    worker::cancel_all();
    runs.update(|r| {
        for x in r.iter_mut() {
            if matches!(x, Run::Waiting | Run::Running(_)) {
                *x = Run::Stopped;
            }
        }
    });
}

/// The Stop button while a scenario runs, the Run again link once stopped.
fn controls(runs: RwSignal<Vec<Run>>, seeds: u32) -> impl IntoView {
    let running = Memo::new(move |_| runs.with(|r| r.iter().any(|x| matches!(x, Run::Running(_)))));
    let stopped = Memo::new(move |_| runs.with(|r| r.iter().any(|x| matches!(x, Run::Stopped))));
    move || {
        if running.get() {
            view! {
                <button type="button" id="validation-stop" on:click=move |_| stop(runs)>
                    "Stop"
                </button>
            }
            .into_any()
        } else if stopped.get() {
            let href = format!("?lab=validate&seeds={seeds}");
            view! { <a id="validation-again" href=href>"Run again"</a> }.into_any()
        } else {
            ().into_any()
        }
    }
}

/// The validation page: the intro, the run controls, then one section per
/// scenario.
#[component]
pub fn ValidationPage(
    /// Seeds per scenario (one of [`SEEDS`]).
    seeds: u32,
) -> impl IntoView {
    let runs = RwSignal::new(vec![Run::Waiting; scenarios::ALL.len()]);
    run_from(0, seeds, runs);
    let sections = scenarios::ALL
        .iter()
        .enumerate()
        .map(|(i, s)| scenario(i, s, runs, seeds))
        .collect_view();
    view! {
        <article class="lab validation">
            {intro(seeds)}
            <p class="run-controls">{controls(runs, seeds)}</p>
            {sections}
        </article>
    }
}
