//! Panels of HTML that belong to one lab's page (its tables and readouts
//! beyond the shared comparison table), kept apart from the page
//! descriptions in `labs`, as its canvas scenes are in `scenes`.

pub mod batching;
pub mod prefix;
