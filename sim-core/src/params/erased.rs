//! The parameter code every lab shares, with the config's type erased.
//!
//! Why: a function generic over the config type is compiled once per lab,
//! and with a dozen labs the page's bundle carried a dozen copies of the
//! URL reader, the canonical writer, the range checks and the work bound's
//! search. Here the only generic code is [`AnyConfig`]'s few accessors
//! (one small impl per config, read from its [`Param`](super::Param) table); everything
//! built on them takes `&dyn AnyConfig` and is compiled once.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::any::Any;

use super::{to_reset, Configurable, ParamError, Problem, Shape, Spec, Value};

/// A config seen only through its parameter table.
pub trait AnyConfig: Any + Send + Sync {
    /// How many parameters the table has.
    fn count(&self) -> usize;
    /// Parameter `i`'s key.
    fn key(&self, i: usize) -> &'static str;
    /// Parameter `i`'s type and range.
    fn shape(&self, i: usize) -> Shape;
    /// Parameter `i`'s value.
    fn value(&self, i: usize) -> Value<'static>;
    /// Parameter `i`'s value in the default config.
    fn default_value(&self, i: usize) -> Value<'static>;
    /// Write parameter `i` (the value is already parsed and in range).
    fn put(&mut self, i: usize, value: Value<'_>) -> Result<(), String>;
    /// Parameter `i`'s whole description, default included.
    fn spec(&self, i: usize) -> Spec;
    /// The constraints between parameters ([`Configurable::cross_check`]).
    fn cross_check(&self) -> Result<(), ParamError>;
    /// Back to the defaults.
    fn reset(&mut self);
    /// A copy to try values on.
    fn boxed(&self) -> Box<dyn AnyConfig>;
    /// The config itself, for a caller that knows its type.
    fn as_any(&self) -> &dyn Any;
    /// The config itself, owned, for a caller that stores it by type.
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send + Sync>;
}

impl<C: Configurable> AnyConfig for C {
    fn count(&self) -> usize {
        C::PARAMS.len()
    }
    fn key(&self, i: usize) -> &'static str {
        C::PARAMS[i].key
    }
    fn shape(&self, i: usize) -> Shape {
        C::PARAMS[i].shape()
    }
    fn value(&self, i: usize) -> Value<'static> {
        C::PARAMS[i].value(self)
    }
    fn default_value(&self, i: usize) -> Value<'static> {
        C::PARAMS[i].value(&C::default())
    }
    fn put(&mut self, i: usize, value: Value<'_>) -> Result<(), String> {
        C::PARAMS[i].put(self, value)
    }
    fn spec(&self, i: usize) -> Spec {
        C::PARAMS[i].spec()
    }
    fn cross_check(&self) -> Result<(), ParamError> {
        Configurable::cross_check(self)
    }
    fn reset(&mut self) {
        *self = C::default();
    }
    fn boxed(&self) -> Box<dyn AnyConfig> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any + Send + Sync> {
        self
    }
}

/// The index of the parameter with `key`.
pub fn find(c: &dyn AnyConfig, key: &str) -> Option<usize> {
    (0..c.count()).find(|&i| c.key(i) == key)
}

/// Parameter `i` as canonical text.
pub fn get_text(c: &dyn AnyConfig, i: usize) -> String {
    c.value(i).text()
}

/// Parse `text`, check it against parameter `i`'s range and write it; on
/// error `c` is unchanged ([`super::Param::set_text`]).
pub fn set_text(c: &mut dyn AnyConfig, i: usize, text: &str) -> Result<(), ParamError> {
    let key = c.key(i);
    let shape = c.shape(i);
    let max = shape.max_chars();
    if text.len() > max {
        // Refused unread, and only its start kept for the message.
        let start: String = text.chars().take(super::SHOWN + 1).collect();
        return Err(ParamError::new(
            key,
            &start,
            Problem::TooLong {
                max,
                had: text.chars().count(),
            },
        ));
    }
    let value = shape
        .parse(text.trim())
        .ok_or_else(|| ParamError::new(key, text, shape.problem()))?;
    c.put(i, value)
        .map_err(|why| ParamError::new(key, text, Problem::Invalid(why)))
}

/// Check parameter `i`'s value against its range ([`super::Param::check`]).
fn check(c: &dyn AnyConfig, i: usize) -> Result<(), ParamError> {
    let key = c.key(i);
    match c.value(i) {
        // Text must parse back through its own setter.
        Value::Text(text) => c
            .boxed()
            .put(i, Value::Text(text.clone()))
            .map_err(|why| ParamError::new(key, &text, Problem::Invalid(why))),
        value => {
            let shape = c.shape(i);
            if shape.admits(&value) {
                Ok(())
            } else {
                Err(ParamError::new(key, &value.text(), shape.problem()))
            }
        }
    }
}

/// Every value in range, then the cross-constraints
/// ([`Configurable::validate`]).
pub fn validate(c: &dyn AnyConfig) -> Result<(), ParamError> {
    (0..c.count()).try_for_each(|i| check(c, i))?;
    c.cross_check()
}

/// Every parameter's description ([`Configurable::specs`]).
pub fn specs(c: &dyn AnyConfig) -> Vec<Spec> {
    (0..c.count()).map(|i| c.spec(i)).collect()
}

/// Every key and canonical value, in table order ([`super::all_pairs`]).
pub fn all_pairs(c: &dyn AnyConfig) -> Vec<(&'static str, String)> {
    (0..c.count()).map(|i| (c.key(i), get_text(c, i))).collect()
}

/// The values that differ from the defaults ([`super::to_pairs`]).
pub fn to_pairs(c: &dyn AnyConfig) -> Vec<(&'static str, String)> {
    (0..c.count())
        .filter_map(|i| {
            let v = get_text(c, i);
            (v != c.default_value(i).text()).then_some((c.key(i), v))
        })
        .collect()
}

/// The default value of parameter `key`, as text (empty for an unknown key).
pub fn default_text(c: &dyn AnyConfig, key: &str) -> String {
    find(c, key)
        .map(|i| c.default_value(i).text())
        .unwrap_or_default()
}

/// Parameter `key` as canonical text, if the table has it.
pub fn text_of(c: &dyn AnyConfig, key: &str) -> Option<String> {
    find(c, key).map(|i| get_text(c, i))
}

/// Set parameter `key` from `text` and check the cross-constraints: what a
/// page's control does on input. `None` if the table has no `key`; on an
/// error `c` may hold the value (the caller edits a copy).
pub fn set_checked(c: &mut dyn AnyConfig, key: &str, text: &str) -> Option<Result<(), ParamError>> {
    let i = find(c, key)?;
    Some(set_text(c, i, text).and_then(|()| c.cross_check()))
}

/// Set `c` (at its defaults) from `pairs` ([`super::from_pairs`]), and say
/// what could not be used.
pub fn from_pairs(c: &mut dyn AnyConfig, pairs: &[(&str, &str)]) -> Vec<ParamError> {
    let mut errors = Vec::new();
    let mut given: Vec<&'static str> = Vec::new();
    for &(key, text) in pairs {
        if let Some(i) = find(c, key) {
            match set_text(c, i, text) {
                Ok(()) => given.push(c.key(i)),
                Err(e) => errors.push(e),
            }
        }
    }
    let mut reset: Vec<&'static str> = Vec::new();
    for _ in 0..=c.count() {
        let Err(e) = c.cross_check() else {
            break;
        };
        let text_of = |key: &str| find(c, key).map(|i| get_text(c, i)).unwrap_or_default();
        let (key, error) = to_reset(e, &given, &reset, &text_of);
        if reset.contains(&key) {
            // Nothing left to try: the defaults are consistent.
            c.reset();
            errors.push(error);
            break;
        }
        if let Some(i) = find(c, key) {
            let _ = c.put(i, c.default_value(i));
        }
        reset.push(key);
        errors.push(error);
    }
    errors
}

/// What value of parameter `key` would make `fits` hold, holding the rest:
/// the largest whole or real value in range that fits (the smallest when
/// `raise`, for a parameter that lowers the work as it rises), or turning a
/// switch off. Returns whether the value is at the end of its range, and the
/// words (the work bound's refusal, [`crate::labs::bound`]).
pub(crate) fn fix(
    config: &dyn AnyConfig,
    fits: &dyn Fn(&dyn AnyConfig) -> bool,
    key: &str,
    raise: bool,
) -> Option<(bool, String)> {
    let i = find(config, key)?;
    let mut trial = config.boxed();
    let less = if raise { "or more" } else { "or less" };
    match (config.shape(i), config.value(i)) {
        (Shape::Whole { min, max, .. }, Value::Whole(now)) => {
            // `good` fits, `bad` does not; bisect between them.
            let end = if raise { max } else { min };
            let (mut good, mut bad) = (end, now);
            let _ = trial.put(i, Value::Whole(good));
            if !fits(&*trial) {
                return None;
            }
            while good.abs_diff(bad) > 1 {
                let mid = good.min(bad) + good.abs_diff(bad) / 2;
                let _ = trial.put(i, Value::Whole(mid));
                if fits(&*trial) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
            Some((
                good == end,
                format!("{key} to {} {less}", super::thousands(good)),
            ))
        }
        (Shape::Real { min, max, step }, Value::Real(now)) => {
            let end = if raise { max } else { min };
            let (mut good, mut bad) = (end, now);
            let _ = trial.put(i, Value::Real(good));
            if !fits(&*trial) {
                return None;
            }
            for _ in 0..60 {
                let mid = (good + bad) / 2.0;
                let _ = trial.put(i, Value::Real(mid));
                if fits(&*trial) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
            // On the slider's steps, so the value is one a reader can set.
            let steps = (good - min) / step;
            let stepped = if raise {
                (min + libm::ceil(steps) * step).min(max)
            } else {
                min + libm::floor(steps) * step
            };
            Some((
                stepped == end,
                format!("{key} to {} {less}", super::number_text(stepped)),
            ))
        }
        (Shape::Switch, Value::Switch(on)) => {
            if !on {
                return None;
            }
            let _ = trial.put(i, Value::Switch(false));
            fits(&*trial).then(|| (false, format!("{key} off")))
        }
        _ => Some((false, format!("{key} lower"))),
    }
}
