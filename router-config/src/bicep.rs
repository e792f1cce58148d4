//! The part of Bicep an API Management pool is written in: `resource`
//! declarations whose bodies are object literals, read into the JSON an
//! ARM template would hold for them.
//!
//! Written here because no crate reads Bicep (its own compiler is .NET).
//! It reads only what the pool's import needs: `resource sym 'type@version'
//! = { … }` (other statements are skipped), objects (properties one per
//! line or comma-separated), arrays, `'strings'`, numbers, `true`, `false`,
//! `null`; any other value (a symbol, `ptu.id`, a function call, an
//! interpolated string) is kept as its source text. Comments (`//`, `/* */`)
//! are skipped. Nesting is capped at [`MAX_DEPTH`] and every error names
//! its line.

use serde_json::{Map, Value};

use crate::{ConfigError, MAX_DEPTH, MAX_ITEMS};

/// Every `resource` declaration of `text`, as `{ type, apiVersion, symbol,
/// …its body's keys }`.
pub fn resources(text: &str) -> Result<Vec<Value>, ConfigError> {
    let mut r = Reader {
        s: text.as_bytes(),
        i: 0,
        line: 1,
    };
    let mut out = Vec::new();
    loop {
        r.skip_space(true)?;
        if r.i >= r.s.len() {
            return Ok(out);
        }
        let word = r.word();
        if word != "resource" {
            r.skip_statement()?;
            continue;
        }
        if out.len() >= MAX_ITEMS {
            return Err(r.error(format!("more than {MAX_ITEMS} resources")));
        }
        r.skip_space(false)?;
        let symbol = r.word();
        r.skip_space(false)?;
        let Value::String(kind) = r.string()? else {
            return Err(r.error("a resource's type is a quoted string".into()));
        };
        r.skip_space(false)?;
        if r.word() == "existing" {
            r.skip_statement()?;
            continue;
        }
        r.expect(b'=')?;
        r.skip_space(true)?;
        let body = r.value(0)?;
        let Value::Object(mut map) = body else {
            return Err(r.error("a resource's body is an object".into()));
        };
        let (ty, version) = kind.split_once('@').unwrap_or((&kind, ""));
        map.insert("type".into(), ty.into());
        map.insert("apiVersion".into(), version.into());
        map.insert("symbol".into(), symbol.into());
        out.push(Value::Object(map));
    }
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
}

impl Reader<'_> {
    fn error(&self, why: String) -> ConfigError {
        ConfigError::at(self.line, why)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Skip blanks and comments (newlines too when `lines`).
    fn skip_space(&mut self, lines: bool) -> Result<(), ConfigError> {
        while let Some(c) = self.peek() {
            if c == b' ' || c == b'\t' || c == b'\r' || (lines && c == b'\n') {
                self.bump();
            } else if self.s[self.i..].starts_with(b"//") {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.bump();
                }
            } else if self.s[self.i..].starts_with(b"/*") {
                let start = self.line;
                self.i += 2;
                while !self.s[self.i..].starts_with(b"*/") {
                    if self.bump().is_none() {
                        return Err(ConfigError::at(start, "a /* comment is not closed"));
                    }
                }
                self.i += 2;
            } else {
                break;
            }
        }
        Ok(())
    }

    fn word(&mut self) -> String {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    fn expect(&mut self, c: u8) -> Result<(), ConfigError> {
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.error(format!("expected '{}'", c as char)))
        }
    }

    /// Skip to the end of a statement that is not a resource: its line,
    /// and any brackets it opens.
    fn skip_statement(&mut self) -> Result<(), ConfigError> {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'\'' => {
                    self.string()?;
                    continue;
                }
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' => depth = depth.saturating_sub(1),
                b'\n' if depth == 0 => return Ok(()),
                _ => {}
            }
            self.bump();
        }
        Ok(())
    }

    /// A `'string'` (Bicep's escapes: `\'`, `\\`, `\n`, `\t`).
    fn string(&mut self) -> Result<Value, ConfigError> {
        let start = self.line;
        self.expect(b'\'')?;
        let mut out = Vec::new();
        loop {
            match self.bump() {
                None | Some(b'\n') => {
                    return Err(ConfigError::at(start, "a string is not closed on its line"))
                }
                Some(b'\'') => break,
                Some(b'\\') => match self.bump() {
                    Some(b'n') => out.push(b'\n'),
                    Some(b't') => out.push(b'\t'),
                    Some(c) => out.push(c),
                    None => return Err(ConfigError::at(start, "a string is not closed")),
                },
                Some(c) => out.push(c),
            }
        }
        Ok(Value::String(String::from_utf8_lossy(&out).into_owned()))
    }

    /// One value at nesting `depth`.
    fn value(&mut self, depth: usize) -> Result<Value, ConfigError> {
        if depth > MAX_DEPTH {
            return Err(self.error(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'\'') => self.string(),
            Some(_) => Ok(self.bare()),
            None => Err(self.error("the file ends where a value should be".into())),
        }
    }

    /// A number, `true`, `false`, `null`, or an expression kept as text.
    fn bare(&mut self) -> Value {
        let start = self.i;
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'(' | b'[' => depth += 1,
                b')' | b']' if depth > 0 => depth -= 1,
                b'\n' | b',' | b'}' | b']' if depth == 0 => break,
                b'\n' => break,
                _ => {}
            }
            self.i += 1;
        }
        let raw = String::from_utf8_lossy(&self.s[start..self.i])
            .trim()
            .to_string();
        match raw.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" => Value::Null,
            _ => raw
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::String(raw)),
        }
    }

    /// Items end at a newline or a comma.
    fn separator(&mut self) -> Result<(), ConfigError> {
        self.skip_space(false)?;
        if self.peek() == Some(b',') {
            self.bump();
        }
        self.skip_space(true)
    }

    fn object(&mut self, depth: usize) -> Result<Value, ConfigError> {
        self.expect(b'{')?;
        self.skip_space(true)?;
        let mut map = Map::new();
        while self.peek() != Some(b'}') {
            if map.len() >= MAX_ITEMS {
                return Err(self.error(format!("an object of more than {MAX_ITEMS} properties")));
            }
            let key = match self.peek() {
                Some(b'\'') => self.string()?.as_str().unwrap_or_default().to_string(),
                _ => self.word(),
            };
            if key.is_empty() {
                return Err(self.error("expected a property name".into()));
            }
            self.skip_space(false)?;
            self.expect(b':')?;
            self.skip_space(false)?;
            let value = self.value(depth + 1)?;
            map.insert(key, value);
            self.separator()?;
            if self.peek().is_none() {
                return Err(self.error("an object is not closed with '}'".into()));
            }
        }
        self.bump();
        Ok(Value::Object(map))
    }

    fn array(&mut self, depth: usize) -> Result<Value, ConfigError> {
        self.expect(b'[')?;
        self.skip_space(true)?;
        let mut items = Vec::new();
        while self.peek() != Some(b']') {
            if items.len() >= MAX_ITEMS {
                return Err(self.error(format!("a list of more than {MAX_ITEMS} entries")));
            }
            let before = self.i;
            items.push(self.value(depth + 1)?);
            self.separator()?;
            if self.i == before {
                let c = self.peek().map_or(' ', char::from);
                return Err(self.error(format!("unexpected '{c}' in a list")));
            }
            if self.peek().is_none() {
                return Err(self.error("a list is not closed with ']'".into()));
            }
        }
        self.bump();
        Ok(Value::Array(items))
    }
}
