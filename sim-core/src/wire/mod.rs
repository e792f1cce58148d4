//! One encoding of lab outcomes with two readers: the web page reads it back
//! into the typed outcome ([`decode`]), and an export turns it into the very
//! JSON `serde_json` would write for the typed outcome ([`to_json`]).
//!
//! Why: serde generates a `Serialize` body per type *per serializer*, so
//! writing every outcome type twice, once for the page (postcard) and once
//! as JSON (`serde_json`), put that code in the browser bundle twice (the
//! JSON half alone was about 17 KB gzipped), and the worker wrote JSON on
//! every run whether anyone exported or not. Here an outcome is written
//! once ([`encode_typed`], through [`Encode`], derived per type by
//! `wire-derive`: the steps serde's `Serialize` would take, without a
//! `Result` per field; [`encode`] takes them through serde and is what the
//! derived writer is tested against, byte for byte), into two streams:
//! - **values**, byte for byte what postcard writes (a positional format:
//!   no names), which the page reads back into the typed outcome with
//!   [`Decode`], derived per type (`wire-derive`; serde's `Deserialize`
//!   through postcard's reader compiled to about twice the code);
//! - **shape**, what postcard leaves out and JSON needs: a tag per value
//!   ([`tag`]), struct field names and counts, variant names. Each name is
//!   written once per message and then referred to by number: a varint `k`,
//!   0 for a new name (length and bytes follow), else the name numbered
//!   `k - 1`.
//!
//! The JSON writer walks both streams in step with no types at all, and
//! runs only when someone asks for JSON. An encoded outcome is the values'
//! length (a varint), the values, then the shape. The worker sends the page
//! the values alone ([`encode_values`]: an empty shape), since the page
//! reads nothing else; an export writes the outcome the page decoded again,
//! shape and all, and walks that ([`json_of`]). [`Decode`] reads fields
//! by position, so an outcome never skips a field when it serializes, except
//! an empty one (a rule's `()` settings), which is nothing in the values, and
//! a `#[serde(skip)]` field, which the derive reads as its default.

mod de;
mod enc;
mod json;
mod ser;

pub use de::{choice, Decode, Reader};
pub use enc::{choice as encode_choice, page_only_encode, Encode};
pub use json::to_json;
pub use ser::{encode, encode_typed, encode_values, Writer};

use core::fmt;

/// The shape stream's tag for each value.
pub(crate) mod tag {
    pub const NONE: u8 = 0;
    pub const SOME: u8 = 1;
    pub const BOOL: u8 = 2;
    /// u16, u32, u64: a varint in the values.
    pub const UINT: u8 = 3;
    /// i16, i32, i64: a zigzag varint in the values.
    pub const INT: u8 = 4;
    /// A raw byte in the values.
    pub const U8: u8 = 5;
    /// A raw byte in the values, two's complement.
    pub const I8: u8 = 6;
    pub const F64: u8 = 7;
    pub const F32: u8 = 8;
    /// A string (or a char): varint length and UTF-8 in the values.
    pub const STR: u8 = 9;
    pub const CHAR: u8 = 10;
    pub const UNIT: u8 = 11;
    /// A sequence or bytes: its length is in the values.
    pub const SEQ: u8 = 12;
    /// A tuple: its length is in the shape (postcard writes none).
    pub const TUPLE: u8 = 13;
    /// A map: its length is in the values.
    pub const MAP: u8 = 14;
    /// A struct: a two-byte field count and named fields in the shape.
    pub const STRUCT: u8 = 15;
    /// Variants: a name in the shape, the variant's number in the values.
    pub const UNIT_VARIANT: u8 = 16;
    pub const NEWTYPE_VARIANT: u8 = 17;
    pub const TUPLE_VARIANT: u8 = 18;
    pub const STRUCT_VARIANT: u8 = 19;
    /// An option's value only the page reads: JSON writes `null`.
    pub const PAGE_ONLY: u8 = 20;
    /// A field its type skipped (an empty one): JSON leaves it out.
    pub const SKIPPED: u8 = 21;
}

/// Read back what [`encode`] wrote (the values stream, with [`Decode`]).
pub fn decode<T: Decode>(bytes: &[u8]) -> Result<T, Error> {
    let (values, _) = split(bytes)?;
    let mut r = Reader::new(values);
    let out = T::decode(&mut r);
    if r.ok() {
        Ok(out)
    } else {
        Err(Error("the encoded outcome does not match its type"))
    }
}

/// `value` as the JSON `serde_json` writes for it, through this encoding
/// (an export of the outcome the page decoded: the worker sends values
/// only, see [`encode_values`]).
pub fn json_of(value: &dyn Encode) -> Result<alloc::string::String, Error> {
    to_json(&ser::write_typed(value, true))
}

/// The values and the shape of an encoded outcome.
fn split(bytes: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let mut c = Cursor::new(bytes);
    let n = c.count()?;
    let values = c.take(n)?;
    Ok((values, &bytes[c.pos..]))
}

/// The newtype name that marks a value for the page only (see
/// [`page_only`]).
pub(crate) const PAGE_ONLY_NAME: &str = "lblab-wire-page-only";

/// Serialize an `Option` field that only the page needs (a player's
/// recording): this encoding carries it, and JSON, whether `serde_json`'s or
/// [`to_json`]'s, gets `null`, so an export equals the CLI's output.
pub fn page_only<T: serde::Serialize, S: serde::Serializer>(
    value: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) if !s.is_human_readable() => s.serialize_newtype_struct(PAGE_ONLY_NAME, v),
        _ => s.serialize_none(),
    }
}

/// Why a value could not be written or read: a fixed sentence. Not a
/// formatted `String`: every `?` in the code serde generates per field
/// moves this value, and a one-word error keeps that code small (it is only
/// ever seen if the page and the worker disagree, which a test rules out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error(pub &'static str);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Error("a value could not be encoded")
    }
}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Error("the encoded outcome does not match its type")
    }
}

// serde's error traits need `StdError`: std's `Error` with std, serde's
// own stand-in without.
impl serde::ser::StdError for Error {}

/// Reads the encoding: bytes and a position (the JSON writer's reader).
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    #[inline(never)]
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, pos: 0 }
    }

    #[inline(never)]
    pub(crate) fn done(&self) -> bool {
        self.pos == self.bytes.len()
    }

    #[inline(never)]
    fn eof() -> Error {
        Error("the encoded outcome ends early")
    }

    #[inline(never)]
    pub(crate) fn byte(&mut self) -> Result<u8, Error> {
        let b = *self.bytes.get(self.pos).ok_or_else(Self::eof)?;
        self.pos += 1;
        Ok(b)
    }

    #[inline(never)]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).ok_or_else(Self::eof)?;
        let out = self.bytes.get(self.pos..end).ok_or_else(Self::eof)?;
        self.pos = end;
        Ok(out)
    }

    #[inline(never)]
    pub(crate) fn varint(&mut self) -> Result<u64, Error> {
        let mut out = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(Error("a number in the encoded outcome is too long"))
    }

    #[inline(never)]
    pub(crate) fn count(&mut self) -> Result<usize, Error> {
        usize::try_from(self.varint()?).map_err(|_| Error("a count is too large"))
    }

    /// A struct's field count (two bytes, little-endian).
    #[inline(never)]
    pub(crate) fn fields(&mut self) -> Result<usize, Error> {
        let b = self.take(2)?;
        Ok(usize::from(u16::from_le_bytes([b[0], b[1]])))
    }

    #[inline(never)]
    pub(crate) fn signed(&mut self) -> Result<i64, Error> {
        let z = self.varint()?;
        Ok((z >> 1) as i64 ^ -((z & 1) as i64))
    }

    #[inline(never)]
    pub(crate) fn f64(&mut self) -> Result<f64, Error> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    #[inline(never)]
    pub(crate) fn str(&mut self) -> Result<&'a str, Error> {
        let n = self.count()?;
        core::str::from_utf8(self.take(n)?)
            .map_err(|_| Error("a string in the encoded outcome is not UTF-8"))
    }

    /// A name: its text when it is new (`Some`), or its number among the
    /// names seen so far.
    #[inline(never)]
    pub(crate) fn name(&mut self) -> Result<Result<&'a str, usize>, Error> {
        match self.count()? {
            0 => Ok(Ok(self.str()?)),
            k => Ok(Err(k - 1)),
        }
    }

    /// The next tag, not consumed.
    #[inline(never)]
    pub(crate) fn peek(&self) -> Result<u8, Error> {
        self.bytes.get(self.pos).copied().ok_or_else(Self::eof)
    }
}

#[cfg(test)]
mod tests;
