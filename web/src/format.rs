//! Number formatting shared by every lab (DESIGN.md "Numbers"): whole percentages,
//! ticks with one decimal below 10 and none above, thousands separated.
//!
//! Fixed decimals go through [`fixed`], not `format!("{:.2}")`: core's exact
//! float formatting is several kilobytes of wasm the bundle budget cannot spare,
//! and integer arithmetic gives the same text for every value the labs show.

/// `1234567` → `"1,234,567"`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `x` with exactly `decimals` (0–9) digits after the point, as `{:.N}` writes
/// it: halfway cases go to the even digit (ties are exact in binary, so they
/// survive the scaling). Non-finite values read "–" (NaN) or "∞".
pub fn fixed(x: f64, decimals: u32) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "–"
        } else if x > 0.0 {
            "∞"
        } else {
            "−∞"
        }
        .into();
    }
    let scale = 10u64.pow(decimals.min(9));
    let y = x.abs() * scale as f64;
    if y >= 1e18 {
        // Beyond integer precision: the digits are whatever the float holds.
        return format!("{x}");
    }
    let floor = y.floor();
    let n = match y - floor {
        d if d > 0.5 => floor + 1.0,
        d if d < 0.5 => floor,
        // The product landed on a tie: the exact product decides (0.05 is
        // really 0.05000000000000000277, so it rounds up), and only a true
        // tie goes to the even digit.
        _ => match product_error(x.abs(), scale as f64, y) {
            e if e > 0.0 => floor + 1.0,
            e if e < 0.0 => floor,
            _ if floor % 2.0 == 0.0 => floor,
            _ => floor + 1.0,
        },
    } as u64;
    let mut s = String::new();
    if x.is_sign_negative() {
        s.push('-');
    }
    s += &(n / scale).to_string();
    if decimals > 0 {
        let frac = (n % scale).to_string();
        s.push('.');
        for _ in frac.len()..decimals as usize {
            s.push('0');
        }
        s += &frac;
    }
    s
}

/// `a·b − p` exactly, for `p` the rounded product (Dekker's two-product, with
/// Veltkamp splitting: no fused multiply-add needed).
fn product_error(a: f64, b: f64, p: f64) -> f64 {
    let split = |v: f64| {
        let c = 134_217_729.0 * v; // 2^27 + 1
        let hi = c - (c - v);
        (hi, v - hi)
    };
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    ((ah * bh - p) + ah * bl + al * bh) + al * bl
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

/// Fill each `{}` of `template` with the next of `values` (missing ones empty).
/// One call instead of a `format!` per sentence keeps page text cheap in wasm.
pub fn fill(template: &str, values: &[String]) -> String {
    let mut out = String::with_capacity(template.len() + 16 * values.len());
    let mut values = values.iter();
    let mut parts = template.split("{}");
    if let Some(first) = parts.next() {
        out += first;
    }
    for part in parts {
        if let Some(v) = values.next() {
            out += v;
        }
        out += part;
    }
    out
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
    }

    #[test]
    fn fixed_writes_what_core_writes() {
        let mut x = -3.0;
        while x < 3.0 {
            for d in 0..5 {
                assert_eq!(fixed(x, d), format!("{x:.*}", d as usize), "{x} {d}");
            }
            x += 0.0009765625 * 3.0; // exact binary steps: every tie case comes up
        }
        // Decimal steps: the near-ties that are not ties.
        for k in 0..100_000u32 {
            let x = f64::from(k) / 1000.0;
            for d in 0..4 {
                assert_eq!(fixed(x, d), format!("{x:.*}", d as usize), "{x} {d}");
            }
            let p = f64::from(k) / 100_000.0 * 100.0;
            assert_eq!(fixed(p, 0), format!("{p:.0}"), "{p}");
        }
        for x in [
            0.125,
            2.5,
            3.5,
            0.285,
            1.005,
            1234.5678,
            99.995,
            0.05,
            0.15,
            0.25,
            0.35,
            0.45,
            6.0 / 7.0,
            1e-9,
            2.675,
            1.0005,
        ] {
            for d in 0..5 {
                assert_eq!(fixed(x, d), format!("{x:.*}", d as usize), "{x} {d}");
            }
        }
        assert_eq!(fixed(f64::NAN, 2), "–");
        assert_eq!(signed(1.25, 1), "+1.2");
        assert_eq!(signed(-0.04, 1), "-0.0");
        assert_eq!(signed(0.0, 1), "0.0");
    }

    #[test]
    fn fill_puts_values_in_order() {
        assert_eq!(fill("a {} b {} c", &["1".into(), "2".into()]), "a 1 b 2 c");
        assert_eq!(fill("{}{}", &["x".into()]), "x");
    }
}
