//! One module per lab, and the one registry that lists them.
//!
//! Every lab implements [`Lab`]: a [`Configurable`] config (its parameter
//! table), a `run` that returns a serialisable outcome, and a plain-text report.
//! [`LABS`] lists every lab once; the CLI's subcommands, the web app's home page,
//! navigation and `?lab=` routing, the golden-output tests and the browser smoke
//! tests all iterate it. A new lab is one module plus one line in [`LABS`] (and a
//! page in the web crate, which a test there demands).

pub mod bound;
pub mod corners;
pub mod entry;
pub mod finite;
pub mod fork;
pub mod lab;
pub mod serve;
pub mod work;

pub mod admission;
pub mod agents;
pub mod autoscale;
pub mod batching;
pub mod disagg;
pub mod fairness;
pub mod goodput;
pub mod herding;
pub mod prefix;
pub mod queueing;
pub mod routing;
pub mod validation;

pub use entry::*;
pub use lab::*;

/// Declares the one list of labs: [`LABS`] for every front end, [`RUNS`]
/// for what runs them (the simulation worker, the CLI) and [`TEXTS`] for the
/// CLI and the tests, in the same order.
macro_rules! labs {
    ($($lab:ty),+ $(,)?) => {
        /// Every lab, in menu order. The one list.
        pub static LABS: &[LabEntry] = &[$(LabEntry::of::<$lab>()),+];

        /// The runs of every lab in [`LABS`], in the same order.
        pub static RUNS: &[RunEntry] = &[$(RunEntry::of::<$lab>()),+];

        /// The text side of every lab in [`LABS`], in the same order.
        pub static TEXTS: &[TextEntry] = &[$(TextEntry::of::<$lab>()),+];
    };
}

labs! {
    routing::RoutingLab,
    goodput::GoodputLab,
    herding::HerdingLab,
    prefix::PrefixLab,
    batching::BatchingLab,
    admission::AdmissionLab,
    fairness::FairnessLab,
    autoscale::AutoscaleLab,
    disagg::DisaggLab,
    agents::AgentsLab,
    queueing::knee::KneeLab,
    queueing::little::LittleLab,
    queueing::retries::RetriesLab,
    queueing::hedging::HedgingLab,
    queueing::cascade::CascadeLab,
}

/// The text side of the lab with `id`.
pub fn text(id: &str) -> Option<&'static TextEntry> {
    TEXTS.iter().find(|l| l.id == id)
}

/// The run side of the lab with `id`.
pub fn runner(id: &str) -> Option<&'static RunEntry> {
    RUNS.iter().find(|l| l.id == id)
}

/// The registered lab with `id`.
pub fn find(id: &str) -> Option<&'static LabEntry> {
    LABS.iter().find(|l| l.info.id == id)
}
