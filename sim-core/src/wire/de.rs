//! Reading the values stream back into a typed outcome: [`Decode`], one
//! impl per type, derived for sim-core's own types (`wire-derive`) and
//! written here for the standard ones, in postcard's format (the format
//! [`super::ser`] writes the values in): integers above a byte as LEB128
//! varints (signed ones zigzagged), floats as little-endian bytes, a
//! string or a sequence as its length then its items, an `Option` as a
//! `0`/`1` byte, an enum as its variant's number then its fields, a
//! struct or a tuple as its fields in order.
//!
//! A read that finds the bytes wrong does not return an error: it marks
//! the [`Reader`] failed and gives a zero, an empty string or the first
//! variant, and [`super::decode`] discards the value. Why: with a `Result`
//! per read, every field of every outcome type carried its own branch and
//! copy, and that code was the larger part of the decoder in the page's
//! bundle.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

pub use wire_derive::Decode;

/// A type read back from the values stream.
pub trait Decode: Sized {
    /// Read one value; on wrong bytes, mark `r` failed and return anything.
    fn decode(r: &mut Reader<'_>) -> Self;
}

/// The values stream being read, and whether a read has failed.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader {
            bytes,
            pos: 0,
            failed: false,
        }
    }

    /// Whether every read succeeded and every byte was read.
    pub(crate) fn ok(&self) -> bool {
        !self.failed && self.pos == self.bytes.len()
    }

    /// Mark the reading failed.
    #[inline(never)]
    pub fn fail(&mut self) {
        self.failed = true;
    }

    /// The next `n` bytes (none, and failed, if fewer are left).
    #[inline(never)]
    fn take(&mut self, n: usize) -> &'a [u8] {
        match self.bytes.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(out) => {
                self.pos += n;
                out
            }
            None => {
                self.fail();
                &[]
            }
        }
    }

    /// One byte (0 past the end).
    #[inline(never)]
    fn byte(&mut self) -> u8 {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => {
                self.fail();
                0
            }
        }
    }

    /// An LEB128 varint (ten bytes at most). Reads the slice directly: a
    /// recorded run is mostly varints, and at the bundle's `opt-level = "z"`
    /// a `step_by` loop over [`Reader::byte`] calls were half its decoding.
    #[inline(never)]
    fn varint(&mut self) -> u64 {
        let mut out = 0u64;
        let mut shift = 0;
        while let Some(&b) = self.bytes.get(self.pos) {
            self.pos += 1;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return out;
            }
            shift += 7;
            if shift > 63 {
                break;
            }
        }
        self.fail();
        0
    }

    /// A varint that must fit in `max`.
    #[inline(never)]
    fn bounded(&mut self, max: u64) -> u64 {
        let x = self.varint();
        if x > max {
            self.fail();
            return 0;
        }
        x
    }

    /// A zigzag varint that must lie in `min..=max`.
    #[inline(never)]
    fn signed(&mut self, min: i64, max: i64) -> i64 {
        let z = self.varint();
        let x = (z >> 1) as i64 ^ -((z & 1) as i64);
        if x < min || x > max {
            self.fail();
            return 0;
        }
        x
    }

    /// A length: a sequence's items take a byte each at least, so a
    /// length beyond the bytes left is wrong (and never sizes an
    /// allocation).
    #[inline(never)]
    fn count(&mut self) -> usize {
        let left = self.bytes.len() - self.pos;
        self.bounded(left as u64) as usize
    }

    /// A variant's number among `n` variants (0 and failed if out of range).
    #[inline(never)]
    pub fn variant(&mut self, n: u64) -> u64 {
        self.bounded(n - 1)
    }

    /// A string (empty, and failed, if not UTF-8).
    #[inline(never)]
    fn str(&mut self) -> &'a str {
        let n = self.count();
        match core::str::from_utf8(self.take(n)) {
            Ok(s) => s,
            Err(_) => {
                self.fail();
                ""
            }
        }
    }
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Decode for $t {
            fn decode(r: &mut Reader<'_>) -> Self {
                r.bounded(<$t>::MAX as u64) as $t
            }
        }
    )*};
}
unsigned!(u16, u32, u64, usize);

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl Decode for $t {
            fn decode(r: &mut Reader<'_>) -> Self {
                r.signed(<$t>::MIN as i64, <$t>::MAX as i64) as $t
            }
        }
    )*};
}
signed!(i16, i32, i64);

impl Decode for u8 {
    fn decode(r: &mut Reader<'_>) -> Self {
        r.byte()
    }
}

impl Decode for i8 {
    fn decode(r: &mut Reader<'_>) -> Self {
        r.byte() as i8
    }
}

impl Decode for bool {
    fn decode(r: &mut Reader<'_>) -> Self {
        r.bounded(1) == 1
    }
}

impl Decode for f64 {
    fn decode(r: &mut Reader<'_>) -> Self {
        let mut a = [0u8; 8];
        if let Ok(b) = <[u8; 8]>::try_from(r.take(8)) {
            a = b;
        }
        f64::from_le_bytes(a)
    }
}

impl Decode for f32 {
    fn decode(r: &mut Reader<'_>) -> Self {
        let mut a = [0u8; 4];
        if let Ok(b) = <[u8; 4]>::try_from(r.take(4)) {
            a = b;
        }
        f32::from_le_bytes(a)
    }
}

impl Decode for char {
    fn decode(r: &mut Reader<'_>) -> Self {
        // Written as a string of one character.
        let mut chars = r.str().chars();
        match (chars.next(), chars.next()) {
            (Some(ch), None) => ch,
            _ => {
                r.fail();
                ' '
            }
        }
    }
}

impl Decode for String {
    fn decode(r: &mut Reader<'_>) -> Self {
        String::from(r.str())
    }
}

impl Decode for () {
    fn decode(_: &mut Reader<'_>) -> Self {}
}

impl<T: Decode> Decode for Option<T> {
    fn decode(r: &mut Reader<'_>) -> Self {
        (r.bounded(1) == 1).then(|| T::decode(r))
    }
}

impl<T: Decode> Decode for Box<T> {
    fn decode(r: &mut Reader<'_>) -> Self {
        Box::new(T::decode(r))
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(r: &mut Reader<'_>) -> Self {
        (0..r.count()).map(|_| T::decode(r)).collect()
    }
}

impl<T: Decode> Decode for VecDeque<T> {
    fn decode(r: &mut Reader<'_>) -> Self {
        VecDeque::from(Vec::decode(r))
    }
}

impl<K: Decode + Ord, V: Decode> Decode for BTreeMap<K, V> {
    fn decode(r: &mut Reader<'_>) -> Self {
        (0..r.count())
            .map(|_| (K::decode(r), V::decode(r)))
            .collect()
    }
}

impl<T: Decode, const N: usize> Decode for [T; N] {
    fn decode(r: &mut Reader<'_>) -> Self {
        // A tuple of N: no length in the stream.
        core::array::from_fn(|_| T::decode(r))
    }
}

macro_rules! tuple {
    ($($t:ident),+) => {
        impl<$($t: Decode),+> Decode for ($($t,)+) {
            fn decode(r: &mut Reader<'_>) -> Self {
                ($($t::decode(r),)+)
            }
        }
    };
}
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);

/// A named choice ([`crate::choice`]), written as its name (`fallback`,
/// and failed, for a name it does not have).
pub fn choice<C: crate::choice::Choice>(r: &mut Reader<'_>, fallback: C) -> C {
    C::from_name(r.str()).unwrap_or_else(|| {
        r.fail();
        fallback
    })
}
