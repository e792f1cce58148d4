//! The motion canvas every player shares: a lab turns its current step into a
//! [`Scene`] (boxes, labels and request marks with stable ids), and the stage
//! tweens each mark from where it was drawn to where the new scene puts it,
//! with `requestAnimationFrame`. Marks that are new fly in from their `from`
//! point (a router, a queue); marks that are gone fade out where they were.
//! With `prefers-reduced-motion` every step is drawn at its end state at once.
//!
//! The stage draws with the canvas 2D API directly, not plotters: it redraws
//! up to 60 times a second and needs nothing of a chart's axes. Each frame's
//! script time is recorded (`globalThis.lblabFrames`, see [`record_frame`]) so
//! the browser tests can report the frame cost.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A filled or outlined rectangle (a replica, a queue, a slot).
#[derive(Clone, Debug, PartialEq)]
pub struct Rect {
    /// Left, top, width and height in CSS pixels.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
    /// Fill colour (CSS), if any.
    pub fill: Option<String>,
    /// Outline colour (CSS), if any.
    pub stroke: Option<String>,
    /// Outline width.
    pub line: f64,
}

/// Text at a point (left-aligned, middle baseline).
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// Position.
    pub x: f64,
    /// Position.
    pub y: f64,
    /// The text.
    pub text: String,
    /// Colour (CSS).
    pub color: String,
    /// Font size in px.
    pub size: f64,
    /// Bold.
    pub bold: bool,
    /// Centred on `x` instead of starting there.
    pub centre: bool,
}

/// A request (or a cache block, a token) that moves between steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Stable across steps: the same thing keeps the same id.
    pub id: u64,
    /// Centre.
    pub x: f64,
    /// Centre.
    pub y: f64,
    /// Radius (circles) or half-side (squares).
    pub r: f64,
    /// Fill colour (CSS).
    pub fill: String,
    /// An accent ring (a hit, a key moment).
    pub ring: Option<String>,
    /// Square instead of round.
    pub square: bool,
    /// Where it comes from when it was not in the previous scene.
    pub from: Option<(f64, f64)>,
    /// A short text drawn on it (a label, a prefix number).
    pub text: Option<String>,
    /// A share of the disc (0–1) drawn as a wedge in another colour, from
    /// twelve o'clock clockwise: the part of a prompt found in cache.
    pub part: Option<(f64, String)>,
}

/// A straight line from one point to another (a routing decision).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Start.
    pub from: (f64, f64),
    /// End.
    pub to: (f64, f64),
    /// Colour (CSS).
    pub color: String,
    /// Width.
    pub width: f64,
}

/// The animation-frame callback: called with the frame's time.
type OnFrame = Closure<dyn FnMut(f64)>;

/// A stage's animation-frame callback and the frame it last asked for.
#[derive(Default)]
struct Frames {
    /// The callback (`None` once the stage is gone).
    callback: RefCell<Option<OnFrame>>,
    /// The frame asked for and not yet run, to cancel on unmount.
    asked: std::cell::Cell<Option<i32>>,
}

impl Frames {
    /// Ask the browser to run the callback at the next frame.
    fn ask(&self) {
        if let (Some(w), Some(f)) = (web_sys::window(), self.callback.borrow().as_ref()) {
            self.asked
                .set(w.request_animation_frame(f.as_ref().unchecked_ref()).ok());
        }
    }

    /// Cancel the frame asked for and drop the callback: the stage is gone.
    fn stop(&self) {
        if let (Some(w), Some(id)) = (web_sys::window(), self.asked.take()) {
            let _ = w.cancel_animation_frame(id);
        }
        self.callback.borrow_mut().take();
    }
}

/// The rAF callback, shared by the stage and (weakly) by itself.
type FrameCallback = Rc<Frames>;

thread_local! {
    /// Animation callbacks alive now, for the leak test (one per mounted stage).
    static LIVE_FRAMES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Counts itself in [`LIVE_FRAMES`] while the callback that holds it lives.
struct LiveFrame;

impl LiveFrame {
    fn new() -> LiveFrame {
        LIVE_FRAMES.with(|n| n.set(n.get() + 1));
        LiveFrame
    }
}

impl Drop for LiveFrame {
    fn drop(&mut self) {
        LIVE_FRAMES.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

/// How many stages' animation callbacks are alive (the browser tests read it
/// through `lblab_live_frames`: it must not grow as labs come and go).
pub fn live_frames() -> u32 {
    LIVE_FRAMES.with(std::cell::Cell::get)
}

/// Everything one step shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Height the scene needs, in CSS pixels (the canvas is sized to it).
    pub height: f64,
    /// Static shapes, drawn first.
    pub rects: Vec<Rect>,
    /// Static text.
    pub labels: Vec<Label>,
    /// Moving marks, drawn last.
    pub marks: Vec<Mark>,
    /// Lines: this step's decisions, drawn as they fade in.
    pub lines: Vec<Line>,
    /// Where each replica is drawn, so words about one can light it up.
    pub places: Vec<Place>,
}

/// Where one replica is drawn (a player with two panels draws each replica
/// twice).
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// The panel it is drawn in (0 on a stage of one panel; a player
    /// showing two rules side by side numbers them from 0).
    pub panel: u32,
    /// The replica, 0-based.
    pub replica: u32,
    /// Left, top, width and height in CSS pixels.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// A replica to light: in one panel, or wherever it is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lit {
    /// The panel (`None`: every panel).
    pub panel: Option<u32>,
    /// The replica, 0-based.
    pub replica: u32,
}

impl Lit {
    /// Whether `place` shows this replica.
    pub fn covers(&self, place: &Place) -> bool {
        place.replica == self.replica && self.panel.is_none_or(|p| p == place.panel)
    }
}

/// The replicas the reader points at through words about them (a tour's
/// live numbers): every stage under this context lights them up. Empty:
/// none.
#[derive(Clone, Copy)]
pub struct Spotlight(pub RwSignal<Vec<Lit>>);

/// Colours read from the page's theme, for scene builders.
#[derive(Clone, Debug)]
pub struct Palette {
    /// Text.
    pub fg: String,
    /// Secondary text.
    pub muted: String,
    /// Panels.
    pub panel: String,
    /// Borders.
    pub border: String,
    /// The accent (current step, key moments).
    pub accent: String,
    /// Waiting requests.
    pub waiting: String,
    /// Prefill.
    pub prefill: String,
    /// Decode.
    pub decode: String,
    /// Done.
    pub done: String,
    /// Warnings (a stalled slot, a miss).
    pub warn: String,
}

thread_local! {
    static PALETTE: std::cell::RefCell<Option<(u32, Palette)>> = const { std::cell::RefCell::new(None) };
}

impl Palette {
    /// The page's colours, read once per colour scheme (reading computed
    /// style forces a style recalculation; a stage redrawn every step should
    /// not pay for one).
    pub fn current() -> Palette {
        let now = crate::ui::theme::generation();
        if let Some((g, p)) = PALETTE.with(|c| c.borrow().clone()) {
            if g == now {
                return p;
            }
        }
        let p = Palette::from_css();
        PALETTE.with(|c| *c.borrow_mut() = Some((now, p.clone())));
        p
    }

    /// The page's current colours (CSS custom properties of the root).
    pub fn from_css() -> Palette {
        let style = web_sys::window().and_then(|w| {
            let root = w.document()?.document_element()?;
            w.get_computed_style(&root).ok().flatten()
        });
        let read = |name: &str, fallback: &str| {
            style
                .as_ref()
                .and_then(|s| s.get_property_value(name).ok())
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| fallback.to_string())
        };
        Palette {
            fg: read("--fg", "#1d1d1f"),
            muted: read("--muted", "#5f6368"),
            panel: read("--panel", "#f5f6f8"),
            border: read("--border", "#d9dce1"),
            accent: read("--accent", "#0060a8"),
            waiting: read("--state-waiting", "#9aa0a6"),
            prefill: read("--state-prefill", "#e69f00"),
            decode: read("--state-decode", "#0072b2"),
            done: read("--state-done", "#009e73"),
            warn: read("--error-border", "#c62828"),
        }
    }
}

/// Builds the scene for the current step at a given width (`None`: nothing
/// to show yet). Tracked like an effect: it re-runs when what it reads changes.
pub type SceneFn = Arc<dyn Fn(f64, &Palette) -> Option<Scene> + Send + Sync>;

/// Where each mark was drawn last, and the tween in progress.
#[derive(Default)]
struct Motion {
    /// Positions drawn in the last frame, by id.
    drawn: HashMap<u64, (f64, f64, f64)>,
    /// The scene being tweened to.
    target: Scene,
    /// Marks of the previous scene that are gone, fading out.
    leaving: Vec<Mark>,
    /// Start positions of the tween, by id.
    start: HashMap<u64, (f64, f64, f64)>,
    /// When the tween started (ms) and how long it lasts.
    began: f64,
    duration: f64,
    /// Whether a frame is already requested.
    pending: bool,
    /// The canvas's laid-out width, in CSS pixels.
    width: f64,
    /// The replicas lit by [`Spotlight`].
    spot: Vec<Lit>,
}

/// How many frame costs are kept for the tests (the newest).
const KEPT_FRAMES: u32 = 4000;

/// Append one frame's script time to `globalThis.lblabFrames` as `[start,
/// ms]`, for the browser tests' frame-cost report.
pub fn record_frame(start: f64, ms: f64) {
    record("lblabFrames", start, ms);
}

/// Append one step's script time (the player moving one step, and every
/// page update that follows from it) to `globalThis.lblabSteps` as `[start,
/// ms]`: the tests add it to the frame that follows.
pub fn record_step(start: f64, ms: f64) {
    record("lblabSteps", start, ms);
}

fn record(name: &str, start: f64, ms: f64) {
    let global = js_sys::global();
    let key = JsValue::from_str(name);
    let frames = js_sys::Reflect::get(&global, &key)
        .ok()
        .and_then(|v| v.dyn_into::<js_sys::Array>().ok())
        .unwrap_or_else(|| {
            let a = js_sys::Array::new();
            let _ = js_sys::Reflect::set(&global, &key, &a);
            a
        });
    if frames.length() >= KEPT_FRAMES {
        frames.shift();
    }
    frames.push(&js_sys::Array::of2(&start.into(), &ms.into()));
}

fn ease(p: f64) -> f64 {
    // Ease in-out (cubic): marks start and land gently.
    if p < 0.5 {
        4.0 * p * p * p
    } else {
        1.0 - (-2.0 * p + 2.0).powi(3) / 2.0
    }
}

/// Words pointed at replicas (a [`Spotlight`] context): light them on the
/// stage in one frame, without restarting the tween.
fn follow_spotlight(motion: &Rc<RefCell<Motion>>, request: impl Fn() + 'static) {
    let Some(Spotlight(lit)) = use_context::<Spotlight>() else {
        return;
    };
    let motion = Rc::clone(motion);
    Effect::new(move |_| {
        let now = lit.get();
        let mut m = motion.borrow_mut();
        if m.spot != now {
            m.spot = now;
            drop(m);
            request();
        }
    });
}

/// The motion canvas. `scene` is re-evaluated whenever what it reads
/// changes; `speed` (steps per second) sets how long a tween lasts, so
/// playing fast never lets the marks fall behind.
#[component]
pub fn Stage(
    /// Builds the current step's scene.
    scene: SceneFn,
    /// Steps per second of the player (read untracked).
    speed: RwSignal<f64>,
    /// The canvas id.
    id: String,
    /// What the canvas shows, for screen readers.
    #[prop(into)]
    label: Signal<String>,
) -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    let motion: Rc<RefCell<Motion>> = Rc::default();
    let frame: FrameCallback = Rc::default();
    // The rAF callback: draw the tween at time `t`, and ask for another frame
    // until it is done.
    {
        let motion = Rc::clone(&motion);
        // Weak: the callback must not keep itself alive, or every stage
        // ever mounted would stay in memory with its canvas.
        let again = Rc::downgrade(&frame);
        let live = LiveFrame::new();
        *frame.callback.borrow_mut() = Some(Closure::new(move |t: f64| {
            let _ = &live;
            if let Some(f) = again.upgrade() {
                f.asked.set(None);
            }
            let began = crate::platform::clock::now_ms();
            // `None` too once the stage's page is gone (a tour moved on).
            let Some(c) = canvas.try_get_untracked().flatten() else {
                motion.borrow_mut().pending = false;
                return;
            };
            let more = draw(&c, &mut motion.borrow_mut(), t);
            record_frame(began, crate::platform::clock::now_ms() - began);
            let mut m = motion.borrow_mut();
            m.pending = more;
            if more {
                if let Some(f) = again.upgrade() {
                    f.ask();
                }
            }
        }));
    }
    // Leaving the page cancels the frame asked for and drops the callback.
    {
        let frame = send_wrapper::SendWrapper::new(Rc::clone(&frame));
        on_cleanup(move || frame.stop());
    }
    let request = {
        let motion = Rc::clone(&motion);
        let frame = Rc::clone(&frame);
        move || {
            if motion.borrow().pending {
                return;
            }
            motion.borrow_mut().pending = true;
            frame.ask();
        }
    };
    follow_spotlight(&motion, request.clone());
    let size = RwSignal::new((0.0, 0.0));
    let observed = Rc::new(std::cell::Cell::new(false));
    // The observer belongs to the stage, not to the effect (an effect's
    // cleanups run each time it runs again).
    let owner = Owner::current();
    {
        let motion = Rc::clone(&motion);
        let request = request.clone();
        Effect::new(move |_| {
            let Some(c) = canvas.get() else { return };
            // The width the browser laid the canvas out at, reported by a
            // resize observer (reading it here would force a layout).
            if !observed.replace(true) {
                match &owner {
                    Some(o) => o.with(|| super::observe_size(&c, size)),
                    None => super::observe_size(&c, size),
                }
            }
            let (w, _) = size.get();
            if w < 1.0 {
                return;
            }
            let palette = Palette::current();
            let Some(next) = scene(w, &palette) else {
                return;
            };
            let now = crate::platform::clock::now_ms();
            let calm = crate::platform::embed::prefers_reduced_motion();
            let mut m = motion.borrow_mut();
            let ids: std::collections::HashSet<u64> = next.marks.iter().map(|k| k.id).collect();
            m.leaving = m
                .target
                .marks
                .iter()
                .filter(|k| !ids.contains(&k.id))
                .cloned()
                .collect();
            m.start = m.drawn.clone();
            m.target = next;
            m.width = w;
            m.began = now;
            m.duration = if calm {
                0.0
            } else {
                (700.0 / speed.get_untracked().max(0.5)).clamp(60.0, 450.0)
            };
            drop(m);
            request();
        });
    }
    view! {
        <canvas node_ref=canvas id=id class="stage" role="img" aria-label=label></canvas>
    }
}

/// Draw the tween at time `t` (ms); returns whether more frames are needed.
fn draw(canvas: &web_sys::HtmlCanvasElement, m: &mut Motion, t: f64) -> bool {
    let Some(ctx) = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok())
    else {
        return false;
    };
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let css_w = m.width.max(1.0);
    let css_h = m.target.height.max(40.0);
    let style = AsRef::<web_sys::HtmlElement>::as_ref(canvas).style();
    let h_text = format!("{}px", css_h);
    if style.get_property_value("height").ok().as_deref() != Some(h_text.as_str()) {
        let _ = style.set_property("height", &h_text);
    }
    let (pw, ph) = (
        (css_w * ratio).round() as u32,
        (css_h * ratio).round() as u32,
    );
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let _ = ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, css_w, css_h);
    let p = if m.duration <= 0.0 {
        1.0
    } else {
        ((t.min(crate::platform::clock::now_ms()) - m.began) / m.duration).clamp(0.0, 1.0)
    };
    let e = ease(p);
    let scene = &m.target;
    for r in &scene.rects {
        if let Some(f) = &r.fill {
            ctx.set_fill_style_str(f);
            ctx.fill_rect(r.x, r.y, r.w, r.h);
        }
        if let Some(s) = &r.stroke {
            ctx.set_stroke_style_str(s);
            ctx.set_line_width(r.line);
            ctx.stroke_rect(r.x, r.y, r.w, r.h);
        }
    }
    spotlight(&ctx, scene, &m.spot);
    ctx.set_text_baseline("middle");
    // Setting a font makes the browser parse it again, and a scene's labels
    // alternate between a few (a name, then its count): draw them one font
    // at a time (labels do not overlap, so their order is free) and set each
    // font once a frame.
    let mut font = String::new();
    let mut fonts: Vec<(bool, f64)> = Vec::new();
    for l in &scene.labels {
        if !fonts.contains(&(l.bold, l.size)) {
            fonts.push((l.bold, l.size));
        }
    }
    for (bold, size) in fonts {
        let face = format!("{}{}px sans-serif", if bold { "600 " } else { "" }, size);
        set_font(&ctx, &mut font, face);
        for l in scene
            .labels
            .iter()
            .filter(|l| (l.bold, l.size) == (bold, size))
        {
            ctx.set_fill_style_str(&l.color);
            ctx.set_text_align(if l.centre { "center" } else { "left" });
            let _ = ctx.fill_text(&l.text, l.x, l.y);
        }
    }
    ctx.set_global_alpha(e);
    for l in &scene.lines {
        ctx.set_stroke_style_str(&l.color);
        ctx.set_line_width(l.width);
        ctx.begin_path();
        ctx.move_to(l.from.0, l.from.1);
        ctx.line_to(l.to.0, l.to.1);
        ctx.stroke();
    }
    ctx.set_global_alpha(1.0 - e);
    for k in &m.leaving {
        let (x, y, r) = m.drawn.get(&k.id).copied().unwrap_or((k.x, k.y, k.r));
        mark(&ctx, &mut font, k, x, y, r);
    }
    ctx.set_global_alpha(1.0);
    let mut drawn = HashMap::with_capacity(scene.marks.len());
    for k in &scene.marks {
        let (x0, y0, r0) = m
            .start
            .get(&k.id)
            .copied()
            .or_else(|| k.from.map(|(x, y)| (x, y, k.r * 0.6)))
            .unwrap_or((k.x, k.y, k.r));
        let (x, y, r) = (
            x0 + (k.x - x0) * e,
            y0 + (k.y - y0) * e,
            r0 + (k.r - r0) * e,
        );
        mark(&ctx, &mut font, k, x, y, r);
        drawn.insert(k.id, (x, y, r));
    }
    m.drawn = drawn;
    if p >= 1.0 {
        m.leaving.clear();
    }
    p < 1.0
}

/// Light the replicas in `spot`: a tinted box and a thick outline in the
/// accent colour around each place they are drawn.
/// How many places it lit is kept in `globalThis.lblabLit` for the browser
/// tests (a canvas shows them nothing else).
fn spotlight(ctx: &web_sys::CanvasRenderingContext2d, scene: &Scene, spot: &[Lit]) {
    let lit: Vec<&Place> = scene
        .places
        .iter()
        .filter(|p| spot.iter().any(|l| l.covers(p)))
        .collect();
    let _ = js_sys::Reflect::set(
        &js_sys::global(),
        &JsValue::from_str("lblabLit"),
        &JsValue::from(lit.len() as u32),
    );
    if lit.is_empty() {
        return;
    }
    let accent = Palette::current().accent;
    ctx.set_stroke_style_str(&accent);
    ctx.set_fill_style_str(&accent);
    ctx.set_line_width(3.0);
    for p in lit {
        ctx.set_global_alpha(0.14);
        ctx.fill_rect(p.x - 3.0, p.y - 3.0, p.w + 6.0, p.h + 6.0);
        ctx.set_global_alpha(1.0);
        ctx.stroke_rect(p.x - 3.0, p.y - 3.0, p.w + 6.0, p.h + 6.0);
    }
}

/// Set `next` as the context's font unless `last` (what this frame set
/// before) already is it.
fn set_font(ctx: &web_sys::CanvasRenderingContext2d, last: &mut String, next: String) {
    if *last != next {
        ctx.set_font(&next);
        *last = next;
    }
}

fn mark(
    ctx: &web_sys::CanvasRenderingContext2d,
    font: &mut String,
    k: &Mark,
    x: f64,
    y: f64,
    r: f64,
) {
    ctx.set_fill_style_str(&k.fill);
    ctx.begin_path();
    if k.square {
        ctx.rect(x - r, y - r, 2.0 * r, 2.0 * r);
    } else {
        let _ = ctx.arc(x, y, r.max(0.5), 0.0, std::f64::consts::TAU);
    }
    ctx.fill();
    if let (Some((share, colour)), false) = (&k.part, k.square) {
        if *share > 0.0 {
            let top = -std::f64::consts::FRAC_PI_2;
            ctx.set_fill_style_str(colour);
            ctx.begin_path();
            ctx.move_to(x, y);
            let _ = ctx.arc(
                x,
                y,
                r.max(0.5),
                top,
                top + std::f64::consts::TAU * share.min(1.0),
            );
            ctx.close_path();
            ctx.fill();
            // The ring below strokes the whole disc again.
            ctx.begin_path();
            let _ = ctx.arc(x, y, r.max(0.5), 0.0, std::f64::consts::TAU);
        }
    }
    if let Some(ring) = &k.ring {
        ctx.set_stroke_style_str(ring);
        ctx.set_line_width(2.5);
        ctx.stroke();
    }
    if let Some(text) = &k.text {
        if r >= 6.0 {
            set_font(
                ctx,
                font,
                // Whole pixels: `r` moves with the tween, and a size of its
                // own per mark and frame would be a font to parse each time.
                format!("600 {}px sans-serif", (r * 1.1).clamp(8.0, 12.0).round()),
            );
            ctx.set_fill_style_str("#ffffff");
            ctx.set_text_align("center");
            let _ = ctx.fill_text(text, x, y + 0.5);
        }
    }
}
