//! `f64` to decimal text, the same text as the standard library's `{:.N}`
//! and `{}`, without its float formatting.
//!
//! Why: core's float formatting (Grisu with a Dragon4 fallback, big-integer
//! arithmetic and tables of cached powers) is about 8 KB of the gzipped
//! browser bundle, and every lab reaches it through a single `{:.1}`. The
//! page writes few numbers, and short ones, so this module trades speed for
//! size: it computes the *exact* decimal expansion of the binary value
//! (`m × 2^e` is `m × 5^-e / 10^-e`, so the digits are those of an integer)
//! in base-10⁹ limbs and rounds it as core does (to nearest, ties to even).
//! The shortest form (`{}`) tries ever finer roundings of that expansion and
//! keeps the first that reads back as the same `f64` through
//! [`super::parse_f64`], which is what "shortest round trip" means.
//! The tests compare every form with the standard library on 100,000
//! values of every magnitude, at every precision from 0 to 8.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// `x` written as `{:.N}` writes it: `Fixed(2.345, 1)` shows `2.3`, and
/// width, alignment, `+` and `0` flags behave as they do for numbers.
// No `Debug` on these three: a derived one would print the `f64` with
// core's formatter.
#[derive(Clone, Copy)]
pub struct Fixed(pub f64, pub usize);

/// `x` written as `{}` writes it: the fewest digits that read back as the
/// same `f64`, never in exponent form (`1e21` shows 22 digits).
#[derive(Clone, Copy)]
pub struct Shortest(pub f64);

/// `x` written as `{:.Ne}` writes it: `Exponent(12345678.0, 1)` shows
/// `1.2e7`.
#[derive(Clone, Copy)]
pub struct Exponent(pub f64, pub usize);

impl fmt::Display for Exponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_number(f, self.0, |d, point| {
            if d.is_empty() {
                return alloc::format!("{}e0", render(d, 1, self.1 as i32, false));
            }
            // The digits read as d₁.d₂d₃…, rounded; a carry (9.96 → 10.0)
            // moves the point one place.
            let mut m = render(d, 1, self.1 as i32, false);
            let mut e = point - 1;
            if m.starts_with("10") {
                m = render(b"1", 1, self.1 as i32, false);
                e += 1;
            }
            alloc::format!("{m}e{e}")
        })
    }
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_number(f, self.0, |d, point| render(d, point, self.1 as i32, false))
    }
}

impl fmt::Display for Shortest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0.abs();
        write_number(f, self.0, |d, point| shortest(x, d, point))
    }
}

/// Signs, NaN and infinities as core writes them; `text` writes the digits
/// of a finite magnitude from its exact expansion.
fn write_number(
    f: &mut fmt::Formatter<'_>,
    x: f64,
    text: impl Fn(&[u8], i32) -> String,
) -> fmt::Result {
    if x.is_nan() {
        return f.pad("NaN");
    }
    let body = if x.is_infinite() {
        String::from("inf")
    } else {
        let (digits, point) = exact(x.abs());
        text(&digits, point)
    };
    f.pad_integral(!x.is_sign_negative(), "", &body)
}

/// `x` written as `{:e}` writes it: the digits of [`Shortest`] as
/// `d.ddd` and a power of ten (`1234.5` → `1.2345e3`, `0` → `0e0`).
pub fn shortest_exponent(x: f64) -> String {
    if !x.is_finite() {
        return alloc::format!("{}", Shortest(x));
    }
    let (digits, point) = exact(x.abs());
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if digits.is_empty() {
        return alloc::format!("{sign}0e0");
    }
    // The shortest text's significant digits, without the point.
    let text = shortest(x.abs(), &digits, point);
    let all: String = text.chars().filter(|c| *c != '.').collect();
    let lead = all.bytes().take_while(|&b| b == b'0').count();
    let sig = all[lead..].trim_end_matches('0');
    // The first significant digit's power of ten.
    let int_len = text.split('.').next().map_or(0, str::len) as i32;
    let e = int_len - 1 - lead as i32;
    let sig = if sig.is_empty() { "0" } else { sig };
    let (first, rest) = sig.split_at(1);
    let dot = if rest.is_empty() { "" } else { "." };
    alloc::format!("{sign}{first}{dot}{rest}e{e}")
}

/// The shortest rounding of `x`'s expansion that reads back as `x`.
fn shortest(x: f64, digits: &[u8], point: i32) -> String {
    if digits.is_empty() {
        return String::from("0");
    }
    // From one place above the leading digit (rounding may carry into it)
    // to the last exact digit, which always reads back. Core's shortest
    // form breaks a tie between two equally near candidates upwards; the
    // lower one is taken when only it reads back.
    let last = digits.len() as i32 - point;
    let mut places = -point;
    loop {
        for ties_up in [true, false] {
            let s = render(digits, point, places, ties_up);
            if places >= last || super::parse_f64(&s) == Some(x) {
                return s;
            }
        }
        places += 1;
    }
}

/// The value `0.d₁d₂… × 10^point` rounded to `places` decimals (a negative
/// count rounds to tens, hundreds, …), ties to even (or up), as text.
fn render(digits: &[u8], point: i32, places: i32, ties_up: bool) -> String {
    // Keep the digits above the rounding place, then round on the rest.
    let keep = point + places;
    let mut kept: Vec<u8> = if keep <= 0 {
        Vec::new()
    } else {
        let k = keep as usize;
        let mut v = digits[..k.min(digits.len())].to_vec();
        v.resize(k, b'0');
        v
    };
    let up = match digits.get(keep.max(0) as usize) {
        Some(&d) if keep >= 0 => {
            d > b'5'
                || (d == b'5'
                    && (ties_up
                        || digits.len() > keep as usize + 1
                        || kept.last().is_some_and(|l| l % 2 == 1)))
        }
        _ => false,
    };
    if up {
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, b'1');
                break;
            }
            i -= 1;
            if kept[i] == b'9' {
                kept[i] = b'0';
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    // `kept` is the result in units of 10^-places.
    while kept.first() == Some(&b'0') {
        kept.remove(0);
    }
    let mut out = String::new();
    if places <= 0 {
        if kept.is_empty() {
            out.push('0');
        } else {
            out.extend(kept.iter().map(|&b| b as char));
            out.extend(core::iter::repeat_n('0', (-places) as usize));
        }
        return out;
    }
    let p = places as usize;
    if kept.len() <= p {
        kept.splice(0..0, core::iter::repeat_n(b'0', p + 1 - kept.len()));
    }
    let int = kept.len() - p;
    out.extend(kept[..int].iter().map(|&b| b as char));
    out.push('.');
    out.extend(kept[int..].iter().map(|&b| b as char));
    out
}

/// One billion: the base of the limbs below.
const BASE: u64 = 1_000_000_000;

/// The exact decimal expansion of a finite `x ≥ 0`: ASCII digits without
/// leading or trailing zeros (none for zero) and the power of ten `point`
/// with `x = 0.digits × 10^point`.
fn exact(x: f64) -> (Vec<u8>, i32) {
    let (m, e) = super::split(x);
    // Little-endian base-10⁹ limbs of m × 2^e (e ≥ 0) or m × 5^-e (e < 0).
    let mut limbs = alloc::vec![m % BASE, m / BASE % BASE, m / (BASE * BASE)];
    let (factor, step, mut n) = if e >= 0 { (2u64, 29, e) } else { (5, 13, -e) };
    while n > 0 {
        let k = n.min(step);
        let by = factor.pow(k as u32);
        let mut carry = 0;
        for limb in &mut limbs {
            let t = *limb * by + carry;
            *limb = t % BASE;
            carry = t / BASE;
        }
        while carry > 0 {
            limbs.push(carry % BASE);
            carry /= BASE;
        }
        n -= k;
    }
    let mut digits = Vec::new();
    for limb in limbs.iter().rev() {
        let mut chunk = [b'0'; 9];
        let mut v = *limb;
        for c in chunk.iter_mut().rev() {
            *c = b'0' + (v % 10) as u8;
            v /= 10;
        }
        digits.extend_from_slice(&chunk);
    }
    let lead = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..lead);
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    // The integer's own digit count, before trailing zeros were dropped.
    let int_digits = (limbs.len() * 9 - lead) as i32;
    let point = if e >= 0 { int_digits } else { int_digits + e };
    (digits, point)
}
