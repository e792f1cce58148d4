//! Writing a typed outcome into the two streams without serde: [`Encode`],
//! derived for sim-core's own types (`wire-derive`) and written here for the
//! standard ones. Each impl takes the steps serde's `Serialize` would hand
//! [`super::ser`]'s serializer, so the bytes are the same (a test compares
//! them for every lab), but with no `Result` per field and no serializer
//! generics: the page's worker carries a call per field.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

pub use wire_derive::Encode;

use super::ser::Writer;
use super::tag;

/// A type written into the values and shape streams.
pub trait Encode {
    /// Write `self`.
    fn encode(&self, w: &mut Writer);
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, w: &mut Writer) {
                w.unsigned(*self as u64);
            }
        }
    )*};
}
unsigned!(u16, u32, u64, usize);

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl Encode for $t {
            fn encode(&self, w: &mut Writer) {
                w.signed(*self as i64);
            }
        }
    )*};
}
signed!(i16, i32, i64, isize);

impl Encode for u8 {
    fn encode(&self, w: &mut Writer) {
        w.bytes(tag::U8, &[*self]);
    }
}

impl Encode for i8 {
    fn encode(&self, w: &mut Writer) {
        w.bytes(tag::I8, &self.to_le_bytes());
    }
}

impl Encode for bool {
    fn encode(&self, w: &mut Writer) {
        w.bytes(tag::BOOL, &[u8::from(*self)]);
    }
}

impl Encode for f64 {
    fn encode(&self, w: &mut Writer) {
        w.bytes(tag::F64, &self.to_le_bytes());
    }
}

impl Encode for f32 {
    fn encode(&self, w: &mut Writer) {
        w.bytes(tag::F32, &self.to_le_bytes());
    }
}

impl Encode for char {
    fn encode(&self, w: &mut Writer) {
        w.string(tag::CHAR, self.encode_utf8(&mut [0; 4]));
    }
}

impl Encode for str {
    fn encode(&self, w: &mut Writer) {
        w.string(tag::STR, self);
    }
}

impl Encode for String {
    fn encode(&self, w: &mut Writer) {
        w.string(tag::STR, self);
    }
}

impl Encode for () {
    fn encode(&self, w: &mut Writer) {
        w.unit();
    }
}

impl<T: Encode + ?Sized> Encode for &T {
    fn encode(&self, w: &mut Writer) {
        (**self).encode(w);
    }
}

impl<T: Encode + ?Sized> Encode for Box<T> {
    fn encode(&self, w: &mut Writer) {
        (**self).encode(w);
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, w: &mut Writer) {
        match self {
            None => w.bytes(tag::NONE, &[0]),
            Some(v) => {
                w.bytes(tag::SOME, &[1]);
                v.encode(w);
            }
        }
    }
}

impl<T: Encode> Encode for [T] {
    fn encode(&self, w: &mut Writer) {
        w.length(tag::SEQ, self.len());
        for v in self {
            v.encode(w);
        }
    }
}

impl<T: Encode> Encode for Vec<T> {
    fn encode(&self, w: &mut Writer) {
        self.as_slice().encode(w);
    }
}

impl<T: Encode> Encode for VecDeque<T> {
    fn encode(&self, w: &mut Writer) {
        w.length(tag::SEQ, self.len());
        for v in self {
            v.encode(w);
        }
    }
}

impl<K: Encode, V: Encode> Encode for BTreeMap<K, V> {
    fn encode(&self, w: &mut Writer) {
        w.length(tag::MAP, self.len());
        for (k, v) in self {
            k.encode(w);
            v.encode(w);
        }
    }
}

impl<T: Encode, const N: usize> Encode for [T; N] {
    fn encode(&self, w: &mut Writer) {
        // serde writes an array as a tuple: no length in the values.
        w.tuple(N);
        for v in self {
            v.encode(w);
        }
    }
}

macro_rules! tuple {
    ($n:literal; $($t:ident $i:tt),+) => {
        impl<$($t: Encode),+> Encode for ($($t,)+) {
            fn encode(&self, w: &mut Writer) {
                w.tuple($n);
                $(self.$i.encode(w);)+
            }
        }
    };
}
tuple!(2; A 0, B 1);
tuple!(3; A 0, B 1, C 2);
tuple!(4; A 0, B 1, C 2, D 3);

/// A value only the page reads ([`super::page_only`]): marked in the shape
/// (JSON writes `null`), an `Option`'s marker in the values.
pub fn page_only_encode<T: Encode>(value: &Option<T>, w: &mut Writer) {
    match value {
        Some(v) => {
            w.bytes(tag::PAGE_ONLY, &[1]);
            v.encode(w);
        }
        None => w.bytes(tag::NONE, &[0]),
    }
}

/// A named choice ([`crate::choice`]), written as its name.
pub fn choice<C: crate::choice::Choice>(c: &C, w: &mut Writer) {
    w.string(tag::STR, c.name());
}
