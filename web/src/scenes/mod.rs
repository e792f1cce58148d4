//! What each player's stage draws and says at one step: one file per player,
//! as `charts/` has one file per chart. Each turns the step sim-core recorded
//! into a [`crate::components::Scene`] (marks with stable ids the stage tweens
//! between steps) and into the sentence the narration reads out; its key
//! moments come from sim-core's records, worded here. Pure functions of the
//! lab's data: no signals, no DOM.

pub mod admission;
pub mod agents;
pub mod autoscale;
pub mod batching;
pub mod fairness;
pub mod herding;
pub mod prefix;
pub mod routing;

/// Small text (11 px, regular) for a scene, left-aligned or centred on `x`.
pub fn small_label(
    x: f64,
    y: f64,
    text: String,
    color: &str,
    centre: bool,
) -> crate::components::stage::Label {
    crate::components::stage::Label {
        x,
        y,
        text,
        color: color.to_string(),
        size: 11.0,
        bold: false,
        centre,
    }
}

/// The steps of a recording that are key moments, ascending.
pub fn moment_steps<S>(steps: &[S], is_moment: impl Fn(&S) -> bool) -> Vec<usize> {
    (0..steps.len()).filter(|&i| is_moment(&steps[i])).collect()
}
