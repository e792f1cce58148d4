//! A small flag parser with one-line errors that name the flag.

use std::collections::HashMap;

/// Whether a flag takes a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// `--rate 0.2` or `--rate=0.2`.
    Value,
    /// `--json` (no value).
    Nothing,
    /// `--stagger` (means 1) or `--stagger=0`.
    OptionalValue,
}

/// One flag a command accepts.
#[derive(Clone)]
pub struct Flag {
    /// Name without dashes, e.g. `mean-prompt`.
    pub name: String,
    /// Whether it takes a value.
    pub takes: Takes,
    /// One line of help, including the default and range where there is one.
    pub help: String,
    /// The most characters its value may have (refused unread past it).
    pub max_chars: usize,
}

impl Flag {
    /// A flag named `name`.
    pub fn new(name: impl Into<String>, takes: Takes, help: impl Into<String>) -> Flag {
        Flag {
            name: name.into(),
            takes,
            help: help.into(),
            max_chars: sim_core::params::MAX_TEXT_CHARS,
        }
    }

    /// The same flag, its value capped at `max` characters (a number's cap,
    /// for a numeric parameter).
    pub fn capped(self, max: usize) -> Flag {
        Flag {
            max_chars: max,
            ..self
        }
    }
}

/// Parsed flags: values by name, in the order given.
pub struct Parsed {
    values: HashMap<String, String>,
    order: Vec<String>,
}

impl Parsed {
    /// The raw value of `--name`, if given (switches given bare read `1`).
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Whether `--name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// Every given flag and its value, in the order given.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.order
            .iter()
            .map(|k| (k.as_str(), self.values[k].as_str()))
    }
}

/// Parse `args` against `flags`. `Ok(None)` means `--help` was asked for.
pub fn parse(args: &[String], flags: &[Flag]) -> Result<Option<Parsed>, String> {
    let mut values: HashMap<String, String> = HashMap::new();
    let mut order = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--help" || arg == "-h" {
            return Ok(None);
        }
        let Some(body) = arg.strip_prefix("--") else {
            return Err(format!(
                "unexpected argument '{}' (flags start with --; see --help)",
                sim_core::params::shown(arg)
            ));
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            return Err(format!(
                "unknown flag '--{}' (see --help)",
                sim_core::params::shown(name)
            ));
        };
        let value = match (flag.takes, inline) {
            (Takes::Nothing, Some(_)) => return Err(format!("--{name} takes no value")),
            (Takes::Nothing, None) => String::new(),
            (Takes::OptionalValue, v) => v.unwrap_or_else(|| "1".into()),
            (Takes::Value, Some(v)) => v,
            (Takes::Value, None) => {
                i += 1;
                args.get(i)
                    .cloned()
                    .ok_or_else(|| format!("--{name} needs a value"))?
            }
        };
        // Refused unread: no value of this flag can be longer (64
        // characters for a number).
        if value.len() > flag.max_chars {
            return Err(format!(
                "--{name} must be at most {} characters long; this value has {}",
                flag.max_chars,
                sim_core::params::thousands(value.chars().count() as u64)
            ));
        }
        if let Some(before) = values.get(&flag.name) {
            return Err(format!(
                "--{name} is given twice ('{}' and '{}'); give it once",
                sim_core::params::shown(before.as_str()),
                sim_core::params::shown(&value)
            ));
        }
        values.insert(flag.name.clone(), value);
        order.push(flag.name.clone());
        i += 1;
    }
    Ok(Some(Parsed { values, order }))
}

/// Help text for a command: usage line, then sections of flags.
pub fn help(usage: &str, sections: &[(&str, &[Flag])]) -> String {
    let mut out = format!("{usage}\n");
    for (title, flags) in sections {
        if flags.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{title}:\n"));
        for f in *flags {
            let lhs = match f.takes {
                Takes::Value => format!("--{} <value>", f.name),
                Takes::Nothing => format!("--{}", f.name),
                Takes::OptionalValue => format!("--{}[=0|1]", f.name),
            };
            out.push_str(&format!("  {lhs:<30} {}\n", f.help));
        }
    }
    out.push_str(&format!("\n  {:<30} Show this help\n", "--help"));
    out
}
