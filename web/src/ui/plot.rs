//! Charts. Each lab's chart file (`labs/<lab>/*chart.rs`) is a pure function from lab data to a [`ChartSpec`]
//! (what to draw); [`draw`] is the one plotters renderer every chart goes
//! through, generic over any `DrawingBackend` so it runs natively in tests as
//! well as on a canvas. One renderer also means plotters' generic code is in the
//! wasm bundle once, not once per chart; it lays out the axes, ticks and grid
//! itself and draws only plotters' primitives in pixels (its `ChartBuilder`
//! and mesh cost 9.2 KB gzipped).

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters_canvas::CanvasBackend;

use crate::ui::theme::ChartTheme;

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mark {
    /// A polyline.
    Line,
    /// A polyline with a dot at every point.
    LineDots,
    /// One bar per point, from x to x + 1.
    Bars,
    /// A dot at every point, no line.
    Dots,
    /// A translucent filled polygon through the points (an error band, a time
    /// window); its legend entry is a filled square.
    Area,
}

/// One series.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text (no legend entry when `None`).
    pub label: Option<String>,
    /// Colour.
    pub color: RGBColor,
    /// How it is drawn.
    pub mark: Mark,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
}

/// Whether the chart has a legend. Either way it is drawn in a strip above
/// the plot, never over the data (the two corner variants are kept so a chart
/// says where its emptiest corner is, should a legend ever move back inside).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Legend {
    /// No legend.
    None,
    /// A legend (above the plot).
    UpperLeft,
    /// A legend (above the plot).
    UpperRight,
}

/// Legend entries laid out left to right in rows no wider than `width`
/// pixels: each entry's (x, row). Label widths are estimated (about 6.5 px a
/// character at 11 px), which is enough to keep entries apart.
fn legend_layout(labels: &[&str], width: i32) -> Vec<(i32, i32)> {
    let (mut x, mut row) = (4, 0);
    labels
        .iter()
        .map(|l| {
            let w = 24 + (l.chars().count() as f64 * 6.5) as i32 + 14;
            if x > 4 && x + w > width {
                x = 4;
                row += 1;
            }
            let at = (x, row);
            x += w;
            at
        })
        .collect()
}

/// Everything one chart shows.
#[derive(Clone, Debug)]
pub struct ChartSpec {
    /// X axis title.
    pub x_desc: &'static str,
    /// Y axis title.
    pub y_desc: &'static str,
    /// X range.
    pub x_range: (f64, f64),
    /// Y range.
    pub y_range: (f64, f64),
    /// X tick label.
    pub x_label: fn(f64) -> String,
    /// Y tick label.
    pub y_label: fn(f64) -> String,
    /// How many x tick labels.
    pub x_labels: usize,
    /// Series, drawn in order.
    pub series: Vec<Series>,
    /// A vertical marker (current tick, threshold in use).
    pub marker_x: Option<f64>,
    /// A horizontal marker (a target the reader set).
    pub marker_y: Option<f64>,
    /// A ringed point (the setting in use).
    pub ring: Option<(f64, f64)>,
    /// Text annotations at points.
    pub notes: Vec<(f64, f64, String)>,
    /// Legend position.
    pub legend: Legend,
}

/// A player's bars: one bar per step (bar `i` from x = i to i + 1), muted,
/// with the bar of step `current` in the accent colour. Shared by the charts
/// whose x axis is a player's step.
pub fn step_bars(values: &[f64], current: usize, theme: &ChartTheme) -> Vec<Series> {
    let bars = |keep: &dyn Fn(usize) -> bool| -> Vec<(f64, f64)> {
        values
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(i, &v)| (i as f64, v))
            .collect()
    };
    // 45% foreground over the background, so bars stay muted in either theme.
    let blend = |f: u8, b: u8| (0.45 * f64::from(f) + 0.55 * f64::from(b)).round() as u8;
    let (f, b) = (theme.foreground, theme.background);
    let muted = RGBColor(blend(f.0, b.0), blend(f.1, b.1), blend(f.2, b.2));
    vec![
        Series {
            label: None,
            color: muted,
            mark: Mark::Bars,
            points: bars(&|i| i != current),
        },
        Series {
            label: None,
            color: theme.accent,
            mark: Mark::Bars,
            points: bars(&|i| i == current),
        },
    ]
}

/// Whole-number tick labels.
pub fn whole(x: f64) -> String {
    crate::ui::format::fixed(x, 0)
}

/// Where the plot landed on the canvas, in pixels: what the pointer maps
/// back to data through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlotArea {
    /// Left and right pixel of the plotting area.
    pub x: (i32, i32),
    /// Top and bottom pixel.
    pub y: (i32, i32),
}

impl PlotArea {
    /// The data x under pixel `px`, if it is over the plot.
    pub fn data_x(&self, spec: &ChartSpec, px: f64) -> Option<f64> {
        let (l, r) = (f64::from(self.x.0), f64::from(self.x.1));
        if r <= l || px < l - 2.0 || px > r + 2.0 {
            return None;
        }
        let f = ((px - l) / (r - l)).clamp(0.0, 1.0);
        Some(spec.x_range.0 + f * (spec.x_range.1 - spec.x_range.0))
    }

    /// The pixel of data x `x`.
    pub fn pixel_x(&self, spec: &ChartSpec, x: f64) -> f64 {
        let (l, r) = (f64::from(self.x.0), f64::from(self.x.1));
        let span = (spec.x_range.1 - spec.x_range.0).max(f64::MIN_POSITIVE);
        l + (x - spec.x_range.0) / span * (r - l)
    }
}

/// A value for a tooltip: whole numbers as they are, others to three
/// significant figures or so.
fn tip_number(y: f64) -> String {
    let a = y.abs();
    if y >= 1000.0 && y.fract() == 0.0 {
        return crate::ui::format::thousands(y as u64);
    }
    let places = if y.fract() == 0.0 || a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    crate::ui::format::fixed(y, places)
}

/// What the chart shows at data x `x`: the x value, then each series' point
/// nearest to it (bars: the bar under it). Lines of text for a tooltip.
pub fn values_at(spec: &ChartSpec, x: f64) -> Vec<String> {
    // The heading is the x of the first point found (a bar's own x), or the
    // pointer's x when no series has a point there.
    let mut lines = vec![String::new()];
    let mut at: Option<f64> = None;
    // A series without a label belongs to the labelled one before it (a
    // chart draws "other rules" as one labelled line and the rest plain):
    // its values are read out together, as a range.
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    let mut current: Option<String> = None;
    let span = spec.x_range.1 - spec.x_range.0;
    for s in &spec.series {
        if let Some(l) = &s.label {
            current = Some(l.clone());
        }
        if s.mark == Mark::Area || s.points.is_empty() {
            continue;
        }
        let found = if s.mark == Mark::Bars {
            // The bar under x (bars run from x to x + 1).
            s.points.iter().find(|p| x >= p.0 && x < p.0 + 1.0).copied()
        } else {
            // The nearest point, within half the widest gap between
            // neighbours (at least 2% of the axis).
            let gap = s
                .points
                .windows(2)
                .map(|w| (w[1].0 - w[0].0).abs())
                .fold(0.0f64, f64::max);
            let tolerance = (gap / 2.0).max(span * 0.02);
            s.points
                .iter()
                .min_by(|a, b| (a.0 - x).abs().total_cmp(&(b.0 - x).abs()))
                .filter(|p| (p.0 - x).abs() <= tolerance + 1e-9)
                .copied()
        };
        if let Some((px, py)) = found {
            let name = current.clone().unwrap_or_else(|| spec.y_desc.to_string());
            match groups.last_mut() {
                Some((n, values)) if *n == name && s.label.is_none() => values.push(py),
                _ => groups.push((name, vec![py])),
            }
            at.get_or_insert(px);
        }
    }
    for (name, values) in groups {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        lines.push(if values.len() == 1 || lo == hi {
            format!("{name}: {}", tip_number(lo))
        } else {
            format!(
                "{name}: {}–{} ({} lines)",
                tip_number(lo),
                tip_number(hi),
                values.len()
            )
        });
    }
    if at.is_none() {
        // A scatter (one dot per series): name the dot nearest the pointer.
        let nearest = spec
            .series
            .iter()
            .filter(|s| s.mark == Mark::Dots)
            .flat_map(|s| s.points.iter().map(move |p| (s, *p)))
            .min_by(|a, b| (a.1 .0 - x).abs().total_cmp(&(b.1 .0 - x).abs()));
        if let Some((s, (px, py))) = nearest {
            let name = s.label.as_deref().unwrap_or(spec.y_desc);
            lines.push(format!("{name}: {} (nearest point)", tip_number(py)));
            at = Some(px);
        }
    }
    lines[0] = format!("{} {}", spec.x_desc, (spec.x_label)(at.unwrap_or(x)));
    lines
}

/// The data x a click at data x `x` means: the x of the point the tooltip
/// names first (a bar's own x), or `x` itself.
pub fn picked_x(spec: &ChartSpec, x: f64) -> f64 {
    spec.series
        .iter()
        .filter(|s| s.mark == Mark::Bars)
        .flat_map(|s| s.points.iter())
        .find(|p| x >= p.0 && x < p.0 + 1.0)
        .map_or(x, |p| p.0)
}

/// Tick values across `range`: at most `max` of them, a whole number of
/// steps of 1, 2 or 5 times a power of ten apart (the same round steps
/// plotters' mesh picks; drawn by [`draw`] itself, since plotters' mesh and
/// coordinate code were a fifth of the bundle's chart code).
pub fn ticks(range: (f64, f64), max: usize) -> Vec<f64> {
    let (lo, hi) = (range.0.min(range.1), range.0.max(range.1));
    let span = hi - lo;
    if max == 0 || !span.is_finite() {
        return Vec::new();
    }
    if span < f64::EPSILON {
        return vec![lo];
    }
    let mut power = libm::pow(10.0, libm::floor(libm::log10(span)) - 2.0);
    loop {
        for m in [1.0, 2.0, 5.0] {
            let step = m * power;
            let first = libm::ceil(lo / step - 1e-9);
            let last = libm::floor(hi / step + 1e-9);
            let n = (last - first) as usize + 1;
            if n <= max {
                return (0..n).map(|i| (first + i as f64) * step).collect();
            }
        }
        power *= 10.0;
    }
}

/// The part of segment `a`–`b` inside the box `lo`–`hi` (Liang and Barsky's
/// clipping), if any.
fn clip(a: (f64, f64), b: (f64, f64), lo: (f64, f64), hi: (f64, f64)) -> Option<[(f64, f64); 2]> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.0 - lo.0),
        (dx, hi.0 - a.0),
        (-dy, a.1 - lo.1),
        (dy, hi.1 - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    (t0 <= t1).then_some([
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ])
}

/// A polyline cut to the box `lo`–`hi`: the runs of it that stay inside.
fn clipped(points: &[(f64, f64)], lo: (f64, f64), hi: (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut open = false;
    for w in points.windows(2) {
        match clip(w[0], w[1], lo, hi) {
            Some([p, q]) => {
                match runs.last_mut() {
                    Some(run) if open && p == w[0] => run.push(q),
                    _ => runs.push(vec![p, q]),
                }
                open = q == w[1];
            }
            None => open = false,
        }
    }
    runs
}

/// Draw `spec` onto `root`; returns where the plot itself landed.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    theme: &ChartTheme,
) -> Result<PlotArea, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&theme.background).map_err(err)?;
    let root = draw_legend(root, spec, theme)?;
    let frame = Frame::new(&root, spec);
    draw_axes(&root, &frame, spec, theme)?;
    draw_series(&root, &frame, spec, theme)?;
    root.present().map_err(err)?;
    // The plot in the canvas's pixels (below the legend strip).
    let (dx, dy) = root.get_base_pixel();
    Ok(PlotArea {
        x: (dx + frame.left, dx + frame.right),
        y: (dy + frame.top, dy + frame.bottom),
    })
}

/// Text in the theme's colour. The family as a variant, not the string
/// "sans-serif": plotters lowercases a family given as text, which pulls
/// Unicode's case tables (~11 KB) into the bundle.
fn text_style(theme: &ChartTheme, size: u32) -> TextStyle<'static> {
    (FontFamily::SansSerif, size)
        .into_font()
        .color(&theme.foreground)
}

/// Text anchored at a side or corner.
fn anchored(
    theme: &ChartTheme,
    size: u32,
    h: plotters::style::text_anchor::HPos,
    v: plotters::style::text_anchor::VPos,
) -> TextStyle<'static> {
    text_style(theme, size).pos(plotters::style::text_anchor::Pos::new(h, v))
}

/// The legend in its own strip above the plot, so it can never cover data;
/// returns the area left for the plot.
fn draw_legend<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    spec: &ChartSpec,
    theme: &ChartTheme,
) -> Result<DrawingArea<DB, Shift>, String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let entries: Vec<(&str, RGBColor, Mark)> = if spec.legend == Legend::None {
        Vec::new()
    } else {
        spec.series
            .iter()
            .filter_map(|s| s.label.as_deref().map(|l| (l, s.color, s.mark)))
            .collect()
    };
    let labels: Vec<&str> = entries.iter().map(|e| e.0).collect();
    let (width, _) = root.dim_in_pixel();
    let layout = legend_layout(&labels, width as i32 - 8);
    let rows = layout.last().map_or(0, |&(_, r)| r + 1);
    let (strip, root) = root.split_vertically(if rows == 0 { 0 } else { rows * 16 + 6 });
    for ((label, color, mark), (x, row)) in entries.iter().zip(&layout) {
        let y = 10 + row * 16;
        let thickness = if *mark == Mark::Area { 10 } else { 3 };
        let sample = vec![(x + 4, y), (x + 20, y)];
        let line = matches!(mark, Mark::Line | Mark::LineDots);
        if line && !crate::ui::theme::distinct(*color) {
            strip.draw(&DashedPathElement::new(
                sample,
                5,
                3,
                color.stroke_width(thickness),
            ))
        } else {
            strip.draw(&PathElement::new(sample, color.stroke_width(thickness)))
        }
        .map_err(err)?;
        strip
            .draw(&Text::new(
                label.to_string(),
                (x + 24, y - 6),
                text_style(theme, 11),
            ))
            .map_err(err)?;
    }
    Ok(root)
}

/// Where the plot sits in its area and how data maps to pixels: an 8 px
/// margin all round, the y labels' area on the left and 34 px for the x
/// labels below.
struct Frame {
    left: i32,
    right: i32,
    top: i32,
    bottom: i32,
    /// The area's height (the x axis title sits at its foot).
    height: i32,
    x_range: (f64, f64),
    y_range: (f64, f64),
    sx: f64,
    sy: f64,
    x_ticks: Vec<f64>,
    y_ticks: Vec<f64>,
    y_texts: Vec<String>,
}

impl Frame {
    fn new<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, spec: &ChartSpec) -> Frame {
        // Room for the widest y label beside the axis title (about 6.6 px per
        // character at 11 px), so "30,000" does not run into the title.
        let y_ticks = ticks(spec.y_range, 6);
        let x_ticks = ticks(spec.x_range, spec.x_labels);
        let y_texts: Vec<String> = y_ticks.iter().map(|&y| (spec.y_label)(y)).collect();
        let widest = y_texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
        let y_area = (22.0 + 6.6 * widest as f64).max(42.0) as i32;
        let (w, h) = root.dim_in_pixel();
        // A tick label at the right end is centred on the edge: keep room
        // for its right half ("100" was cut to "10").
        let last = x_ticks
            .last()
            .filter(|&&x| (spec.x_range.1 - x).abs() <= 1e-9 * spec.x_range.1.abs().max(1.0))
            .map_or(0, |&x| (spec.x_label)(x).chars().count());
        let pad = (8.0f64).max(3.3 * last as f64 + 2.0).ceil() as i32;
        let (left, right) = (8 + y_area, (w as i32 - pad).max(9 + y_area));
        let (top, bottom) = (8, (h as i32 - 8 - 34).max(9));
        let (x0, x1) = spec.x_range;
        let (y0, y1) = spec.y_range;
        Frame {
            left,
            right,
            top,
            bottom,
            height: h as i32,
            x_range: spec.x_range,
            y_range: spec.y_range,
            sx: f64::from(right - left) / (x1 - x0).max(f64::MIN_POSITIVE),
            sy: f64::from(bottom - top) / (y1 - y0).max(f64::MIN_POSITIVE),
            x_ticks,
            y_ticks,
            y_texts,
        }
    }

    fn px(&self, x: f64) -> i32 {
        (f64::from(self.left) + (x - self.x_range.0) * self.sx).round() as i32
    }

    fn py(&self, y: f64) -> i32 {
        (f64::from(self.bottom) - (y - self.y_range.0) * self.sy).round() as i32
    }

    fn at(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (self.px(x), self.py(y))
    }

    fn inside(&self, (x, y): (f64, f64)) -> bool {
        let ((x0, x1), (y0, y1)) = (self.x_range, self.y_range);
        x >= x0 && x <= x1 && y >= y0 && y <= y1
    }

    /// A point held to the plot (corners of bars and areas).
    fn held(&self, (x, y): (f64, f64)) -> (i32, i32) {
        let ((x0, x1), (y0, y1)) = (self.x_range, self.y_range);
        self.at((x.max(x0).min(x1), y.max(y0).min(y1)))
    }
}

/// Grid at every tick, then the axes, their labels and titles, and the
/// markers: the player's position in the accent; a threshold (a tolerable
/// wait, an SLO target) in the text colour, so it is never taken for a
/// curve drawn in a palette blue.
fn draw_axes<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    spec: &ChartSpec,
    theme: &ChartTheme,
) -> Result<(), String> {
    use plotters::style::text_anchor::{HPos, VPos};
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let line = |points: Vec<(i32, i32)>, style: ShapeStyle| PathElement::new(points, style);
    let (left, right, top, bottom) = (f.left, f.right, f.top, f.bottom);
    for &x in &f.x_ticks {
        root.draw(&line(
            vec![(f.px(x), top), (f.px(x), bottom)],
            theme.grid.into(),
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            (spec.x_label)(x),
            (f.px(x), bottom + 6),
            anchored(theme, 11, HPos::Center, VPos::Top),
        ))
        .map_err(err)?;
    }
    for (&y, label) in f.y_ticks.iter().zip(&f.y_texts) {
        root.draw(&line(
            vec![(left, f.py(y)), (right, f.py(y))],
            theme.grid.into(),
        ))
        .map_err(err)?;
        root.draw(&Text::new(
            label.clone(),
            (left - 6, f.py(y)),
            anchored(theme, 11, HPos::Right, VPos::Center),
        ))
        .map_err(err)?;
    }
    root.draw(&line(
        vec![(left, top), (left, bottom), (right, bottom)],
        theme.foreground.into(),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        spec.x_desc,
        ((left + right) / 2, f.height - 8),
        anchored(theme, 12, HPos::Center, VPos::Bottom),
    ))
    .map_err(err)?;
    root.draw(&Text::new(
        spec.y_desc,
        (8, (top + bottom) / 2),
        anchored(theme, 12, HPos::Center, VPos::Top).transform(FontTransform::Rotate270),
    ))
    .map_err(err)?;
    let ((x0, x1), (y0, y1)) = (f.x_range, f.y_range);
    if let Some(x) = spec.marker_x.filter(|x| *x >= x0 && *x <= x1) {
        root.draw(&line(
            vec![(f.px(x), top), (f.px(x), bottom)],
            theme.accent.stroke_width(2),
        ))
        .map_err(err)?;
    }
    if let Some(y) = spec.marker_y.filter(|y| *y >= y0 && *y <= y1) {
        root.draw(&line(
            vec![(left, f.py(y)), (right, f.py(y))],
            theme.foreground.into(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// Every series, then the ring and the notes. Bars and areas are polygons:
/// every filled shape goes through one element type, so plotters' filling
/// code is in the bundle once. Their corners are held to the plot; lines are
/// cut at its edges.
fn draw_series<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    f: &Frame,
    spec: &ChartSpec,
    theme: &ChartTheme,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let dots = |points: &[(f64, f64)], r: i32, style: ShapeStyle| -> Result<(), String> {
        for &p in points.iter().filter(|p| f.inside(**p)) {
            root.draw(&Circle::new(f.at(p), r, style)).map_err(err)?;
        }
        Ok(())
    };
    let (lo, hi) = ((f.x_range.0, f.y_range.0), (f.x_range.1, f.y_range.1));
    for s in &spec.series {
        let color = s.color;
        match s.mark {
            Mark::Bars => {
                for &(x, y) in &s.points {
                    let corners = [(x, 0.0), (x + 1.0, 0.0), (x + 1.0, y), (x, y)];
                    root.draw(&Polygon::new(
                        corners.map(|p| f.held(p)).to_vec(),
                        color.filled(),
                    ))
                    .map_err(err)?;
                }
            }
            Mark::Area => root
                .draw(&Polygon::new(
                    s.points.iter().map(|&p| f.held(p)).collect::<Vec<_>>(),
                    color.mix(0.25).filled(),
                ))
                .map_err(err)?,
            Mark::Dots => dots(&s.points, 4, color.filled())?,
            Mark::Line | Mark::LineDots => {
                // Past the palette's first colours, hue alone does not tell
                // lines apart for every reader: a dash is the second cue.
                let dashed = !crate::ui::theme::distinct(color);
                for run in clipped(&s.points, lo, hi) {
                    let at: Vec<_> = run.into_iter().map(|p| f.at(p)).collect();
                    if dashed {
                        root.draw(&DashedPathElement::new(at, 7, 4, color.stroke_width(2)))
                    } else {
                        root.draw(&PathElement::new(at, color.stroke_width(2)))
                    }
                    .map_err(err)?;
                }
            }
        }
        if s.mark == Mark::LineDots {
            dots(&s.points, 3, color.filled())?;
        }
    }
    if let Some(p) = spec.ring.filter(|p| f.inside(*p)) {
        root.draw(&Circle::new(f.at(p), 6, theme.accent.stroke_width(2)))
            .map_err(err)?;
    }
    // A narrow chart packs its points closer than their notes are wide: a
    // note that would overlap one already drawn is left out (about 6 px a
    // character at 11 px, 12 px a line), so none is drawn over another.
    let mut drawn: Vec<(i32, i32, i32)> = Vec::new();
    for (x, y, t) in &spec.notes {
        let (left, top) = f.at((*x, *y));
        let right = left + 6 * t.chars().count() as i32;
        if drawn
            .iter()
            .any(|&(l, tp, r)| left < r + 4 && l < right + 4 && (top - tp).abs() < 12)
        {
            continue;
        }
        drawn.push((left, top, right));
        root.draw(&Text::new(t.clone(), (left, top), text_style(theme, 11)))
            .map_err(err)?;
    }
    Ok(())
}

/// Size the canvas to its CSS box and draw `spec` on it. Errors come back as
/// text for the page to show, never panics.
pub fn draw_on_canvas(
    canvas: &web_sys::HtmlCanvasElement,
    spec: &ChartSpec,
    theme: &ChartTheme,
    (css_width, css_height): (f64, f64),
) -> Result<PlotArea, String> {
    // Laid out in CSS pixels, drawn in device pixels: on a 2× screen the
    // canvas holds twice its CSS size in pixels (a 1× canvas is stretched,
    // and blurs).
    let ratio = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .clamp(1.0, 4.0);
    let width = css_width.round().max(200.0);
    let height = css_height.round().max(150.0);
    let (pw, ph) = (
        (width * ratio).round() as u32,
        (height * ratio).round() as u32,
    );
    if canvas.width() != pw {
        canvas.set_width(pw);
    }
    if canvas.height() != ph {
        canvas.set_height(ph);
    }
    let backend = CanvasBackend::with_canvas_object_and_ratio(canvas.clone(), ratio)
        .ok_or("this browser gave no 2D canvas context")?;
    draw(backend.into_drawing_area(), spec, theme)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::SVGBackend;

    #[test]
    fn draws_every_mark_natively() {
        let spec = ChartSpec {
            x_desc: "x",
            y_desc: "y",
            x_range: (0.0, 10.0),
            y_range: (0.0, 5.0),
            x_label: whole,
            y_label: whole,
            x_labels: 5,
            series: vec![
                Series {
                    label: None,
                    color: RGBColor(1, 2, 3),
                    mark: Mark::Bars,
                    points: vec![(1.0, 2.0)],
                },
                Series {
                    label: None,
                    color: RGBColor(4, 5, 6),
                    mark: Mark::LineDots,
                    points: vec![(0.0, 1.0), (5.0, 3.0)],
                },
            ],
            marker_x: Some(2.0),
            marker_y: Some(1.0),
            ring: Some((5.0, 3.0)),
            notes: vec![],
            legend: Legend::None,
        };
        let mut svg = String::new();
        draw(
            SVGBackend::with_string(&mut svg, (300, 200)).into_drawing_area(),
            &spec,
            &ChartTheme::default(),
        )
        .expect("draws");
        assert!(svg.contains("<rect") && svg.contains("<polyline") && svg.contains("<circle"));
    }

    #[test]
    fn ticks_fall_on_round_steps_within_the_range() {
        assert_eq!(ticks((0.0, 10.0), 6), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(
            ticks((0.0, 1550.0), 10),
            [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0, 1200.0, 1400.0]
        );
        assert_eq!(ticks((-8.0, 32.0), 6), [0.0, 10.0, 20.0, 30.0]);
        assert_eq!(ticks((3.0, 3.0), 6), [3.0]);
        assert!(ticks((0.0, 1.0), 0).is_empty());
        for (range, max) in [((0.05, 0.4), 8), ((0.0, 1.0), 11), ((1.0, 1e6), 6)] {
            let t = ticks(range, max);
            assert!(!t.is_empty() && t.len() <= max, "{range:?}: {t:?}");
            assert!(t
                .iter()
                .all(|x| *x >= range.0 - 1e-9 && *x <= range.1 + 1e-9));
        }
    }

    #[test]
    fn lines_are_cut_at_the_plot_edges() {
        let (lo, hi) = ((0.0, 0.0), (10.0, 10.0));
        // Inside: unchanged; leaving through the top: cut at y = 10.
        assert_eq!(
            clipped(&[(0.0, 0.0), (5.0, 5.0), (10.0, 15.0)], lo, hi),
            [vec![(0.0, 0.0), (5.0, 5.0), (7.5, 10.0)]]
        );
        // Out and back in: two runs.
        assert_eq!(
            clipped(&[(0.0, 5.0), (2.0, 15.0), (4.0, 5.0)], lo, hi),
            [vec![(0.0, 5.0), (1.0, 10.0)], vec![(3.0, 10.0), (4.0, 5.0)]]
        );
        assert!(clipped(&[(0.0, 20.0), (10.0, 20.0)], lo, hi).is_empty());
    }

    #[test]
    fn the_tooltip_reads_the_point_under_the_pointer() {
        let spec = ChartSpec {
            x_desc: "tick",
            y_desc: "skew",
            x_range: (0.0, 4.0),
            y_range: (0.0, 5.0),
            x_label: whole,
            y_label: whole,
            x_labels: 5,
            series: vec![
                Series {
                    label: None,
                    color: RGBColor(1, 2, 3),
                    mark: Mark::Bars,
                    points: vec![(0.0, 1.0), (1.0, 3.0), (3.0, 2.0)],
                },
                Series {
                    label: Some("mean".into()),
                    color: RGBColor(1, 2, 3),
                    mark: Mark::Line,
                    points: vec![(0.0, 1.5), (2.0, 2.25)],
                },
            ],
            marker_x: None,
            marker_y: None,
            ring: None,
            notes: vec![],
            legend: Legend::None,
        };
        // Over the bar from 1 to 2: its value; the line's nearest point is at 2.
        assert_eq!(values_at(&spec, 1.6), ["tick 1", "skew: 3", "mean: 2.25"]);
        assert_eq!(picked_x(&spec, 1.6), 1.0);
        // Over x 2.2: no bar there (2–3 is empty).
        assert_eq!(values_at(&spec, 2.2), ["tick 2", "mean: 2.25"]);
        let area = PlotArea {
            x: (40, 240),
            y: (0, 100),
        };
        assert_eq!(area.data_x(&spec, 140.0), Some(2.0));
        assert_eq!(area.pixel_x(&spec, 3.0), 190.0);
        assert_eq!(area.data_x(&spec, 300.0), None);
        // Plain series after a labelled one are read out with it, as a range.
        let line = |label: Option<&str>, y: f64| Series {
            label: label.map(String::from),
            color: RGBColor(1, 2, 3),
            mark: Mark::Line,
            points: vec![(0.0, y), (4.0, y)],
        };
        let grouped = ChartSpec {
            series: vec![
                line(Some("other rules"), 0.5),
                line(None, 0.9),
                line(None, 0.7),
                line(Some("this rule"), 1250.0),
            ],
            ..spec
        };
        assert_eq!(
            values_at(&grouped, 0.0),
            [
                "tick 0",
                "other rules: 0.500–0.900 (3 lines)",
                "this rule: 1,250"
            ]
        );
    }
}
