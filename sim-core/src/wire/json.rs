//! The encoding of [`super`] as JSON, without the types: a walk over the
//! shape and the values in step that writes each value as `serde_json`
//! writes the typed value (structs as objects keyed by field name, unit
//! variants as their name, other variants as a one-key object, `None` and
//! page-only values as `null`, floats in `ryu`'s layout), so the text is
//! exactly what `serde_json::to_string` writes for the outcome. Its own
//! writer rather than `serde_json`'s keeps `serde_json` out of the page's
//! bundle; the tests compare the two byte for byte.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::RefCell;

use super::{split, tag, Cursor, Error};

/// The JSON text of an encoded value.
pub fn to_json(bytes: &[u8]) -> Result<String, Error> {
    let (values, shape) = split(bytes)?;
    let walk = Walk(RefCell::new(State {
        values: Cursor::new(values),
        shape: Cursor::new(shape),
        names: Vec::new(),
    }));
    let mut out = String::new();
    value(&walk, &mut out)?;
    let state = walk.0.borrow();
    if state.values.done() && state.shape.done() {
        Ok(out)
    } else {
        Err(Error("bytes left over after the outcome"))
    }
}

/// Both cursors and the names met so far.
struct State<'a> {
    values: Cursor<'a>,
    shape: Cursor<'a>,
    names: Vec<&'a str>,
}

/// What a value is, read from both streams (its payload read out).
enum Item<'a> {
    Null,
    Some,
    Bool(bool),
    Uint(u64),
    Int(i64),
    F64(f64),
    Str(&'a str),
    Char(&'a str),
    Array(usize),
    Map(usize),
    Fields(usize),
    Unit,
    /// A variant: its name and what follows (0 none, or a kind of payload).
    Variant(&'a str, u8, usize),
    PageOnly,
    Skipped,
}

struct Walk<'a>(RefCell<State<'a>>);

impl<'a> Walk<'a> {
    #[inline(never)]
    fn name(&self) -> Result<&'a str, Error> {
        let mut s = self.0.borrow_mut();
        let State { shape, names, .. } = &mut *s;
        match shape.name()? {
            Ok(text) => {
                names.push(text);
                Ok(text)
            }
            Err(k) => names
                .get(k)
                .copied()
                .ok_or(Error("a name refers to nothing")),
        }
    }

    /// Read the next value's tag and payload.
    #[inline(never)]
    fn item(&self) -> Result<Item<'a>, Error> {
        let t = self.0.borrow_mut().shape.byte()?;
        let mut s = self.0.borrow_mut();
        let State {
            values: v, shape, ..
        } = &mut *s;
        Ok(match t {
            tag::NONE => {
                v.byte()?;
                Item::Null
            }
            tag::SOME => {
                v.byte()?;
                Item::Some
            }
            tag::PAGE_ONLY => {
                v.byte()?;
                Item::PageOnly
            }
            tag::SKIPPED => Item::Skipped,
            tag::BOOL => Item::Bool(v.byte()? != 0),
            tag::UINT => Item::Uint(v.varint()?),
            tag::INT => Item::Int(v.signed()?),
            tag::U8 => Item::Uint(v.byte()?.into()),
            tag::I8 => Item::Int((v.byte()? as i8).into()),
            tag::F64 => Item::F64(v.f64()?),
            // `serde_json` lays out `f32` by rules of its own; no outcome holds one.
            tag::F32 => return Err(Error("f32 values are not written as JSON")),
            tag::STR => Item::Str(v.str()?),
            tag::CHAR => Item::Char(v.str()?),
            tag::UNIT => Item::Unit,
            tag::SEQ => Item::Array(v.count()?),
            tag::TUPLE => Item::Array(shape.count()?),
            tag::MAP => Item::Map(v.count()?),
            tag::STRUCT => Item::Fields(shape.fields()?),
            tag::UNIT_VARIANT..=tag::STRUCT_VARIANT => {
                v.varint()?;
                drop(s);
                let name = self.name()?;
                let mut s = self.0.borrow_mut();
                let n = match t {
                    tag::TUPLE_VARIANT => s.shape.count()?,
                    tag::STRUCT_VARIANT => s.shape.fields()?,
                    _ => 0,
                };
                return Ok(Item::Variant(name, t, n));
            }
            _ => return Err(Error("unknown tag")),
        })
    }

    /// Read past the next value (a page-only one), noting its names.
    fn skip(&self) -> Result<(), Error> {
        match self.item()? {
            Item::Some | Item::PageOnly => self.skip()?,
            Item::Array(n) => (0..n).try_for_each(|_| self.skip())?,
            Item::Map(n) => (0..2 * n).try_for_each(|_| self.skip())?,
            Item::Fields(n) => (0..n).try_for_each(|_| {
                self.name()?;
                self.skip()
            })?,
            Item::Variant(_, t, n) => match t {
                tag::NEWTYPE_VARIANT => self.skip()?,
                tag::TUPLE_VARIANT => (0..n).try_for_each(|_| self.skip())?,
                tag::STRUCT_VARIANT => (0..n).try_for_each(|_| {
                    self.name()?;
                    self.skip()
                })?,
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// The next shape byte, not consumed.
    fn peek(&self) -> Result<u8, Error> {
        self.0.borrow().shape.peek()
    }
}

/// Write the next value as JSON.
fn value(w: &Walk<'_>, out: &mut String) -> Result<(), Error> {
    match w.item()? {
        Item::Null | Item::Skipped => out.push_str("null"),
        Item::Some => value(w, out)?,
        // What `serde_json` writes for a page-only value: `null`.
        Item::PageOnly => {
            w.skip()?;
            out.push_str("null");
        }
        Item::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Item::Uint(x) => out.push_str(&x.to_string()),
        Item::Int(x) => out.push_str(&x.to_string()),
        Item::F64(x) => float(out, x.is_finite(), || crate::decimal::shortest_exponent(x)),
        Item::Str(x) | Item::Char(x) => string(out, x),
        Item::Unit => out.push_str("null"),
        Item::Array(n) => array(w, n, out)?,
        Item::Map(n) => {
            out.push('{');
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                // Keys are strings in JSON: numbers are quoted.
                match w.item()? {
                    Item::Str(k) | Item::Char(k) => string(out, k),
                    Item::Uint(k) => string(out, &k.to_string()),
                    Item::Int(k) => string(out, &k.to_string()),
                    _ => return Err(Error("a map key JSON cannot write")),
                }
                out.push(':');
                value(w, out)?;
            }
            out.push('}');
        }
        Item::Fields(n) => fields(w, n, out)?,
        Item::Variant(name, t, n) => {
            if t == tag::UNIT_VARIANT {
                string(out, name);
                return Ok(());
            }
            out.push('{');
            string(out, name);
            out.push(':');
            match t {
                tag::NEWTYPE_VARIANT => value(w, out)?,
                tag::TUPLE_VARIANT => array(w, n, out)?,
                _ => fields(w, n, out)?,
            }
            out.push('}');
        }
    }
    Ok(())
}

fn array(w: &Walk<'_>, n: usize, out: &mut String) -> Result<(), Error> {
    out.push('[');
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        value(w, out)?;
    }
    out.push(']');
    Ok(())
}

fn fields(w: &Walk<'_>, n: usize, out: &mut String) -> Result<(), Error> {
    out.push('{');
    let mut first = true;
    for _ in 0..n {
        let key = w.name()?;
        if w.peek()? == tag::SKIPPED {
            // Left out, as `serde_json` leaves it out.
            w.item()?;
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        string(out, key);
        out.push(':');
        value(w, out)?;
    }
    out.push('}');
    Ok(())
}

/// A JSON string, escaped as `serde_json` escapes it: quotes, backslashes
/// and control characters, nothing else.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as `serde_json` writes it (the layout of the `ryu` crate):
/// the shortest digits that read back to the same value (what `{:e}`
/// gives), as a plain decimal with at least one digit after the point
/// when the point falls within the first 16 places or up to 5 zeros after
/// it, else in exponent form (`1e+21`, `1.5e-7`); not finite is `null`.
fn float(out: &mut String, finite: bool, exp: impl FnOnce() -> String) {
    if !finite {
        out.push_str("null");
        return;
    }
    let e = exp();
    let (mantissa, power) = e.split_once('e').unwrap_or((&e, "0"));
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let power: i32 = power.parse().unwrap_or(0);
    // The decimal point sits `point` digits into `digits`.
    let (n, point) = (digits.len() as i32, power + 1);
    if negative {
        out.push('-');
    }
    if 0 <= point - n && point <= 16 {
        out.push_str(&digits);
        out.extend(core::iter::repeat_n('0', (point - n) as usize));
        out.push_str(".0");
    } else if 0 < point && point <= 16 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -5 < point && point <= 0 {
        out.push_str("0.");
        out.extend(core::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        if point > 1 {
            out.push('+');
        }
        out.push_str(&(point - 1).to_string());
    }
}
