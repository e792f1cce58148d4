//! Just enough JSON to read a trace line: one object whose fields are
//! numbers, arrays of numbers, or anything else (skipped). Written out rather
//! than asked of a general deserializer so the reader is small in the page's
//! bundle and strict where a trace must be: a line is one object, numbers
//! are numbers, nesting is shallow.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// A field's value, as far as trace rows care.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number.
    Number(f64),
    /// An array whose items are all numbers.
    Numbers(Vec<f64>),
    /// Anything else (a string, `true`, `null`, an object, a mixed array),
    /// named for error messages.
    Other(&'static str),
}

/// Nesting past this depth is refused (no trace row needs it).
const MAX_DEPTH: usize = 16;

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at column {}", c as char, self.i + 1))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Err(String::from("a string is not closed"));
            };
            self.i += 1;
            match c {
                b'"' => return Ok(out),
                b'\\' => {
                    let e = self.s.get(self.i).copied().unwrap_or(b'"');
                    self.i += 1;
                    match e {
                        b'u' => {
                            // Keys are plain ASCII; an escaped code unit is
                            // kept as a placeholder rather than decoded.
                            self.i += 4;
                            out.push('\u{fffd}');
                        }
                        b'n' => out.push('\n'),
                        b't' => out.push('\t'),
                        other => out.push(other as char),
                    }
                }
                _ => {
                    // Raw UTF-8 bytes of a multi-byte character pass through.
                    let start = self.i - 1;
                    let len = match c {
                        0xf0..=0xff => 4,
                        0xe0..=0xef => 3,
                        0xc0..=0xdf => 2,
                        _ => 1,
                    };
                    self.i = (start + len).min(self.s.len());
                    out.push_str(
                        core::str::from_utf8(&self.s[start..self.i]).unwrap_or("\u{fffd}"),
                    );
                }
            }
        }
    }

    fn number(&mut self) -> Result<f64, String> {
        self.ws();
        let start = self.i;
        while matches!(
            self.s.get(self.i),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.i += 1;
        }
        core::str::from_utf8(&self.s[start..self.i])
            .ok()
            .and_then(crate::decimal::parse_f64)
            .filter(|x| x.is_finite())
            .ok_or_else(|| format!("not a number at column {}", start + 1))
    }

    /// Skip one value of any kind; what it was, for messages.
    fn skip(&mut self, depth: usize) -> Result<&'static str, String> {
        if depth > MAX_DEPTH {
            return Err(String::from("nested too deep"));
        }
        match self.peek() {
            Some(b'"') => self.string().map(|_| "a string"),
            Some(b'{') => {
                self.i += 1;
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok("an object");
                }
                loop {
                    self.string()?;
                    self.expect(b':')?;
                    self.skip(depth + 1)?;
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        _ => break,
                    }
                }
                self.expect(b'}')?;
                Ok("an object")
            }
            Some(b'[') => {
                self.i += 1;
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok("an array");
                }
                loop {
                    self.skip(depth + 1)?;
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        _ => break,
                    }
                }
                self.expect(b']')?;
                Ok("an array")
            }
            Some(b't') => self.word("true").map(|_| "a boolean"),
            Some(b'f') => self.word("false").map(|_| "a boolean"),
            Some(b'n') => self.word("null").map(|_| "null"),
            _ => self.number().map(|_| "a number"),
        }
    }

    fn word(&mut self, w: &str) -> Result<(), String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(())
        } else {
            Err(format!("unexpected text at column {}", self.i + 1))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(b'[') => {
                let start = self.i;
                self.i += 1;
                let mut items = Vec::new();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(Value::Numbers(items));
                }
                loop {
                    match self.peek() {
                        Some(b'-' | b'0'..=b'9') => items.push(self.number()?),
                        _ => {
                            self.i = start;
                            self.skip(0)?;
                            return Ok(Value::Other("an array of things other than numbers"));
                        }
                    }
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        _ => break,
                    }
                }
                self.expect(b']')?;
                Ok(Value::Numbers(items))
            }
            _ => self.skip(0).map(Value::Other),
        }
    }
}

/// The fields of the one JSON object on `line`, in order.
pub fn object(line: &str) -> Result<Vec<(String, Value)>, String> {
    let mut p = Scanner {
        s: line.as_bytes(),
        i: 0,
    };
    p.expect(b'{')
        .map_err(|_| String::from("not a JSON object"))?;
    let mut fields = Vec::new();
    if p.peek() == Some(b'}') {
        p.i += 1;
    } else {
        loop {
            let key = p.string()?;
            p.expect(b':')?;
            fields.push((key, p.value()?));
            match p.peek() {
                Some(b',') => p.i += 1,
                _ => break,
            }
        }
        p.expect(b'}')?;
    }
    if p.peek().is_some() {
        return Err(format!("text after the object at column {}", p.i + 1));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers_arrays_and_skips_the_rest() {
        let f =
            object(r#"{"a": 1.5, "b": [1, 2, 3], "c": "x\"y", "d": {"e": [true, null]}, "g": []}"#)
                .expect("valid");
        assert_eq!(f[0], ("a".into(), Value::Number(1.5)));
        assert_eq!(
            f[1],
            ("b".into(), Value::Numbers(alloc::vec![1.0, 2.0, 3.0]))
        );
        assert_eq!(f[2], ("c".into(), Value::Other("a string")));
        assert_eq!(f[3], ("d".into(), Value::Other("an object")));
        assert_eq!(f[4], ("g".into(), Value::Numbers(Vec::new())));
    }

    #[test]
    fn refuses_what_is_not_one_object() {
        for bad in [
            "",
            "{",
            "[1]",
            "{\"a\": }",
            "{\"a\": 1} x",
            "{\"a\": 1e999}",
            "{a: 1}",
        ] {
            assert!(object(bad).is_err(), "{bad}");
        }
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(40), "]".repeat(40));
        assert!(object(&deep).is_err());
    }
}
