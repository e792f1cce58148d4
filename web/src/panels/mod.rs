//! Panels of HTML that belong to one lab's page (its tables and readouts
//! beyond the shared comparison table), kept apart from the page
//! descriptions in `labs`, as its canvas scenes are in `scenes`. One is a
//! component rather than a function of the page's view: the Routing Lab's
//! decision explorer (`decisions`), which runs its own job in the worker.

pub mod batching;
pub mod decisions;
pub mod fairness;
pub mod herding;
pub mod prefix;
pub mod routing;
