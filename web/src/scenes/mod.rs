//! What each player's stage draws and says at one step: one file per player,
//! as `charts/` has one file per chart. Each turns the step sim-core recorded
//! into a [`crate::components::Scene`] (marks with stable ids the stage tweens
//! between steps) and into the sentence the narration reads out; its key
//! moments come from sim-core's records, worded here. Pure functions of the
//! lab's data: no signals, no DOM.

pub mod admission;
pub mod batching;
pub mod fairness;
pub mod herding;
pub mod prefix;
pub mod routing;
