//! The encoding of [`super`] as JSON, without the types: a walk over the
//! shape and the values in step that hands each value to `serde_json` as the
//! typed value would have been handed (structs as objects keyed by field
//! name, unit variants as their name, other variants as a one-key object,
//! `None` and page-only values as null), so the text is exactly what
//! `serde_json::to_string` writes for the outcome.

use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::{split, tag, Cursor, Error};

/// The JSON text of an encoded value.
pub fn to_json(bytes: &[u8]) -> Result<String, Error> {
    let (values, shape) = split(bytes)?;
    let walk = Walk(RefCell::new(State {
        values: Cursor::new(values),
        shape: Cursor::new(shape),
        names: Vec::new(),
    }));
    let out = serde_json::to_string(&Next(&walk)).map_err(|_| Error("cannot write the JSON"))?;
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
    F32(f32),
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
            tag::F32 => Item::F32(v.f32()?),
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

/// The next value.
struct Next<'w, 'a>(&'w Walk<'a>);

/// The next `n` values, as a JSON array.
struct Array<'w, 'a>(&'w Walk<'a>, usize);

/// The next `n` named fields, as a JSON object.
struct Fields<'w, 'a>(&'w Walk<'a>, usize);

fn err<S: Serializer>(e: Error) -> S::Error {
    S::Error::custom(e.0)
}

impl Serialize for Array<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.1))?;
        for _ in 0..self.1 {
            seq.serialize_element(&Next(self.0))?;
        }
        seq.end()
    }
}

impl Serialize for Fields<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.1))?;
        for _ in 0..self.1 {
            let key = self.0.name().map_err(err::<S>)?;
            if self.0.peek().map_err(err::<S>)? == tag::SKIPPED {
                // Left out, as `serde_json` leaves it out.
                self.0.item().map_err(err::<S>)?;
                continue;
            }
            map.serialize_entry(key, &Next(self.0))?;
        }
        map.end()
    }
}

impl Serialize for Next<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let w = self.0;
        match w.item().map_err(err::<S>)? {
            Item::Null | Item::Skipped => s.serialize_none(),
            Item::Some => s.serialize_some(&Next(w)),
            // What `serde_json` writes for a page-only value: `null`.
            Item::PageOnly => {
                w.skip().map_err(err::<S>)?;
                s.serialize_none()
            }
            Item::Bool(b) => s.serialize_bool(b),
            Item::Uint(x) => s.serialize_u64(x),
            Item::Int(x) => s.serialize_i64(x),
            Item::F64(x) => s.serialize_f64(x),
            Item::F32(x) => s.serialize_f32(x),
            Item::Str(x) | Item::Char(x) => s.serialize_str(x),
            Item::Unit => s.serialize_unit(),
            Item::Array(n) => Array(w, n).serialize(s),
            Item::Map(n) => {
                let mut map = s.serialize_map(Some(n))?;
                for _ in 0..n {
                    map.serialize_key(&Next(w))?;
                    map.serialize_value(&Next(w))?;
                }
                map.end()
            }
            Item::Fields(n) => Fields(w, n).serialize(s),
            Item::Variant(name, t, n) => {
                if t == tag::UNIT_VARIANT {
                    return s.serialize_str(name);
                }
                let mut map = s.serialize_map(Some(1))?;
                match t {
                    tag::NEWTYPE_VARIANT => map.serialize_entry(name, &Next(w))?,
                    tag::TUPLE_VARIANT => map.serialize_entry(name, &Array(w, n))?,
                    _ => map.serialize_entry(name, &Fields(w, n))?,
                }
                map.end()
            }
        }
    }
}
