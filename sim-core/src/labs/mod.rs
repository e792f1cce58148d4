//! One module per lab, and the one registry that lists them.
//!
//! Every lab implements [`Lab`]: a [`Configurable`] config (its parameter
//! table), a `run` that returns a serialisable outcome, and a plain-text report.
//! [`with_labs!`] lists every lab type once; [`LABS`] is built from it, and
//! the CLI's subcommands, the web app's home page, navigation and `?lab=`
//! routing, the golden-output tests and the browser smoke tests all iterate
//! it. A new lab is one module plus one line in [`with_labs!`] (and a page in
//! the web crate, which the compiler then demands).

pub mod bound;
pub mod corners;
pub mod entry;
pub mod finite;
pub mod fork;
pub mod lab;
pub mod router_formats;
pub mod serve;
pub mod work;

pub mod admission;
pub mod agents;
pub mod autoscale;
pub mod batching;
pub mod disagg;
pub mod evaluate;
pub mod fairness;
pub mod first_token;
pub mod goodput;
pub mod herding;
pub mod lora;
pub mod prefix;
pub mod providers;
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

/// Calls macro `$m` with every lab type, in menu order: the one list.
///
/// sim-core declares [`LABS`], [`RUNS`] and [`TEXTS`] from it; a front end
/// that keeps something per lab (the web app's pages) declares its own list
/// the same way, keyed by the lab's type, so it can neither miss a lab nor
/// name one twice. A new lab is one line here.
#[macro_export]
macro_rules! with_labs {
    ($m:ident) => {
        $m! {
            $crate::labs::routing::RoutingLab,
            $crate::labs::goodput::GoodputLab,
            $crate::labs::herding::HerdingLab,
            $crate::labs::prefix::PrefixLab,
            $crate::labs::batching::BatchingLab,
            $crate::labs::admission::AdmissionLab,
            $crate::labs::fairness::FairnessLab,
            $crate::labs::autoscale::AutoscaleLab,
            $crate::labs::disagg::DisaggLab,
            $crate::labs::agents::AgentsLab,
            $crate::labs::queueing::knee::KneeLab,
            $crate::labs::queueing::little::LittleLab,
            $crate::labs::queueing::retries::RetriesLab,
            $crate::labs::queueing::hedging::HedgingLab,
            $crate::labs::queueing::cascade::CascadeLab,
            $crate::labs::first_token::FirstTokenLab,
            $crate::labs::evaluate::EvaluateLab,
            $crate::labs::lora::LoraLab,
            $crate::labs::providers::ProvidersLab,
        }
    };
}

with_labs!(labs);

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
