//! Writing a value in the two streams of [`super`]: postcard's bytes in
//! `values`, tags and names in `shape`.

use alloc::vec::Vec;
use serde::ser::{self, Serialize};

use super::{tag, Error};
use crate::fasthash::FxHashMap;

/// Write `value` in the encoding of [`super`].
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut w = Writer {
        values: Vec::new(),
        shape: Vec::new(),
        names: FxHashMap::default(),
        open: Vec::new(),
        shaped: true,
    };
    value.serialize(&mut w)?;
    let mut out = Vec::with_capacity(w.values.len() + w.shape.len() + 5);
    varint(&mut out, w.values.len() as u64);
    out.extend_from_slice(&w.values);
    out.extend_from_slice(&w.shape);
    Ok(out)
}

/// LEB128, as postcard writes its integers and lengths.
#[inline(never)]
pub(super) fn varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Write `value` in the encoding of [`super`] through [`super::Encode`]
/// (what an export turns into JSON).
pub fn encode_typed<T: super::Encode>(value: &T) -> Vec<u8> {
    write_typed(value, true)
}

/// Write `value`'s values stream alone through [`super::Encode`], with an
/// empty shape: what the worker hands the page, which reads values only.
/// [`super::decode`] reads it; [`super::to_json`] cannot (an export writes
/// the decoded outcome again with [`encode_typed`]). The shape's tags and
/// names were a third of the worker's time after a Routing Lab run and half
/// the bytes it sent.
pub fn encode_values<T: super::Encode>(value: &T) -> Vec<u8> {
    write_typed(value, false)
}

/// Not generic: the streams' set-up and assembly are compiled once, not
/// once per outcome type (two callers per type kept a copy each in the
/// bundle).
pub(super) fn write_typed(value: &dyn super::Encode, shaped: bool) -> Vec<u8> {
    let mut w = Writer {
        values: Vec::new(),
        shape: Vec::new(),
        names: FxHashMap::default(),
        open: Vec::new(),
        shaped,
    };
    value.encode(&mut w);
    let mut out = Vec::with_capacity(w.values.len() + w.shape.len() + 5);
    varint(&mut out, w.values.len() as u64);
    out.extend_from_slice(&w.values);
    out.extend_from_slice(&w.shape);
    out
}

/// The two streams and the names written so far, keyed by the address and
/// length of the `&'static str` serde hands over (a lookup never compares
/// text). The map's types are those of the SGLang router's edges, so the
/// bundle holds one copy of the map's code, not two.
pub struct Writer {
    values: Vec<u8>,
    shape: Vec<u8>,
    names: FxHashMap<(usize, u32), usize>,
    /// Where the field counts of the structs being written sit in `shape`.
    open: Vec<usize>,
    /// Whether the shape is written at all ([`encode_values`] leaves it out).
    shaped: bool,
}

impl Writer {
    /// A tag in the shape and a varint in the values.
    #[inline(never)]
    fn uint(&mut self, t: u8, x: u64) {
        if self.shaped {
            self.shape.push(t);
        }
        varint(&mut self.values, x);
    }

    /// A tag in the shape and raw bytes in the values.
    #[inline(never)]
    fn raw(&mut self, t: u8, bytes: &[u8]) {
        if self.shaped {
            self.shape.push(t);
        }
        self.values.extend_from_slice(bytes);
    }

    /// A tag in the shape and a string in the values.
    #[inline(never)]
    fn text(&mut self, t: u8, s: &str) {
        self.uint(t, s.len() as u64);
        self.values.extend_from_slice(s.as_bytes());
    }

    #[inline(never)]
    fn name(&mut self, s: &'static str) {
        if !self.shaped {
            return;
        }
        // Field and variant names are short: their length fits in a u32.
        let key = (s.as_ptr() as usize, s.len() as u32);
        let next = self.names.len();
        match self.names.get(&key) {
            Some(&k) => varint(&mut self.shape, k as u64 + 1),
            None => {
                self.names.insert(key, next);
                self.shape.push(0);
                varint(&mut self.shape, s.len() as u64);
                self.shape.extend_from_slice(s.as_bytes());
            }
        }
    }

    /// A variant: its tag and name in the shape, its number in the values.
    #[inline(never)]
    fn variant(&mut self, t: u8, index: u32, name: &'static str) {
        self.uint(t, index.into());
        self.name(name);
    }

    /// Start a struct's fields: a two-byte count in the shape, `len` for now.
    #[inline(never)]
    fn open_struct(&mut self, len: usize) -> Result<(), Error> {
        if !self.shaped {
            return Ok(());
        }
        let n = u16::try_from(len).map_err(|_| Error("a struct has too many fields"))?;
        self.open.push(self.shape.len());
        self.shape.extend_from_slice(&n.to_le_bytes());
        Ok(())
    }

    /// A field the type skipped: named, marked and counted in the shape;
    /// nothing in the values (postcard writes nothing for it either).
    #[inline(never)]
    fn skipped(&mut self, key: &'static str) -> Result<(), Error> {
        if !self.shaped {
            return Ok(());
        }
        let at = *self.open.last().ok_or(Error("no struct is open"))?;
        let n = u16::from_le_bytes([self.shape[at], self.shape[at + 1]]);
        let n = n
            .checked_add(1)
            .ok_or(Error("a struct has too many fields"))?;
        self.shape[at..at + 2].copy_from_slice(&n.to_le_bytes());
        self.name(key);
        self.shape.push(tag::SKIPPED);
        Ok(())
    }

    #[inline(never)]
    fn int(&mut self, v: i64) {
        self.uint(tag::INT, ((v << 1) ^ (v >> 63)) as u64);
    }
}

/// What [`super::Encode`] writes with: the same steps the serde
/// `Serializer` below takes, without a `Result` (nothing here can fail:
/// no struct of ours has 65,535 fields).
impl Writer {
    /// A tag alone in the shape.
    #[inline(never)]
    pub(crate) fn tag(&mut self, t: u8) {
        if self.shaped {
            self.shape.push(t);
        }
    }
    /// An unsigned number.
    pub(crate) fn unsigned(&mut self, x: u64) {
        self.uint(tag::UINT, x);
    }
    /// A signed number.
    pub(crate) fn signed(&mut self, x: i64) {
        self.int(x);
    }
    /// Raw bytes under a tag (bytes, floats, `Option`'s marker).
    pub(crate) fn bytes(&mut self, t: u8, b: &[u8]) {
        self.raw(t, b);
    }
    /// A string or a character.
    pub(crate) fn string(&mut self, t: u8, s: &str) {
        self.text(t, s);
    }
    /// A sequence's or a map's length.
    pub(crate) fn length(&mut self, t: u8, n: usize) {
        self.uint(t, n as u64);
    }
    /// `()` or a unit struct.
    pub(crate) fn unit(&mut self) {
        self.raw(tag::UNIT, &[]);
    }
    /// A tuple of `n` (a tuple struct too).
    #[inline(never)]
    pub(crate) fn tuple(&mut self, n: usize) {
        if self.shaped {
            self.shape.push(tag::TUPLE);
            varint(&mut self.shape, n as u64);
        }
    }
    /// A tuple variant's length, after [`Writer::variant`] (what the derive
    /// writes for one; no outcome has one today).
    #[allow(dead_code)]
    pub(crate) fn tuple_len(&mut self, n: usize) {
        if self.shaped {
            varint(&mut self.shape, n as u64);
        }
    }
    /// Open a struct's fields (`len` of them, as serde counts).
    pub(crate) fn open(&mut self, len: usize) {
        let _ = self.open_struct(len);
    }
    /// Close the innermost open struct.
    pub(crate) fn close(&mut self) {
        if self.shaped {
            self.open.pop();
        }
    }
    /// A field's name.
    pub(crate) fn field(&mut self, key: &'static str) {
        self.name(key);
    }
    /// A field left out (`skip_serializing_if`).
    pub(crate) fn skip(&mut self, key: &'static str) {
        let _ = self.skipped(key);
    }
    /// An enum's variant (its fields follow).
    pub(crate) fn tagged(&mut self, t: u8, index: u32, name: &'static str) {
        self.variant(t, index, name);
    }
}

impl ser::Serializer for &mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    /// Not human-readable (as postcard): a value only the page reads
    /// ([`super::page_only`]) is written.
    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.raw(tag::BOOL, &[u8::from(v)]);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.raw(tag::I8, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.int(v.into());
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.int(v.into());
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.int(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.raw(tag::U8, &[v]);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.uint(tag::UINT, v.into());
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.uint(tag::UINT, v.into());
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.uint(tag::UINT, v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.raw(tag::F32, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.raw(tag::F64, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.text(tag::CHAR, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.text(tag::STR, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.uint(tag::SEQ, v.len() as u64);
        for &b in v {
            self.raw(tag::U8, &[b]);
        }
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.raw(tag::NONE, &[0]);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        self.raw(tag::SOME, &[1]);
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.raw(tag::UNIT, &[]);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, i: u32, v: &'static str) -> Result<(), Error> {
        self.variant(tag::UNIT_VARIANT, i, v);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        if name == super::PAGE_ONLY_NAME {
            // For postcard, an `Option`'s `Some`.
            self.raw(tag::PAGE_ONLY, &[1]);
        }
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        i: u32,
        name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.variant(tag::NEWTYPE_VARIANT, i, name);
        v.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self, Error> {
        let n = len.ok_or(Error("a sequence of unknown length cannot be encoded"))?;
        self.uint(tag::SEQ, n as u64);
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, Error> {
        self.shape.push(tag::TUPLE);
        varint(&mut self.shape, len as u64);
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Self, Error> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        i: u32,
        name: &'static str,
        len: usize,
    ) -> Result<Self, Error> {
        self.variant(tag::TUPLE_VARIANT, i, name);
        varint(&mut self.shape, len as u64);
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self, Error> {
        let n = len.ok_or(Error("a map of unknown length cannot be encoded"))?;
        self.uint(tag::MAP, n as u64);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Self, Error> {
        self.shape.push(tag::STRUCT);
        self.open_struct(len)?;
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        i: u32,
        name: &'static str,
        len: usize,
    ) -> Result<Self, Error> {
        self.variant(tag::STRUCT_VARIANT, i, name);
        self.open_struct(len)?;
        Ok(self)
    }
}

/// The compound writers: elements one after the other (names first for
/// struct fields), nothing at the end but closing an open struct.
macro_rules! compound {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for &mut Writer {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                v.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        }
    };
}

compound!(SerializeSeq, serialize_element);
compound!(SerializeTuple, serialize_element);
compound!(SerializeTupleStruct, serialize_field);
compound!(SerializeTupleVariant, serialize_field);

impl ser::SerializeMap for &mut Writer {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        k.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

macro_rules! fields {
    ($trait:ident) => {
        impl ser::$trait for &mut Writer {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), Error> {
                self.name(key);
                v.serialize(&mut **self)
            }
            fn skip_field(&mut self, key: &'static str) -> Result<(), Error> {
                self.skipped(key)
            }
            fn end(self) -> Result<(), Error> {
                self.open.pop();
                Ok(())
            }
        }
    };
}

fields!(SerializeStruct);
fields!(SerializeStructVariant);
