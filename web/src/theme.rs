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

impl ChartTheme {
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
