//! Decimal text to `f64` for URL values and form inputs.
//!
//! Why not `str::parse::<f64>`: core's parser carries the Eisel–Lemire tables of
//! powers of five (about 17 KB, 10 KB gzipped) into the wasm bundle, a twentieth
//! of the whole budget, to parse a handful of short numbers like `0.35`.
//!
//! The numbers here are short (typed by people, or written by `f64::to_string`
//! for the URL), so Clinger's fast path applies: a mantissa below 2^53 scaled by
//! an exact power of ten up to 10^22 is one correctly rounded IEEE multiply or
//! divide, so the result equals `str::parse` bit for bit (W. D. Clinger, "How to
//! read floating point numbers accurately", PLDI 1990). Longer or more extreme
//! inputs (17 significant digits, huge exponents) fall back to repeated scaling,
//! within a unit or so in the last place.

/// Exact powers of ten representable in an `f64` (10^0 ..= 10^22).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parse `[+-]digits[.digits][(e|E)[+-]digits]` (leading/trailing spaces allowed);
/// `None` for anything else, including `inf` and `NaN`.
pub fn parse_f64(text: &str) -> Option<f64> {
    let b = text.trim().as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let (mut mantissa, mut exp10, mut digits) = (0u64, 0i32, 0u32);
    let mut seen_point = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                if mantissa < 1_000_000_000_000_000_000 {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                    if seen_point {
                        exp10 -= 1;
                    }
                } else if !seen_point {
                    // Beyond 19 significant digits: keep the magnitude, drop the digit.
                    exp10 += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let exp_negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut e = 0i32;
        while let Some(c @ b'0'..=b'9') = b.get(i) {
            e = e.saturating_mul(10).saturating_add(i32::from(c - b'0'));
            i += 1;
        }
        if i == start {
            return None;
        }
        exp10 = exp10.saturating_add(if exp_negative { -e } else { e });
    }
    if i != b.len() {
        return None;
    }
    let magnitude = scale(mantissa as f64, exp10, mantissa < 1 << 53);
    Some(if negative { -magnitude } else { magnitude })
}

/// `m · 10^e`: exact-rounded on Clinger's fast path, else by repeated scaling.
fn scale(m: f64, e: i32, exact_mantissa: bool) -> f64 {
    if m == 0.0 {
        return 0.0;
    }
    if exact_mantissa && e.unsigned_abs() <= 22 {
        let p = POW10[e.unsigned_abs() as usize];
        return if e < 0 { m / p } else { m * p };
    }
    let (mut x, mut e) = (m, e);
    while e > 22 && x.is_finite() {
        x *= 1e22;
        e -= 22;
    }
    while e < -22 && x != 0.0 {
        x /= 1e22;
        e += 22;
    }
    let p = POW10[e.unsigned_abs().min(22) as usize];
    if e < 0 {
        x / p
    } else {
        x * p
    }
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    #[test]
    fn agrees_with_std_bit_for_bit_on_short_numbers() {
        for text in [
            "0",
            "0.0",
            "-0.5",
            "+3",
            "3.",
            ".25",
            "0.35",
            "1e3",
            "2.5E-4",
            "  7.125 ",
            "1000000",
            "0.1",
            "0.2",
            "0.3",
            "123.456",
            "9007199254740991",
            "1e22",
            "1e-22",
        ] {
            let ours = parse_f64(text).unwrap();
            let std: f64 = text.trim().parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
        }
    }

    #[test]
    fn round_trips_what_to_string_writes() {
        // Every slider value the labs write to the URL is a whole number of
        // steps of 0.001 or coarser, rounded as the setters round it.
        for k in 0..200_000u32 {
            for x in [
                f64::from(k) / 100.0,
                f64::from(k) / 20.0,
                f64::from(k) / 1000.0,
            ] {
                let back = parse_f64(&x.to_string()).unwrap();
                assert_eq!(back.to_bits(), x.to_bits(), "{x}");
            }
        }
        // Seventeen significant digits leave the fast path: within one unit in the last place.
        for k in 0..2_000u32 {
            let x = f64::from(k) * 0.05;
            let back = parse_f64(&x.to_string()).unwrap();
            assert!(back.to_bits().abs_diff(x.to_bits()) <= 1, "{x}");
        }
    }

    #[test]
    fn long_and_extreme_inputs_stay_close() {
        for text in [
            "3.14159265358979323846264338",
            "6.02214076e23",
            "1.6e-35",
            "12345678901234567890123",
        ] {
            let ours = parse_f64(text).unwrap();
            let std: f64 = text.parse().unwrap();
            assert!(
                ((ours - std) / std).abs() < 1e-14,
                "{text}: {ours} vs {std}"
            );
        }
    }

    #[test]
    fn rejects_what_is_not_a_decimal_number() {
        for text in [
            "", " ", "-", ".", "e3", "1e", "1e+", "abc", "1.2.3", "1,5", "inf", "NaN", "0x10",
            "3 4",
        ] {
            assert_eq!(parse_f64(text), None, "{text:?}");
        }
    }
}
