//! Routers' own configurations in and out of the lab (article §14).
//!
//! A practitioner's question is "what does *my* router configuration do
//! under *my* traffic?". This crate reads four real formats into a lab's
//! settings and writes a lab's rule back in them:
//!
//! | format | read from | lab |
//! |---|---|---|
//! | `sglang`, `sglang-gateway` | an SGLang router launch command (the Python launcher's or the Rust binary's flags) | routing |
//! | `llmd` | llm-d's `EndpointPickerConfig` YAML, with any `HTTPRoute` / `InferencePool` beside it | routing |
//! | `litellm` | LiteLLM's `model_list` + `router_settings` YAML | providers |
//! | `apim-bicep`, `apim-arm` | an Azure API Management backend pool (Bicep or ARM JSON) with its backends' breakers | providers |
//!
//! An import never fails silently: every key it reads is either set in the
//! lab (and said to differ from the router's default or to restate it) or
//! named as not modelled, and secrets (`api_key`, `os.environ/…`) are named
//! and dropped so they never reach a link or an export. Input is capped in
//! size ([`MAX_BYTES`]), nesting ([`MAX_DEPTH`]) and list length
//! ([`MAX_ITEMS`]) before and while it is parsed; a parse error carries the
//! line it happened on.
//!
//! It runs in the simulation worker ([`answer`]) and in the CLI
//! (`--router-config FILE`), never on the page.

mod apim;
mod bicep;
mod litellm;
mod llmd;
mod report;
mod sglang;
mod tree;

use sim_core::labs::serve::{Answer, Ask, ConfigReport};

pub use report::Report;
pub use sim_core::labs::router_formats::{format, formats_for, Format, FORMATS};

/// Largest configuration read, in bytes (the four article examples are under 1 KB).
pub const MAX_BYTES: usize = 64 * 1024;
/// Deepest nesting of maps and lists read.
pub const MAX_DEPTH: usize = 16;
/// Most entries read from one list (deployments, workers, plugins, backends).
pub const MAX_ITEMS: usize = 256;

/// Why a configuration could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The 1-based line the problem is on, when it has one.
    pub line: Option<usize>,
    /// What is wrong, in one sentence.
    pub why: String,
}

impl ConfigError {
    /// A problem with no line.
    pub fn new(why: impl Into<String>) -> ConfigError {
        ConfigError {
            line: None,
            why: why.into(),
        }
    }

    /// A problem on `line` (1-based).
    pub fn at(line: usize, why: impl Into<String>) -> ConfigError {
        ConfigError {
            line: Some(line),
            why: why.into(),
        }
    }
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.why),
            None => f.write_str(&self.why),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Read `text`, whichever of the formats it is (told apart by its first
/// words: a launch command, a YAML document with `model_list` or a
/// Kubernetes `kind`, Bicep's `resource`, or JSON).
pub fn import(text: &str) -> Result<ConfigReport, ConfigError> {
    let report = read(text)?;
    checked(&report)?;
    Ok(report)
}

/// Whether the lab accepts every setting the report makes (the ranges of
/// its parameter table, the focus among its items).
fn checked(report: &ConfigReport) -> Result<(), ConfigError> {
    let entry = sim_core::labs::find(report.lab())
        .ok_or_else(|| ConfigError::new(format!("no lab '{}'", report.lab())))?;
    let pairs: Vec<(&str, &str)> = report
        .pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    (entry.canonical)(&pairs).map_err(|e| ConfigError::new(e.to_string()))?;
    if let Some(focus) = entry.focus {
        if let Some((_, v)) = pairs.iter().find(|(k, _)| *k == focus.key) {
            if !(focus.options)().iter().any(|o| o.name == *v) {
                return Err(ConfigError::new(format!(
                    "{} '{v}' is not one of the lab's",
                    focus.key
                )));
            }
        }
    }
    Ok(())
}

/// [`import`] before the lab checks the settings.
fn read(text: &str) -> Result<ConfigReport, ConfigError> {
    if text.len() > MAX_BYTES {
        return Err(ConfigError::new(format!(
            "the configuration is {} bytes; the lab reads at most {MAX_BYTES}",
            text.len()
        )));
    }
    if text.trim().is_empty() {
        return Err(ConfigError::new(
            "the configuration is empty: paste a launch command, a YAML or JSON file, or Bicep",
        ));
    }
    let code = first_code(text);
    if code.starts_with('{') || code.starts_with('[') {
        apim::import_json(text)
    } else if code.starts_with("resource ") || code.starts_with("param ") {
        apim::import_bicep(text)
    } else if sglang::is_launch(code) {
        sglang::import(text)
    } else {
        let docs = tree::yaml_documents(text)?;
        if docs.iter().any(|d| d.get("model_list").is_some()) {
            litellm::import(&docs)
        } else if docs.iter().any(|d| d.get("kind").is_some()) {
            llmd::import(&docs)
        } else {
            Err(ConfigError::new(
                "not a configuration the lab reads: expected an SGLang router launch command, llm-d's EndpointPickerConfig (or an InferencePool), LiteLLM's model_list and router_settings, or an API Management backend pool",
            ))
        }
    }
}

/// The text from its first line that is neither blank nor a comment.
fn first_code(text: &str) -> &str {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        if trimmed.starts_with('#') || trimmed.starts_with("//") {
            rest = trimmed.split_once('\n').map_or("", |(_, r)| r);
        } else {
            return trimmed;
        }
    }
}

/// Write `lab`'s settings (`pairs`, the focus key included) as `format`,
/// headed by a comment naming the lab's version and the link (`base` and
/// the query) that reproduces the run.
pub fn export(
    lab: &str,
    pairs: &[(String, String)],
    format_id: &str,
    base: &str,
) -> Result<String, ConfigError> {
    let Some(f) = format(format_id) else {
        return Err(ConfigError::new(format!(
            "no configuration format '{}'",
            sim_core::params::shown(format_id)
        )));
    };
    if f.lab != lab {
        return Err(ConfigError::new(format!(
            "{} configurations belong to the {} lab, not the {} lab",
            f.title,
            f.lab,
            sim_core::params::shown(lab)
        )));
    }
    let pairs: Vec<(&str, &str)> = pairs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let link = link(base, lab, &pairs);
    let head = format!(
        "LLM Load-Balancing Lab {}, {} lab: {}\nReproduce this run: {link}",
        env!("CARGO_PKG_VERSION"),
        lab,
        f.title
    );
    match f.id {
        "sglang" => sglang::export(&pairs, &head, false),
        "sglang-gateway" => sglang::export(&pairs, &head, true),
        "llmd" => llmd::export(&pairs, &head),
        "litellm" => litellm::export(&pairs, &head),
        "apim-bicep" => apim::export(&pairs, &head, true),
        _ => apim::export(&pairs, &head, false),
    }
}

/// What an exporter starts from: `lab`'s configuration read from `pairs`
/// (refused with the lab's own message when a value is out of range), and
/// the item in focus (the lab's default when the pairs leave it out).
pub(crate) fn lab_settings<'a, C: sim_core::params::Configurable>(
    lab: &str,
    pairs: &[(&'a str, &'a str)],
) -> Result<(C, &'a str), ConfigError> {
    let (config, errors) = sim_core::params::from_pairs::<C>(pairs.iter().copied());
    if let Some(e) = errors.first() {
        return Err(ConfigError::new(e.to_string()));
    }
    let focus = sim_core::labs::find(lab)
        .and_then(|entry| entry.focus)
        .map_or("", |f| {
            pairs
                .iter()
                .find(|(k, _)| *k == f.key)
                .map_or((f.default)(), |p| p.1)
        });
    Ok((config, focus))
}

/// `head`'s lines as comment lines opened by `mark` (`#`, `//`).
pub(crate) fn commented(head: &str, mark: &str) -> String {
    head.lines().map(|l| format!("{mark} {l}\n")).collect()
}

/// The lab's link: `base` then `?lab=…` and every pair, percent-encoded
/// where a value needs it.
fn link(base: &str, lab: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = format!("{base}?lab={lab}");
    for (k, v) in pairs {
        s.push('&');
        s.push_str(k);
        s.push('=');
        for c in v.chars() {
            if c.is_ascii_alphanumeric() || "-._~".contains(c) {
                s.push(c);
            } else {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    s.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
    s
}

/// The worker's side: answer an import or an export, or `None` for any
/// other request (the lab server's).
pub fn answer(ask: &Ask) -> Option<Answer> {
    let failed = |e: ConfigError| Answer::Failed {
        why: e.to_string(),
        trace: false,
    };
    match ask {
        Ask::ImportConfig { text, .. } => {
            Some(import(text).map_or_else(failed, |r| Answer::Imported(Box::new(r))))
        }
        Ask::ExportConfig {
            lab,
            pairs,
            format,
            base,
        } => Some(export(lab, pairs, format, base).map_or_else(failed, Answer::Text)),
        _ => None,
    }
}
