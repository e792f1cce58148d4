//! Colours shared by pages and charts. Charts read the page's CSS custom
//! properties so canvas drawings follow the light or dark theme.

use plotters::style::RGBColor;
use wasm_bindgen::JsCast;

/// One colour per replica, in order: the Okabe–Ito palette first (colour-blind
/// safe; black left out, it vanishes in the dark theme), then nine more so the
/// largest pool (16 replicas) has no repeated colour.
pub const REPLICA_HEX: [&str; 16] = [
    "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
    // Past Okabe–Ito's seven: hues from Kelly's list of maximum-contrast
    // colours, so a 16-replica pool has no two replicas in one colour.
    "#882D17", "#8DB600", "#8E7CC3", "#BE0032", "#C2B280", "#00A3A3", "#A0522D", "#F99379",
    "#848482",
];

/// The colour of replica `i` (0-based).
pub fn replica_color(i: usize) -> RGBColor {
    parse_hex(REPLICA_HEX[i % REPLICA_HEX.len()]).unwrap_or(RGBColor(128, 128, 128))
}

/// CSS colour of replica `i` (0-based), for swatches in tables.
pub fn replica_hex(i: usize) -> &'static str {
    REPLICA_HEX[i % REPLICA_HEX.len()]
}

/// Parse `#rrggbb`.
pub fn parse_hex(s: &str) -> Option<RGBColor> {
    let s = s.trim().strip_prefix('#')?;
    if s.len() != 6 {
        return None;
    }
    let c = |i: usize| u8::from_str_radix(&s[i..i + 2], 16).ok();
    Some(RGBColor(c(0)?, c(2)?, c(4)?))
}

/// The theme colours a chart needs.
#[derive(Clone, Copy, Debug)]
pub struct ChartTheme {
    /// Background of the plot.
    pub background: RGBColor,
    /// Text and axes.
    pub foreground: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Markers for the current position (player ticks).
    pub accent: RGBColor,
}

impl Default for ChartTheme {
    fn default() -> Self {
        ChartTheme {
            background: RGBColor(255, 255, 255),
            foreground: RGBColor(30, 30, 30),
            grid: RGBColor(225, 225, 225),
            accent: RGBColor(204, 0, 0),
        }
    }
}

thread_local! {
    static CHART_THEME: std::cell::RefCell<Option<(u32, ChartTheme)>> = const { std::cell::RefCell::new(None) };
    static GENERATION: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    static WATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// How many times the colour scheme has changed since the page loaded:
/// colours read from CSS are kept until it changes (reading computed style
/// forces a style recalculation, which a chart redrawn every player step
/// should not pay for).
pub fn generation() -> u32 {
    if !WATCHING.with(|w| w.replace(true)) {
        watch_scheme();
    }
    GENERATION.with(|g| g.get())
}

/// Count a change of `prefers-color-scheme` (a forced `theme=` never changes).
fn watch_scheme() {
    use wasm_bindgen::prelude::*;
    let Some(query) = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
    else {
        return;
    };
    let on_change = Closure::<dyn FnMut()>::new(|| GENERATION.with(|g| g.set(g.get() + 1)));
    let _ = query.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
    // One listener for the page's life.
    on_change.forget();
}

impl ChartTheme {
    /// The page's chart colours, read once per colour scheme.
    pub fn current() -> ChartTheme {
        let now = generation();
        if let Some((g, t)) = CHART_THEME.with(|c| *c.borrow()) {
            if g == now {
                return t;
            }
        }
        let t = ChartTheme::from_css();
        CHART_THEME.with(|c| *c.borrow_mut() = Some((now, t)));
        t
    }

    /// Read `--chart-bg`, `--fg`, `--chart-grid` and `--accent` from the root element.
    pub fn from_css() -> ChartTheme {
        let fallback = ChartTheme::default();
        let Some(window) = web_sys::window() else {
            return fallback;
        };
        let Some(root) = window.document().and_then(|d| d.document_element()) else {
            return fallback;
        };
        let Ok(Some(style)) = window.get_computed_style(root.unchecked_ref()) else {
            return fallback;
        };
        let read = |name: &str, default: RGBColor| {
            style
                .get_property_value(name)
                .ok()
                .and_then(|v| parse_hex(&v))
                .unwrap_or(default)
        };
        ChartTheme {
            background: read("--chart-bg", fallback.background),
            foreground: read("--fg", fallback.foreground),
            grid: read("--chart-grid", fallback.grid),
            accent: read("--accent", fallback.accent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest pool the Routing Lab allows gets one colour per replica.
    #[test]
    fn every_replica_of_the_largest_pool_has_its_own_colour() {
        use sim_core::params::{Configurable, Shape};
        let Some(Shape::Whole { max, .. }) =
            sim_core::labs::routing::Config::param("replicas").map(|p| p.shape())
        else {
            panic!("replicas is a whole number");
        };
        let most = max as usize;
        let colours: std::collections::HashSet<&str> = (0..most).map(replica_hex).collect();
        assert_eq!(colours.len(), most);
        assert!((0..most).all(|i| parse_hex(replica_hex(i)).is_some()));
    }
}
