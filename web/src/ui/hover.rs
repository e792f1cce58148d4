//! Pointer and keyboard read-outs on a chart canvas (see `super::chart`).
//!
//! A chart is pixels, so what it shows is read back from the last drawing:
//! the spec and where the plot landed map the pointer (or a keyboard cursor
//! moved with ← → Home End on the focused canvas) to a data x, and
//! `charts::values_at` words the values there into a `role="tooltip"` element
//! the canvas points to with `aria-describedby`. On a player's chart a click
//! or Enter hands that x to the page's pick (the player seeks there).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::plot::{ChartSpec, PlotArea};

/// What a click (or Enter) on a player's chart does with the data x under it.
pub type PickFn = std::sync::Arc<dyn Fn(f64) + Send + Sync>;

/// The last drawing of a chart: what it showed and where.
pub struct Drawn {
    /// The spec drawn.
    pub spec: ChartSpec,
    /// Where its plot landed on the canvas (in the drawing's own pixels).
    pub area: PlotArea,
    /// The drawing's width in those pixels (CSS pixels: the canvas holds
    /// device pixels, `devicePixelRatio` times more).
    pub width: f64,
}

/// The canvas an event's listener sits on.
fn canvas_of(e: &web_sys::Event) -> Option<web_sys::HtmlCanvasElement> {
    e.current_target()?.dyn_into().ok()
}

/// The tooltip element beside `canvas` (made on first use).
fn tip(canvas: &web_sys::HtmlCanvasElement) -> Option<web_sys::HtmlElement> {
    let id = format!("{}-tip", canvas.id());
    let doc = canvas.owner_document()?;
    if let Some(t) = doc.get_element_by_id(&id) {
        return t.dyn_into().ok();
    }
    let t: web_sys::HtmlElement = doc.create_element("div").ok()?.dyn_into().ok()?;
    t.set_id(&id);
    t.set_class_name("chart-tip");
    let _ = t.set_attribute("role", "tooltip");
    t.set_hidden(true);
    canvas.parent_element()?.append_child(&t).ok()?;
    let _ = canvas.set_attribute("aria-describedby", &id);
    Some(t)
}

/// Show the values at data x `x` (pixel `px` across the canvas).
fn show(canvas: &web_sys::HtmlCanvasElement, d: &Drawn, x: f64) {
    let Some(t) = tip(canvas) else { return };
    let lines = crate::ui::plot::values_at(&d.spec, x);
    t.set_text_content(None);
    if let Some(doc) = canvas.owner_document() {
        for (i, line) in lines.iter().enumerate() {
            if let Ok(el) = doc.create_element(if i == 0 { "strong" } else { "span" }) {
                el.set_text_content(Some(line));
                let _ = t.append_child(&el);
            }
        }
    }
    let px = d.area.pixel_x(&d.spec, x);
    let width = f64::from(canvas.client_width().max(1));
    let scale = width / d.width.max(1.0);
    let left = canvas.offset_left() as f64 + px * scale;
    let style = t.style();
    // Keep the box over the canvas: flip to the left past the middle.
    if px * scale > width / 2.0 {
        let _ = style.set_property("left", "");
        let right = canvas.offset_left() as f64 + width - px * scale + 10.0;
        let _ = style.set_property("right", &format!("{right:.0}px"));
    } else {
        let _ = style.set_property("right", "");
        let _ = style.set_property("left", &format!("{:.0}px", left + 10.0));
    }
    let _ = style.set_property("top", &format!("{}px", canvas.offset_top() + 8));
    t.set_hidden(false);
}

fn hide(canvas: &web_sys::HtmlCanvasElement) {
    if let Some(t) = tip(canvas) {
        t.set_hidden(true);
    }
}

/// A listener on the canvas: the event's name and its callback.
type Listener = (&'static str, Closure<dyn FnMut(web_sys::Event)>);

/// What the listeners share: the last drawing, the keyboard cursor (in data
/// x) and whether focus came with a mouse press.
#[derive(Clone)]
struct Hover {
    drawn: Rc<RefCell<Option<Drawn>>>,
    cursor: Rc<Cell<Option<f64>>>,
    pressed: Rc<Cell<bool>>,
    pick: Option<PickFn>,
}

impl Hover {
    /// The data x under the pointer.
    fn at_pointer(&self, e: &web_sys::MouseEvent) -> Option<f64> {
        let c = canvas_of(e)?;
        let d = self.drawn.borrow();
        let d = d.as_ref()?;
        let scale = d.width.max(1.0) / f64::from(c.client_width().max(1));
        d.area.data_x(&d.spec, f64::from(e.offset_x()) * scale)
    }

    /// The pointer moved: show the values under it.
    fn moved(&self, e: &web_sys::MouseEvent) {
        let Some(c) = canvas_of(e) else { return };
        match (self.at_pointer(e), self.drawn.borrow().as_ref()) {
            (Some(x), Some(d)) => show(&c, d, x),
            _ => hide(&c),
        }
    }

    /// A click: hand the step under the pointer to the pick.
    fn clicked(&self, e: &web_sys::MouseEvent) {
        let (Some(pick), Some(x)) = (self.pick.as_ref(), self.at_pointer(e)) else {
            return;
        };
        let x = self
            .drawn
            .borrow()
            .as_ref()
            .map_or(x, |d| crate::ui::plot::picked_x(&d.spec, x));
        // The keyboard cursor restarts from the step this click chose.
        self.cursor.set(None);
        pick(x);
    }

    /// A key: ← → Home End move the cursor, Enter picks, Escape hides.
    fn key(&self, e: &web_sys::KeyboardEvent) {
        let Some(c) = canvas_of(e) else { return };
        let d = self.drawn.borrow();
        let Some(d) = d.as_ref() else { return };
        let (lo, hi) = d.spec.x_range;
        // Keys move by one unit on short axes, by 1/50 of the axis on long ones.
        let unit = ((hi - lo) / 50.0).max(1.0).min(hi - lo);
        let x = self.cursor.get().or(d.spec.marker_x).unwrap_or(lo);
        let next = match e.key().as_str() {
            "ArrowRight" => (x + unit).min(hi),
            "ArrowLeft" => (x - unit).max(lo),
            "Home" => lo,
            "End" => hi,
            "Enter" | " " => {
                if let Some(pick) = self.pick.as_ref() {
                    e.prevent_default();
                    e.stop_propagation();
                    pick(crate::ui::plot::picked_x(&d.spec, x));
                }
                return;
            }
            "Escape" => {
                hide(&c);
                return;
            }
            _ => return,
        };
        e.prevent_default();
        e.stop_propagation();
        self.cursor.set(Some(next));
        show(&c, d, next);
    }

    /// Focus: show the current step, unless a mouse press brought it (then
    /// the pointer's read-out stays rather than jumping).
    fn focused(&self, e: &web_sys::Event) {
        let Some(c) = canvas_of(e) else { return };
        if self.pressed.replace(false) {
            return;
        }
        if let Some(d) = self.drawn.borrow().as_ref() {
            let x = d.spec.marker_x.unwrap_or(d.spec.x_range.0);
            self.cursor.set(Some(x));
            show(&c, d, x);
        }
    }

    /// Every listener, by event name.
    fn listeners(&self) -> Vec<Listener> {
        fn on<E: JsCast>(
            h: &Hover,
            f: impl Fn(&Hover, &E) + 'static,
        ) -> Closure<dyn FnMut(web_sys::Event)> {
            let h = h.clone();
            Closure::new(move |e: web_sys::Event| {
                if let Ok(e) = e.dyn_into::<E>() {
                    f(&h, &e);
                }
            })
        }
        vec![
            (
                "mousemove",
                on(self, |h, e: &web_sys::MouseEvent| h.moved(e)),
            ),
            (
                "mouseleave",
                on(self, |_, e: &web_sys::Event| {
                    canvas_of(e).iter().for_each(hide)
                }),
            ),
            ("click", on(self, |h, e: &web_sys::MouseEvent| h.clicked(e))),
            (
                "keydown",
                on(self, |h, e: &web_sys::KeyboardEvent| h.key(e)),
            ),
            (
                "mousedown",
                on(self, |h, _: &web_sys::Event| h.pressed.set(true)),
            ),
            ("focus", on(self, |h, e: &web_sys::Event| h.focused(e))),
            (
                "blur",
                on(self, |h, e: &web_sys::Event| {
                    h.pressed.set(false);
                    canvas_of(e).iter().for_each(hide);
                }),
            ),
        ]
    }
}

/// Listen for the pointer and the keyboard on `canvas`, until the component
/// that called this goes away (then the listeners are removed and dropped).
pub fn attach(
    canvas: &web_sys::HtmlCanvasElement,
    drawn: Rc<RefCell<Option<Drawn>>>,
    pick: Option<PickFn>,
) {
    let _ = canvas.set_attribute("tabindex", "0");
    if pick.is_some() {
        canvas.class_list().add_1("pickable").ok();
    }
    let hover = Hover {
        drawn,
        cursor: Rc::default(),
        pressed: Rc::default(),
        pick,
    };
    let listeners = hover.listeners();
    for (name, f) in &listeners {
        let _ = canvas.add_event_listener_with_callback(name, f.as_ref().unchecked_ref());
    }
    let held = send_wrapper::SendWrapper::new((canvas.clone(), listeners));
    leptos::prelude::on_cleanup(move || {
        let (canvas, listeners) = held.take();
        for (name, f) in &listeners {
            let _ = canvas.remove_event_listener_with_callback(name, f.as_ref().unchecked_ref());
        }
    });
}
