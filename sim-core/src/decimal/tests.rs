//! `parse_f64` against `str::parse::<f64>`, bit for bit.

extern crate std;

use super::parse_f64;
use crate::rng::Rng;
use alloc::format;
use alloc::string::String;

/// Same answer as the standard library, NaN's payload aside.
fn check(s: &str) {
    let ours = parse_f64(s);
    let std = s.parse::<f64>().ok();
    match (ours, std) {
        (Some(a), Some(b)) if a.is_nan() && b.is_nan() => {}
        (Some(a), Some(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{s:?}: {a:e} against {b:e}"),
        (a, b) => assert_eq!(a.is_some(), b.is_some(), "{s:?}: {a:?} against {b:?}"),
    }
}

#[test]
fn grammar_matches_the_standard_library() {
    for s in [
        "",
        ".",
        "e5",
        "1e",
        "1e+",
        "1e-",
        "+",
        "-",
        "+-1",
        "1..2",
        " 1",
        "1 ",
        "0x10",
        "1_0",
        "1,5",
        "1.",
        ".5",
        "+.5e-3",
        "-0",
        "-0.0",
        "0e999999999999",
        "1e999999999999",
        "1e-999999999999",
        "inf",
        "-infinity",
        "INF",
        "Infinity",
        "NaN",
        "nan",
        "-nAn",
        "+inf",
        "infinit",
        "nana",
        "00000000000000000000000000001",
        "0.000",
        "000.000e5",
        "1E5",
        "1e+05",
        "٣",
    ] {
        check(s);
    }
}

#[test]
fn edges_round_as_the_standard_library() {
    for s in [
        "9007199254740992",
        "9007199254740993",
        "9007199254740995",
        "9007199254740993.0000000000001",
        "0.1",
        "0.2",
        "0.30000000000000004",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.7976931348623159e308",
        "1.797693134862315807e308",
        "1.7976931348623158079e308",
        "2.2250738585072014e-308",
        "2.2250738585072011e-308",
        "2.2250738585072012e-308",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.47032822920623272088e-324",
        "1e-400",
        "1e310",
        "1e23",
        "8.98846567431158e307",
        "123456789012345678901234567890",
        "12e30",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "0.8",
        "150",
        "1.25",
    ] {
        check(s);
    }
}

#[test]
fn random_values_round_trip_like_the_standard_library() {
    let mut rng = Rng::new(7, 0);
    let mut s = String::new();
    for i in 0..400_000 {
        let x = f64::from_bits(rng.next_u64());
        if !x.is_finite() {
            continue;
        }
        s.clear();
        match i % 4 {
            0 => s.push_str(&format!("{x}")),
            1 => s.push_str(&format!("{x:e}")),
            2 => s.push_str(&format!("{:.3e}", x)),
            _ => s.push_str(&format!("{:.20e}", x)),
        }
        check(&s);
    }
}

#[test]
fn random_digit_strings_round_like_the_standard_library() {
    let mut rng = Rng::new(11, 0);
    for _ in 0..400_000 {
        let digits = 1 + rng.index(30);
        let mut s = String::new();
        let point = rng.index(digits + 1);
        for d in 0..digits {
            if d == point {
                s.push('.');
            }
            s.push(char::from(b'0' + rng.below(10) as u8));
        }
        if rng.below(2) == 0 {
            s.push_str(&format!("e{}", rng.below(700) as i32 - 350));
        }
        check(&s);
    }
}

#[test]
fn short_page_values_round_like_the_standard_library() {
    // What sliders and URLs carry: a few digits, a point somewhere.
    for w in 0..20_000u32 {
        for scale in 0..6 {
            let s = format!("{w}");
            let s = if scale == 0 || scale >= s.len() {
                format!("0.{}{s}", "0".repeat(scale.saturating_sub(s.len())))
            } else {
                format!("{}.{}", &s[..s.len() - scale], &s[s.len() - scale..])
            };
            check(&s);
        }
    }
}

/// `Fixed` and `Shortest` write what `{:.N}` and `{}` write.
mod writing {
    extern crate std;
    use super::super::{shortest_exponent, Exponent, Fixed, Shortest};
    use crate::rng::Rng;
    use alloc::format;

    fn check(x: f64) {
        assert_eq!(format!("{}", Shortest(x)), format!("{x}"), "{x:e}");
        assert_eq!(shortest_exponent(x), format!("{x:e}"));
        for n in 0..=8 {
            assert_eq!(
                format!("{}", Fixed(x, n)),
                format!("{x:.n$}"),
                "{x:e} to {n}"
            );
            assert_eq!(
                format!("{}", Exponent(x, n)),
                format!("{x:.n$e}"),
                "{x:e} to {n}"
            );
        }
    }

    #[test]
    fn edges_and_ties() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            0.25,
            0.125,
            0.375,
            9.5,
            99.5,
            999.95,
            0.05,
            0.15,
            0.35,
            1e21,
            1e22,
            1e-7,
            123456789012345680.0,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            0.1,
            0.2,
            0.3,
            0.834,
            2.0f64.powi(60),
            2.0f64.powi(-30),
            4428.7,
            8730.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            check(x);
        }
        // Flags go through as they do for numbers.
        assert_eq!(format!("{:+}", Fixed(1.25, 1)), format!("{:+.1}", 1.25));
        assert_eq!(format!("{:>8}", Fixed(-1.25, 2)), format!("{:>8.2}", -1.25));
        assert_eq!(format!("{:08}", Fixed(-1.25, 2)), format!("{:08.2}", -1.25));
        assert_eq!(format!("{:<6}|", Shortest(0.5)), format!("{:<6}|", 0.5));
    }

    #[test]
    fn same_as_the_standard_library_on_random_values() {
        let mut rng = Rng::new(7, 1);
        for i in 0..100_000u32 {
            let x = match i % 4 {
                // Any bit pattern: every magnitude.
                0 => f64::from_bits(rng.next_u64()),
                // The magnitudes the page shows, and halves (exact ties).
                1 => (rng.unit() * 2e6).round() / 1024.0,
                2 => rng.unit() * 10f64.powi((rng.next_u64() % 16) as i32 - 6),
                _ => (rng.next_u64() % 100_000) as f64 / 1000.0,
            };
            check(x);
        }
    }
}
