//! A chart on a canvas: drawn from its spec whenever what the spec reads
//! changes, in the page's theme, and read out under the pointer or the
//! keyboard (`super::hover`). The drawing effect only synchronises the
//! canvas (and the line under it that says why a drawing failed) with the
//! signals it reads; it writes no signal.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;

use crate::ui::plot::ChartSpec;
use crate::ui::theme::ChartTheme;

/// Builds a chart from whatever signals it reads (`None`: nothing to draw yet).
pub type SpecFn = Arc<dyn Fn(&ChartTheme) -> Option<ChartSpec> + Send + Sync>;

use super::hover::Drawn;
pub use super::hover::PickFn;

/// Draw `canvas` from `spec` whenever what `spec` reads changes; the values
/// under the pointer or the keyboard cursor (← → on the focused chart) show
/// in a `role="tooltip"` element, and with `pick`, a click or Enter hands the
/// data x to it. Why a drawing failed, if it did, goes into `error`.
pub fn draw_linked(
    canvas: NodeRef<leptos::html::Canvas>,
    error: NodeRef<leptos::html::P>,
    spec: SpecFn,
    pick: Option<PickFn>,
) {
    let drawn: Rc<RefCell<Option<Drawn>>> = Rc::default();
    let size = RwSignal::new((0.0, 0.0));
    let hooked = Rc::new(std::cell::Cell::new(false));
    // The observer and the listeners belong to the chart's component, not to
    // the effect: an effect's cleanups run each time it runs again.
    let owner = Owner::current();
    Effect::new(move |_| {
        let Some(c) = canvas.get() else { return };
        if !hooked.replace(true) {
            let hook = || {
                super::observe_size(&c, size);
                super::hover::attach(&c, Rc::clone(&drawn), pick.clone());
            };
            match &owner {
                Some(o) => o.with(hook),
                None => hook(),
            }
        }
        let (w, h) = size.get();
        // Nothing to draw on until the browser has laid the canvas out.
        if w < 1.0 || h < 1.0 {
            return;
        }
        let theme = ChartTheme::current();
        if let Some(spec) = spec(&theme) {
            let failed = match crate::ui::plot::draw_on_canvas(&c, &spec, &theme, (w, h)) {
                Ok(area) => {
                    *drawn.borrow_mut() = Some(Drawn {
                        spec,
                        area,
                        width: w.round().max(200.0),
                    });
                    None
                }
                Err(e) => Some(format!("Chart could not be drawn: {e}")),
            };
            if let Some(p) = error.get_untracked() {
                p.set_text_content(failed.as_deref());
                p.set_hidden(failed.is_none());
                p.set_class_name(if failed.is_some() {
                    "notice error chart-error"
                } else {
                    "chart-error"
                });
            }
        }
    });
}
