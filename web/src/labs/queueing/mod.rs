//! The queueing and overload explorables (article §1.2–1.3, §9.1–9.2, §10.2):
//! the knee, Little's law, retry amplification, hedging and cascades.
//!
//! They share one page layout. Each explorable is data: a static header, how
//! to turn the sim-core outcome into the page's headline, details, chart and
//! text alternative, and which sliders apply on release. Their parameters,
//! URL keys and validation all come from sim-core's parameter tables through
//! [`super::lab::LabPage`]; the JSON export is the sim-core outcome itself, as
//! `lblab <lab> --json` prints it.

pub mod cascade;
pub mod hedging;
pub mod knee;
pub mod little;
pub mod retries;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::Lab;

use super::lab::{LabPage, Steps};
use crate::charts::ChartSpec;
use crate::components::{ChartError, Controls, Deferred, ErrorLine, Notice};
use crate::html::{Html, Markup};

/// One computed explorable page.
#[derive(Clone, Debug)]
pub struct Page {
    /// The headline result, shown above the chart.
    pub head: Html,
    /// Tables and notes, shown below the chart.
    pub details: Html,
    /// The chart.
    pub chart: ChartSpec,
    /// The chart in words (its text alternative).
    pub summary: String,
}

/// One explorable, as data.
pub struct Explorable<L: Lab> {
    /// Static header markup: title, what to try, where it comes from.
    pub header: &'static str,
    /// The page for an outcome.
    pub page: fn(&L::Outcome) -> Page,
    /// Range keys whose recomputation is too slow to follow a drag: they apply
    /// when the slider is released.
    pub defer: fn(&L::Config, &str) -> bool,
    /// Chart caption.
    pub caption: &'static str,
    /// "What am I looking at?" text for the chart.
    pub help: &'static str,
}

/// The page once computed, compared by identity so one memo serves every
/// explorable.
#[derive(Clone)]
struct Computed(Option<Arc<Page>>);

impl PartialEq for Computed {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// One explorable's page.
pub fn render<L>(pairs: Vec<(String, String)>, ex: &'static Explorable<L>) -> AnyView
where
    L: Lab + 'static,
    L::Config: Send + Sync,
    L::Outcome: serde::de::DeserializeOwned + Send + Sync + 'static,
{
    let lab = LabPage::<L>::new(&pairs, Steps::None);
    let (config, outcome) = (lab.config, lab.outcome);
    let page =
        Memo::new(move |_| Computed(outcome.with(|o| o.as_ref().map(|o| Arc::new((ex.page)(o))))));
    let canvas = NodeRef::<Canvas>::new();
    let chart_error = super::draw_effect(
        canvas,
        Arc::new(move |_| page.with(|p| p.0.as_ref().map(|p| p.chart.clone()))),
    );
    let summary = Signal::derive(move || {
        page.with(|p| p.0.as_ref().map(|p| p.summary.clone()).unwrap_or_default())
    });
    let defer: Deferred = Arc::new(move |key: &str| config.with_untracked(|c| (ex.defer)(c, key)));
    view! {
        <article class="lab" id=format!("{}-lab", L::INFO.id)>
            <header class="lab-header"><Markup html=Html::trusted(ex.header) /></header>
            <Notice messages=lab.notices.clone() />
            <ErrorLine error=move || outcome.error() />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls" data-panel="controls">
                    <h2>"Inputs"</h2>
                    <Controls specs=lab.control_specs() get=lab.getter() set=lab.setter() defer=defer />
                </section>
                <section class="results" aria-label="Results">
                    <Markup id="headline" attr:data-panel="cards" html=move || page.with(|p| p.0.as_ref().map(|p| p.head.clone()).unwrap_or_default()) />
                    <figure class="chart" data-panel="chart">
                        <figcaption>{ex.caption}</figcaption>
                        <canvas node_ref=canvas id="queueing-chart" role="img" aria-label=summary></canvas>
                        <p class="sr-only" id="queueing-chart-summary">{summary}</p>
                        <ChartError error=chart_error />
                        <details>
                            <summary>"What am I looking at?"</summary>
                            <p class="small">{ex.help}</p>
                        </details>
                    </figure>
                    <Markup id="details" attr:data-panel="table" html=move || page.with(|p| p.0.as_ref().map(|p| p.details.clone()).unwrap_or_default()) />
                </section>
            </div>
        </article>
    }
    .into_any()
}

/// Table column heads from (text, meaning) pairs.
pub fn heads(h: &[(&str, &str)]) -> Vec<(String, String)> {
    h.iter()
        .map(|(t, m)| (t.to_string(), m.to_string()))
        .collect()
}
