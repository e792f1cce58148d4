//! Decimal text to `f64`, correctly rounded, without the standard library's
//! tables (and back: [`Fixed`] and [`Shortest`], see `write.rs`).
//!
//! `str::parse::<f64>` is exact and fast, but its fast algorithm (Eisel–Lemire)
//! carries a 10 KB table of powers of five that gzip cannot shrink: a tenth of
//! what a new lab page costs in the browser bundle. The page parses only short
//! numbers (URL values, slider positions, trace fields), so this module trades
//! speed on long inputs for size and keeps the same results bit for bit:
//! - *fast path* (Clinger 1990, "How to read floating point numbers
//!   accurately"): at most 19 significant digits whose integer fits in 53 bits,
//!   scaled by an exact power of ten (10^0..10^22 are exact in `f64`), is one
//!   correctly rounded multiplication or division;
//! - *slow path*: a guess from `libm::pow`, then corrected one unit in the last
//!   place at a time by comparing the exact decimal value with the exact
//!   halfway points on either side, in big integers (the comparison step of
//!   Clinger's Algorithm R). Ties go to the even mantissa, as IEEE 754 rounds.
//!
//! It accepts exactly what `str::parse::<f64>` accepts (an optional sign, digits
//! with an optional point, an optional exponent; `inf`, `infinity` and `nan` in
//! any case) and the tests compare the two on a million inputs.

use alloc::vec::Vec;

mod write;
pub use write::{shortest_exponent, Exponent, Fixed, Shortest};

/// `s` as the nearest `f64` (ties to even), or `None` when `s` is not a number
/// in the grammar of `str::parse::<f64>`.
pub fn parse_f64(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let (negative, rest) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    let x = parse_unsigned(rest)?;
    Some(if negative { -x } else { x })
}

/// The largest integer every smaller one of which an `f64` holds exactly.
const EXACT_INTEGER: u64 = 1 << 53;

/// 10^0 ..= 10^22: every one exact in `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

fn parse_unsigned(b: &[u8]) -> Option<f64> {
    for (word, value) in [
        ("infinity", f64::INFINITY),
        ("inf", f64::INFINITY),
        ("nan", f64::NAN),
    ] {
        if b.eq_ignore_ascii_case(word.as_bytes()) {
            return Some(value);
        }
    }
    let digits_end = |from: usize| {
        b[from..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(b.len(), |p| from + p)
    };
    let int_end = digits_end(0);
    let (frac_start, frac_end) = if b.get(int_end) == Some(&b'.') {
        (int_end + 1, digits_end(int_end + 1))
    } else {
        (int_end, int_end)
    };
    if int_end == 0 && frac_end == frac_start {
        return None; // no digit at all: "", ".", "e5"
    }
    let mut exponent: i64 = 0;
    let mut i = frac_end;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative = match b.get(i) {
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
        let end = digits_end(i);
        if end == i {
            return None; // "1e", "1e+"
        }
        for &c in &b[i..end] {
            // Saturate: past a million the value is 0 or infinite either way.
            exponent = (exponent * 10 + i64::from(c - b'0')).min(1_000_000);
        }
        if negative {
            exponent = -exponent;
        }
        i = end;
    }
    if i != b.len() {
        return None;
    }
    // The significant digits, leading zeros dropped; value = digits × 10^e.
    let all = b[..int_end].iter().chain(&b[frac_start..frac_end]);
    let significant: Vec<u8> = all.skip_while(|&&c| c == b'0').map(|c| c - b'0').collect();
    if significant.is_empty() {
        return Some(0.0);
    }
    let e = exponent - (frac_end - frac_start) as i64;
    if let Some(x) = fast_path(&significant, e) {
        return Some(x);
    }
    // The value lies in [10^(magnitude-1), 10^magnitude).
    let magnitude = significant.len() as i64 + e;
    if magnitude > 310 {
        return Some(f64::INFINITY);
    }
    if magnitude < -330 {
        return Some(0.0);
    }
    Some(correct(
        &significant,
        e as i32,
        guess(&significant, e as i32),
    ))
}

/// The exact answer when one correctly rounded operation gives it.
fn fast_path(digits: &[u8], e: i64) -> Option<f64> {
    if digits.len() > 19 {
        return None;
    }
    let w = digits.iter().fold(0u64, |w, &d| w * 10 + u64::from(d));
    if w > EXACT_INTEGER {
        return None;
    }
    let x = w as f64;
    match e {
        0..=22 => Some(x * POW10[e as usize]),
        -22..=-1 => Some(x / POW10[(-e) as usize]),
        // "12e30": move the excess power into the integer while it stays exact.
        23..=37 => {
            let w = w.checked_mul(10u64.pow((e - 22) as u32))?;
            (w <= EXACT_INTEGER).then(|| w as f64 * POW10[22])
        }
        _ => None,
    }
}

/// A nearby `f64` (within a few units in the last place) to start from.
fn guess(digits: &[u8], e: i32) -> f64 {
    let kept = digits.len().min(19);
    let w = digits[..kept]
        .iter()
        .fold(0u64, |w, &d| w * 10 + u64::from(d));
    let e = e + (digits.len() - kept) as i32;
    // Two factors so neither overflows nor underflows on its own near the ends
    // of the range (1e-330 is below the smallest subnormal, 1e310 above MAX).
    let half = e / 2;
    let x = w as f64 * libm::pow(10.0, f64::from(half)) * libm::pow(10.0, f64::from(e - half));
    if x.is_infinite() {
        f64::MAX
    } else {
        x
    }
}

/// Step `x` to the `f64` nearest `digits × 10^e` (ties to even).
fn correct(digits: &[u8], e: i32, mut x: f64) -> f64 {
    let value = Big::from_digits(digits);
    loop {
        let (m, k) = split(x);
        // Halfway to the next f64 up: (2m + 1) × 2^(k-1).
        match compare(&value, e, 2 * m + 1, k - 1) {
            core::cmp::Ordering::Greater => {
                x = f64::from_bits(x.to_bits() + 1);
                if x.is_infinite() {
                    return x;
                }
                continue;
            }
            core::cmp::Ordering::Equal => {
                return if m % 2 == 0 {
                    x
                } else {
                    f64::from_bits(x.to_bits() + 1)
                };
            }
            core::cmp::Ordering::Less => {}
        }
        if m == 0 {
            return x;
        }
        // Halfway to the next f64 down; at the bottom of a binade the step
        // below is half as wide.
        let (below_m, below_k) = if m == 1 << 52 && k > -1074 {
            (4 * m - 1, k - 2)
        } else {
            (2 * m - 1, k - 1)
        };
        match compare(&value, e, below_m, below_k) {
            core::cmp::Ordering::Less => x = f64::from_bits(x.to_bits() - 1),
            core::cmp::Ordering::Equal => {
                return if m % 2 == 0 {
                    x
                } else {
                    f64::from_bits(x.to_bits() - 1)
                };
            }
            core::cmp::Ordering::Greater => return x,
        }
    }
}

/// A finite, non-negative `x` as `m × 2^k` with an integer `m`.
fn split(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let fraction = bits & ((1 << 52) - 1);
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    }
}

/// `value × 10^e` against `m × 2^k`, both sides made integers.
fn compare(value: &Big, e: i32, m: u64, k: i32) -> core::cmp::Ordering {
    let mut left = value.clone();
    let mut right = Big::from_u64(m);
    if e >= 0 {
        left.mul_pow10(e as u32);
    } else {
        right.mul_pow10((-e) as u32);
    }
    if k >= 0 {
        right.shl(k as u32);
    } else {
        left.shl((-k) as u32);
    }
    left.cmp(&right)
}

/// An unsigned big integer: little-endian 32-bit limbs, no trailing zero limb.
#[derive(Clone, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(x: u64) -> Big {
        let mut b = Big(alloc::vec![x as u32, (x >> 32) as u32]);
        b.trim();
        b
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        for chunk in digits.chunks(9) {
            let scale = 10u32.pow(chunk.len() as u32);
            let add = chunk.iter().fold(0u32, |a, &d| a * 10 + u32::from(d));
            b.mul_add(scale, add);
        }
        b
    }

    /// self = self × by + add.
    fn mul_add(&mut self, by: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(by) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_add(1_000_000_000, 0);
            n -= 9;
        }
        self.mul_add(10u32.pow(n), 0);
    }

    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0;
            for limb in &mut self.0 {
                let t = (u64::from(*limb) << bits) | carry;
                *limb = t as u32;
                carry = t >> 32;
            }
            if carry > 0 {
                self.0.push(carry as u32);
            }
        }
        if !self.0.is_empty() {
            self.0.splice(0..0, core::iter::repeat_n(0, limbs));
        }
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
}

impl PartialOrd for Big {
    fn partial_cmp(&self, other: &Big) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Big {
    fn cmp(&self, other: &Big) -> core::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests;
