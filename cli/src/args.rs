//! A small flag parser with one-line errors that name the flag and its range.

use std::collections::HashMap;

/// One flag a command accepts.
pub struct Flag {
    /// Name without dashes, e.g. `mean-prompt`.
    pub name: &'static str,
    /// Whether it takes a value (`--rate 0.2`) or is a switch (`--json`).
    pub takes_value: bool,
    /// One line of help, including the default and range.
    pub help: String,
}

/// Parsed flags: values by name, switches present.
pub struct Parsed {
    values: HashMap<&'static str, String>,
}

impl Parsed {
    /// The raw value of `--name`, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Whether the switch `--name` was given.
    pub fn switch(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }
}

/// Parse `args` against `flags`. `Ok(None)` means `--help` was asked for.
pub fn parse(args: &[String], flags: &[Flag]) -> Result<Option<Parsed>, String> {
    let mut values = HashMap::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--help" || arg == "-h" {
            return Ok(None);
        }
        let Some(body) = arg.strip_prefix("--") else {
            return Err(format!(
                "unexpected argument '{arg}' (flags start with --; see --help)"
            ));
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            return Err(format!("unknown flag '--{name}' (see --help)"));
        };
        let value = if flag.takes_value {
            match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    args.get(i)
                        .cloned()
                        .ok_or_else(|| format!("--{name} needs a value"))?
                }
            }
        } else {
            String::new()
        };
        values.insert(flag.name, value);
        i += 1;
    }
    Ok(Some(Parsed { values }))
}

/// Help text for a command: usage line and one line per flag.
pub fn help(usage: &str, flags: &[Flag]) -> String {
    let mut out = format!("{usage}\n\nFlags:\n");
    for f in flags {
        let lhs = if f.takes_value {
            format!("--{} <value>", f.name)
        } else {
            format!("--{}", f.name)
        };
        out.push_str(&format!("  {lhs:<26} {}\n", f.help));
    }
    out.push_str(&format!("  {:<26} Show this help\n", "--help"));
    out
}

/// Format a range bound the way users type it (no trailing `.0`).
pub fn num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The one-line message for a value outside its range (or not a number).
pub fn range_message(flag: &str, range: Option<(f64, f64)>, given: &str) -> String {
    match range {
        Some((min, max)) => format!(
            "--{flag} must be a number between {} and {} (got '{given}')",
            num(min),
            num(max)
        ),
        None => format!("--{flag}: invalid value '{given}'"),
    }
}

/// Parse a `--seed` value.
pub fn seed(v: &str) -> Result<u64, String> {
    v.trim().parse().map_err(|_| {
        format!(
            "--seed must be a whole number between 0 and {} (got '{v}')",
            u64::MAX
        )
    })
}

/// Flags for config keys: `(flag, key, what)` rows, each described with its
/// default value and range from the lab's range table.
pub fn keyed_flags(
    keyed: &[(&'static str, &'static str, &'static str)],
    bounds: &sim_core::labs::Bounds,
) -> Vec<Flag> {
    keyed
        .iter()
        .map(|&(flag, key, what)| {
            let (_, value, min, max) = bounds
                .iter()
                .find(|b| b.0 == key)
                .copied()
                .unwrap_or((key, 0.0, 0.0, 0.0));
            Flag {
                name: flag,
                takes_value: true,
                help: format!(
                    "{what} (default {}, range {}–{})",
                    num(value),
                    num(min),
                    num(max)
                ),
            }
        })
        .collect()
}
