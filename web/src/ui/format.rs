//! Number formatting shared by every lab (DESIGN.md "Numbers"): whole percentages,
//! ticks with one decimal below 10 and none above, thousands separated.

/// `1234567` → `"1,234,567"` (the simulation's own, so the page and its
/// messages separate thousands the same way with one copy of the code).
pub use sim_core::params::thousands;

/// `x` as `{}` writes it (the fewest digits that read back as `x`): the
/// same text the simulation's parameters use.
pub use sim_core::params::real_text;

/// `x` with exactly `decimals` digits after the point (as `{:.N}` writes it).
/// Non-finite values read "–" (NaN) or "∞".
pub fn fixed(x: f64, decimals: u32) -> String {
    if x.is_nan() {
        return "–".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "∞" } else { "−∞" }.into();
    }
    format!("{x:.0$}", decimals as usize)
}

/// [`fixed`] with a sign: `+1.5`, `-0.3`, `0.0`.
pub fn signed(x: f64, decimals: u32) -> String {
    let s = fixed(x, decimals);
    if s.starts_with('-') || s.trim_start_matches(['0', '.']).is_empty() {
        s
    } else {
        format!("+{s}")
    }
}

/// A tick count: one decimal below 10, none above (thousands separated).
pub fn ticks(x: f64) -> String {
    if x < 10.0 {
        fixed(x, 1)
    } else {
        thousands(x.round() as u64)
    }
}

/// A share in 0–1 as a whole percentage.
pub fn percent(share: f64) -> String {
    format!("{}%", (share * 100.0).round() as i64)
}

/// A rate with one decimal.
pub fn one_decimal(x: f64) -> String {
    fixed(x, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_design_notes() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(ticks(2.04), "2.0");
        assert_eq!(ticks(52.1), "52");
        assert_eq!(ticks(1837.0), "1,837");
        assert_eq!(percent(0.975), "98%");
        assert_eq!(fixed(f64::NAN, 2), "–");
        assert_eq!(fixed(f64::INFINITY, 2), "∞");
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(signed(1.25, 1), "+1.2");
        assert_eq!(signed(-0.04, 1), "-0.0");
        assert_eq!(signed(0.0, 1), "0.0");
    }
}
