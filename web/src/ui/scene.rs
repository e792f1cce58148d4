//! What each player's stage draws and says at one step: one file per player,
//! as `charts/` has one file per chart. Each turns the step sim-core recorded
//! into a [`crate::ui::Scene`] (marks with stable ids the stage tweens
//! between steps) and into the sentence the narration reads out; its key
//! moments come from sim-core's records, worded here. Pure functions of the
//! lab's data: no signals, no DOM.

/// Small text (11 px, regular) for a scene, left-aligned or centred on `x`.
pub fn small_label(
    x: f64,
    y: f64,
    text: String,
    color: &str,
    centre: bool,
) -> crate::ui::stage::Label {
    crate::ui::stage::Label {
        x,
        y,
        text,
        color: color.to_string(),
        size: 11.0,
        bold: false,
        centre,
    }
}

/// A replica's queue above its box: a warning-coloured bar at the box's
/// left edge, 2 px for one call up to 16 px at `full` calls, and the count
/// beside it when `count` (the column has room for the digits). Shared by
/// the players whose stage draws one box per replica.
#[allow(clippy::too_many_arguments)]
pub fn queue_bar(
    scene: &mut crate::ui::Scene,
    x: f64,
    top: f64,
    box_w: f64,
    waiting: u32,
    full: f64,
    count: bool,
    pal: &crate::ui::Palette,
) {
    if waiting == 0 {
        return;
    }
    let h = 2.0 + 14.0 * (f64::from(waiting) / full).min(1.0);
    scene.rects.push(crate::ui::Rect {
        x: x - box_w / 2.0,
        y: top - 1.0 - h,
        w: box_w.min(8.0),
        h,
        fill: Some(pal.warn.clone()),
        stroke: None,
        line: 0.0,
    });
    if count {
        scene.labels.push(small_label(
            x + 5.0,
            top - 6.0,
            format!("+{waiting}"),
            &pal.warn,
            true,
        ));
    }
}

/// The steps of a recording that are key moments, ascending.
pub fn moment_steps<S>(steps: &[S], is_moment: impl Fn(&S) -> bool) -> Vec<usize> {
    (0..steps.len()).filter(|&i| is_moment(&steps[i])).collect()
}
