//! Where an outcome holds a NaN or an infinity.
//!
//! JSON has no NaN or infinity: `serde_json` writes both as `null`, the same
//! text as an absent value, so a broken mean would pass unseen through every
//! export. [`non_finite`] walks a value with its own [`serde::Serializer`] and
//! names the path of each non-finite float instead (`rules[2].p95_ms`). The
//! property tests run it over random configurations of every lab; the CLI's
//! `check` uses it too. It never reaches the web bundle.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use serde::ser::{self, Serialize};

/// The paths of every NaN or infinite float in `value` (empty: all finite).
pub fn non_finite<T: Serialize + ?Sized>(value: &T) -> Vec<String> {
    let mut finder = Finder::default();
    // The finder itself never fails; an error here is the value's own
    // `Serialize` refusing, which is reported like a bad float.
    if let Err(e) = value.serialize(&mut finder) {
        finder.found.push(format!("(cannot walk: {e})"));
    }
    finder.found
}

/// Walks a value, keeping the path to where it is.
#[derive(Default)]
struct Finder {
    path: Vec<String>,
    found: Vec<String>,
}

impl Finder {
    fn float(&mut self, x: f64) {
        if !x.is_finite() {
            let mut at = String::new();
            for p in &self.path {
                if !p.starts_with('[') && !at.is_empty() {
                    at.push('.');
                }
                at.push_str(p);
            }
            if at.is_empty() {
                at.push_str("(top)");
            }
            self.found.push(format!("{at} = {}", x));
        }
    }

    fn within<T: Serialize + ?Sized>(&mut self, step: String, v: &T) -> Result<(), Error> {
        self.path.push(step);
        let r = v.serialize(&mut *self);
        self.path.pop();
        r
    }
}

/// The finder's error type (serde demands one; only `custom` ever makes it).
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl ser::StdError for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// A sequence (or map) in progress: the next element's index.
struct Seq<'a> {
    finder: &'a mut Finder,
    index: usize,
}

impl Seq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let step = format!("[{}]", self.index);
        self.index += 1;
        self.finder.within(step, v)
    }
}

macro_rules! nothing_to_check {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<(), Error> { Ok(()) })*
    };
}

impl<'a> ser::Serializer for &'a mut Finder {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Seq<'a>;
    type SerializeStruct = Seq<'a>;
    type SerializeStructVariant = Seq<'a>;

    nothing_to_check! {
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_char: char, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str,
    }

    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float(f64::from(v));
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.within(variant.to_string(), v)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
    fn serialize_tuple(self, _: usize) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Seq<'a>, Error> {
        Ok(Seq {
            finder: self,
            index: 0,
        })
    }
}

macro_rules! elements {
    ($($trait:ident :: $method:ident),* $(,)?) => {
        $(impl ser::$trait for Seq<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                self.element(v)
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        })*
    };
}

elements! {
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
}

impl ser::SerializeMap for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        // A float key counts as much as a float value.
        k.serialize(&mut *self.finder)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.element(v)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl ser::SerializeStruct for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.finder.within(name.to_string(), v)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.finder.within(name.to_string(), v)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[derive(serde::Serialize)]
    struct Row {
        name: &'static str,
        mean: f64,
        spread: Option<f32>,
    }

    #[derive(serde::Serialize)]
    struct Outcome {
        rows: Vec<Row>,
        total: f64,
    }

    #[test]
    fn names_each_bad_float_by_path() {
        let o = Outcome {
            rows: vec![
                Row {
                    name: "a",
                    mean: 1.0,
                    spread: Some(0.5),
                },
                Row {
                    name: "b",
                    mean: f64::NAN,
                    spread: Some(f32::INFINITY),
                },
            ],
            total: f64::NEG_INFINITY,
        };
        assert_eq!(
            non_finite(&o),
            ["rows[1].mean = NaN", "rows[1].spread = inf", "total = -inf"]
        );
    }

    #[test]
    fn finite_values_pass() {
        let o = Outcome {
            rows: vec![Row {
                name: "a",
                mean: 2.0,
                spread: None,
            }],
            total: 0.0,
        };
        assert!(non_finite(&o).is_empty());
    }
}
