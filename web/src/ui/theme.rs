//! Colours shared by pages and charts. Charts read the page's CSS custom
//! properties so canvas drawings follow the light or dark theme.

use plotters::style::RGBColor;
use wasm_bindgen::JsCast;

/// One colour per replica, in order. Each has a relative luminance between
/// about 0.15 and 0.3, so it keeps at least 3:1 contrast (WCAG's figure for
/// graphics) against every background of both themes, from the light
/// theme's white to the dark theme's panels (the test below reads them from
/// the stylesheet): a replica reads the same in either theme. The first
/// [`DISTINCT`] differ in lightness as well as hue: they came from a search
/// over colours inside that contrast band for the widest smallest gap
/// (CIE76 ΔE in CIELAB) with normal vision and under simulated
/// deuteranopia and protanopia (the full-severity matrices of Machado,
/// Oliveira and Fernandes, 2009). The rest keep a 16-replica pool free of
/// repeats, and their lines are dashed.
pub const REPLICA_HEX: [&str; 16] = [
    "#2D68FF", "#FF061C", "#569E38", "#825EC2", "#6B748A", "#9C5E4E", "#008A8A", "#9461DB",
    "#378D00", "#BD5D7D", "#A27057", "#42849A", "#7C7C7C", "#6F6FC8", "#C230F2", "#8B7A4A",
];

/// How many colours of [`REPLICA_HEX`] are told apart by colour alone,
/// also by readers with red–green colour blindness (the test below holds
/// them at ΔE ≥ 20 under deuteranopia and protanopia). A series drawn in
/// a later colour gets a second cue: a dashed line.
pub const DISTINCT: usize = 6;

/// Whether `c` is one of the first [`DISTINCT`] colours (a line in any
/// other is drawn dashed).
pub fn distinct(c: RGBColor) -> bool {
    REPLICA_HEX[..DISTINCT]
        .iter()
        .any(|h| parse_hex(h).is_some_and(|p| p == c))
}

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

    /// WCAG 2 relative luminance of `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        let RGBColor(r, g, b) = parse_hex(hex).expect("a #rrggbb colour");
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                libm::pow((c + 0.055) / 1.055, 2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// WCAG 2 contrast ratio of two colours.
    fn contrast(a: &str, b: &str) -> f64 {
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    /// Every background a replica's colour is drawn on (page, panels, chart
    /// area), in both themes, as the stylesheet sets them.
    fn backgrounds() -> Vec<(String, String)> {
        let css = include_str!("../../../assets/style.css");
        let mut out = Vec::new();
        for line in css.lines() {
            let line = line.trim();
            for var in ["--bg:", "--panel:", "--chart-bg:"] {
                if let Some(rest) = line.strip_prefix(var) {
                    let value = rest.trim().trim_end_matches(';').trim().to_string();
                    out.push((var.to_string(), value));
                }
            }
        }
        out
    }

    /// CIELAB (D65) of linear-light RGB.
    fn lab(rgb: [f64; 3]) -> [f64; 3] {
        let [r, g, b] = rgb;
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
        let f = |t: f64| {
            if t > 0.008856 {
                libm::cbrt(t)
            } else {
                7.787 * t + 16.0 / 116.0
            }
        };
        let (fx, fy, fz) = (f(x), f(y), f(z));
        [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
    }

    /// Linear-light RGB of `#rrggbb`, seen through `m` (a colour-vision
    /// simulation matrix on linear RGB; `None`: normal vision).
    fn seen(hex: &str, m: Option<&[[f64; 3]; 3]>) -> [f64; 3] {
        let RGBColor(r, g, b) = parse_hex(hex).expect("a #rrggbb colour");
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                libm::pow((c + 0.055) / 1.055, 2.4)
            }
        };
        let v = [lin(r), lin(g), lin(b)];
        match m {
            None => v,
            Some(m) => core::array::from_fn(|i| {
                (m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2]).clamp(0.0, 1.0)
            }),
        }
    }

    /// The first six colours stay ΔE ≥ 20 apart (CIE76) with normal vision
    /// and under simulated deuteranopia and protanopia (Machado, Oliveira
    /// and Fernandes 2009, severity 1.0); the old palette, equal in
    /// lightness, fell to single figures.
    #[test]
    fn the_first_six_colours_stay_apart_for_red_green_colour_blindness() {
        const DEUTAN: [[f64; 3]; 3] = [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ];
        const PROTAN: [[f64; 3]; 3] = [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ];
        let smallest = |palette: &[&str], m: Option<&[[f64; 3]; 3]>| {
            let mut worst = f64::MAX;
            for (i, a) in palette.iter().enumerate() {
                for b in &palette[i + 1..] {
                    let (p, q) = (lab(seen(a, m)), lab(seen(b, m)));
                    let d = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2))
                        .sqrt();
                    worst = worst.min(d);
                }
            }
            worst
        };
        let six = &REPLICA_HEX[..DISTINCT];
        let mut said = Vec::new();
        for (name, m) in [
            ("normal", None),
            ("deutan", Some(&DEUTAN)),
            ("protan", Some(&PROTAN)),
        ] {
            let d = smallest(six, m);
            said.push(format!("{name} {d:.1}"));
            assert!(
                d >= 20.0,
                "{name}: two of the first six colours are ΔE {d:.1} apart"
            );
        }
        println!(
            "smallest ΔE among the first six colours: {}",
            said.join(", ")
        );
        // The check can fail: the palette before this one.
        let old = [
            "#177AEB", "#BE6400", "#008E51", "#CC46AA", "#897D00", "#E63939",
        ];
        assert!(smallest(&old, Some(&DEUTAN)) < 20.0);
        // A later colour is dashed; the first six are not.
        assert!(six.iter().all(|h| distinct(parse_hex(h).unwrap())));
        assert!(!distinct(replica_color(DISTINCT)));
    }

    /// Each replica colour stands out at least 3:1 against every background
    /// of both themes.
    #[test]
    fn every_replica_colour_has_3_to_1_contrast_in_both_themes() {
        let bgs = backgrounds();
        // Light and dark (twice: the system's dark and the forced one).
        assert!(
            bgs.len() >= 9,
            "backgrounds read from the stylesheet: {bgs:?}"
        );
        assert!(bgs.iter().any(|(_, v)| v == "#ffffff"));
        assert!(bgs.iter().any(|(_, v)| v == "#1f2226"));
        let mut worst = f64::MAX;
        for hex in REPLICA_HEX {
            for (var, bg) in &bgs {
                let c = contrast(hex, bg);
                worst = worst.min(c);
                assert!(c >= 3.0, "replica colour {hex} on {var} {bg}: {c:.2}:1");
            }
        }
        println!("lowest replica contrast over both themes: {worst:.2}:1");
        // The check can fail: the old yellow on white.
        assert!(contrast("#F0E442", "#ffffff") < 3.0);
    }
}
