//! One chart per file. Each chart is a pure function over any plotters
//! `DrawingBackend`, so it can be drawn natively in tests as well as on a canvas.

#[cfg(feature = "batching-page")]
pub mod budget_tradeoff;
pub mod queue_evolution;
pub mod skew_over_time;
pub mod threshold_sweep;

use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

/// Size the canvas to its CSS box and hand a backend for it to `draw`. Errors
/// are returned as text for the page to show, never panics.
pub fn draw_on_canvas(
    canvas: &web_sys::HtmlCanvasElement,
    draw: impl FnOnce(DrawingArea<CanvasBackend, plotters::coord::Shift>) -> Result<(), String>,
) -> Result<(), String> {
    let width = canvas.client_width().max(200) as u32;
    let height = canvas.client_height().max(150) as u32;
    if canvas.width() != width {
        canvas.set_width(width);
    }
    if canvas.height() != height {
        canvas.set_height(height);
    }
    let backend = CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("this browser gave no 2D canvas context")?;
    draw(backend.into_drawing_area())
}
