//! YAML and JSON documents as `serde_json` values, capped in depth and list
//! length, with line-numbered errors; and the lookups the importers share.

use serde::Deserialize;
use serde_json::Value;

use crate::{ConfigError, MAX_DEPTH, MAX_ITEMS};

/// Every document of a YAML stream (`---` separates them), empty ones left out.
pub fn yaml_documents(text: &str) -> Result<Vec<Value>, ConfigError> {
    let mut docs = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        if docs.len() >= MAX_ITEMS {
            return Err(ConfigError::new(format!(
                "more than {MAX_ITEMS} YAML documents"
            )));
        }
        let value = Value::deserialize(doc).map_err(yaml_error)?;
        if !value.is_null() {
            checked(&value)?;
            docs.push(value);
        }
    }
    Ok(docs)
}

/// A JSON document.
pub fn json_document(text: &str) -> Result<Value, ConfigError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        ConfigError::at(
            e.line(),
            format!("JSON: {}", strip_position(&e.to_string())),
        )
    })?;
    checked(&value)?;
    Ok(value)
}

/// A YAML error with its line, without the position repeated in the words.
fn yaml_error(e: serde_yaml_ng::Error) -> ConfigError {
    let why = format!("YAML: {}", strip_position(&e.to_string()));
    match e.location() {
        Some(at) => ConfigError::at(at.line(), why),
        None => ConfigError::new(why),
    }
}

/// `message at line 3 column 4` without the position.
fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// `value` is within [`MAX_DEPTH`] and [`MAX_ITEMS`].
pub fn checked(value: &Value) -> Result<(), ConfigError> {
    fn walk(v: &Value, depth: usize) -> Result<(), ConfigError> {
        if depth > MAX_DEPTH {
            return Err(ConfigError::new(format!(
                "nested deeper than {MAX_DEPTH} levels"
            )));
        }
        match v {
            Value::Array(items) if items.len() > MAX_ITEMS => Err(ConfigError::new(format!(
                "a list of {} entries; the lab reads at most {MAX_ITEMS}",
                items.len()
            ))),
            Value::Object(map) if map.len() > MAX_ITEMS => Err(ConfigError::new(format!(
                "a map of {} keys; the lab reads at most {MAX_ITEMS}",
                map.len()
            ))),
            Value::Array(items) => items.iter().try_for_each(|i| walk(i, depth + 1)),
            Value::Object(map) => map.values().try_for_each(|i| walk(i, depth + 1)),
            _ => Ok(()),
        }
    }
    walk(value, 0)
}

/// The value at a path of keys.
pub fn at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, k| v.get(*k))
}

/// A scalar's text (strings unquoted, numbers and booleans as written).
pub fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A scalar as a number (numbers, or strings that hold one).
pub fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A scalar as a boolean (`true`, `false`, and strings of them).
pub fn boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) => s.trim().to_ascii_lowercase().parse().ok(),
        _ => None,
    }
}

/// The keys of `map` (at `path`, for the report) that are not in `known`,
/// as `path.key` paths.
pub fn unknown_keys(map: &Value, path: &str, known: &[&str]) -> Vec<String> {
    let Some(map) = map.as_object() else {
        return Vec::new();
    };
    map.keys()
        .filter(|k| !known.contains(&k.as_str()))
        .map(|k| join(path, k))
        .collect()
}

/// `path.key`, or `key` at the top.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Whether a value looks like a secret: a key named like one, or a value
/// read from the environment.
pub fn is_secret(key: &str, value: &Value) -> bool {
    let key = key.to_ascii_lowercase();
    let named = ["api_key", "apikey", "secret", "token", "password", "key"]
        .iter()
        .any(|s| key == *s || key.ends_with(&format!("_{s}")));
    let from_env = value
        .as_str()
        .is_some_and(|s| s.starts_with("os.environ/") || s.starts_with("env/"));
    named || from_env
}
