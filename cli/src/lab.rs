//! `lblab <lab>`: any registered lab from the command line.
//!
//! Everything here is driven by the lab registry (`sim_core::labs::LABS`): the
//! flags are the lab's parameter table (`--key value`, with the default and
//! range in `--help` and in every error), the focus flag (`--rule`, `--mode`)
//! runs one compared item, and `--detail`, `--json` and `--csv` pick the output.
//! Labs that replay traces also take `--trace FILE` and its import flags.

use sim_core::labs::serve::Said;
use sim_core::labs::work::WORK_LIMIT_NS;
use sim_core::labs::TraceInput;
use sim_core::labs::{Format, LabEntry, RunError, RunRequest, TextEntry};
use sim_core::params::{self, Configurable, Shape};
use sim_core::workload::trace::{text_of, ImportOptions, ParsedTrace, MAX_TRACE_BYTES};

use crate::args::{self, Flag, Takes};

/// The flags of one parameter table.
fn param_flags(specs: &[params::Spec]) -> Vec<Flag> {
    specs
        .iter()
        .map(|s| {
            let takes = if s.shape == Shape::Switch {
                Takes::OptionalValue
            } else {
                Takes::Value
            };
            Flag::new(s.key, takes, s.help_line()).capped(s.shape.max_chars())
        })
        .collect()
}

/// Flags that choose what is printed.
fn output_flags(lab: &LabEntry) -> Vec<Flag> {
    let mut out = Vec::new();
    if let Some(focus) = lab.focus {
        let names: Vec<&str> = (focus.options)().iter().map(|o| o.name).collect();
        out.push(Flag::new(
            focus.key,
            Takes::Value,
            format!(
                "Run only this one (default all; one of {}, all)",
                names.join(", ")
            ),
        ));
    }
    if lab.focus.is_some() && lab.info.player.is_some() {
        out.push(Flag::new(
            "record",
            Takes::Value,
            "Also record the player's timeline of these items (comma-separated, or all), as the page does for the one it plays; --json prints it, --detail lists its key moments where the lab has any",
        ));
    }
    out.push(Flag::new(
        "detail",
        Takes::Nothing,
        "Also print the detailed tables (per replica, per step or per iteration)",
    ));
    out.push(Flag::new(
        "json",
        Takes::Nothing,
        "Print the outcome as JSON (what the web page computes) instead of a table",
    ));
    out.push(Flag::new(
        "csv",
        Takes::Nothing,
        "Print the main comparison as CSV",
    ));
    out.push(Flag::new(
        "config",
        Takes::Nothing,
        "Print the configuration these flags give, as JSON, without running",
    ));
    out.push(Flag::new(
        "estimate",
        Takes::Nothing,
        "Print the run's estimated work against the limit, without running",
    ));
    out
}

/// Flags of trace replay, for labs that replay traces.
fn trace_flags() -> Vec<Flag> {
    let mut out = vec![Flag::new(
        "trace",
        Takes::Value,
        "Replay a trace (Mooncake JSONL or Azure CSV, detected) instead of generating requests",
    )];
    out.extend(param_flags(&ImportOptions::specs()));
    out
}

/// Flags of routers' own configurations, for labs that have formats.
fn config_flags(lab: &LabEntry) -> Vec<Flag> {
    let ids: Vec<&str> = router_config::formats_for(lab.info.id)
        .map(|f| f.id)
        .collect();
    if ids.is_empty() {
        return Vec::new();
    }
    vec![
        Flag::new(
            "router-config",
            Takes::Value,
            "Read a router's own configuration (SGLang launch command, llm-d EndpointPickerConfig, LiteLLM YAML, API Management Bicep or ARM JSON) into the settings; flags given beside it win; what was read is printed to stderr",
        ),
        Flag::new(
            "export-config",
            Takes::Value,
            format!(
                "Print the rule and settings as a router's configuration instead of running (one of {})",
                ids.join(", ")
            ),
        )
        .capped(32),
    ]
}

/// A router configuration file, read no further than the importer's cap,
/// then imported; the report goes to stderr.
fn read_router_config(lab: &LabEntry, path: &str) -> Result<Vec<(String, String)>, String> {
    use std::io::Read;
    let shown = params::shown(path);
    let file = std::fs::File::open(path)
        .map_err(|e| format!("--router-config: cannot read {shown}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(router_config::MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("--router-config: cannot read {shown}: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("--router-config: {shown} is not UTF-8 text"))?;
    let report =
        router_config::import(&text).map_err(|e| format!("--router-config: {shown}: {e}"))?;
    if report.lab() != lab.info.id {
        return Err(format!(
            "--router-config: {shown} is a {}, which the {} lab runs: lblab {} --router-config {shown}",
            report.format, report.lab(), report.lab()
        ));
    }
    eprintln!("Read {shown} as: {}", report.format);
    for (said, line) in &report.lines {
        let word = match said {
            Said::Differs => "Differs",
            Said::Restates => "Default",
            Said::NotModelled => "Not modelled",
            Said::Secret => "Secret",
            Said::Note => "Note",
        };
        eprintln!("  {word}: {line}");
    }
    for (label, pairs) in &report.fixes {
        let flags: Vec<String> = pairs.iter().map(|(k, v)| format!("--{k} {v}")).collect();
        eprintln!("  Suggested: {label} ({})", flags.join(" "));
    }
    Ok(report.pairs)
}

/// `--key` for messages.
fn error_line(e: &params::ParamError) -> String {
    format!("--{e}")
}

/// A trace file's text, read no further than the importer's cap (a device
/// or a huge file is refused after [`MAX_TRACE_BYTES`] bytes, not read
/// whole), as the page refuses a file over the cap before reading it.
fn read_trace(path: &str) -> Result<ParsedTrace, String> {
    use std::io::Read;
    let shown = params::shown(path);
    let file =
        std::fs::File::open(path).map_err(|e| format!("--trace: cannot read {shown}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_TRACE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("--trace: cannot read {shown}: {e}"))?;
    let text = text_of(bytes).map_err(|e| format!("--trace: {shown}: {}", e.0))?;
    ParsedTrace::parse(&text).map_err(|e| format!("--trace: {}", e.0))
}

/// Entry point of `lblab <lab>`.
pub fn main(lab: &LabEntry, text: &TextEntry, rest: &[String]) -> Result<(), String> {
    let specs = (lab.params)();
    let params = param_flags(&specs);
    let outputs = output_flags(lab);
    let traces = if lab.replays_traces {
        trace_flags()
    } else {
        Vec::new()
    };
    let configs = config_flags(lab);
    let all: Vec<Flag> = params
        .iter()
        .chain(&outputs)
        .chain(&traces)
        .chain(&configs)
        .cloned()
        .collect();
    let Some(parsed) = args::parse(rest, &all)? else {
        print_help(lab, &params, &outputs, &traces, &configs);
        return Ok(());
    };
    let imported = match parsed.value("router-config") {
        Some(path) => read_router_config(lab, path)?,
        None => Vec::new(),
    };
    // The imported settings first, so a flag given beside them wins.
    let focus_key = lab.focus.map(|f| f.key);
    let pairs: Vec<(&str, &str)> = imported
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain(parsed.pairs())
        .filter(|(k, _)| specs.iter().any(|s| s.key == *k) || Some(*k) == focus_key)
        .collect();
    if let Some(format) = parsed.value("export-config") {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .filter(|(k, v)| !(Some(*k) == focus_key && *v == "all"))
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        let text = router_config::export(lab.info.id, &owned, format, "")
            .map_err(|e| format!("--export-config: {e}"))?;
        print!("{text}");
        return Ok(());
    }
    let pairs: Vec<(&str, &str)> = pairs
        .into_iter()
        .filter(|(k, _)| Some(*k) != focus_key)
        .collect();
    let only = focus_only(lab, &parsed)?;
    if parsed.has("config") {
        let json = (text.config_json)(&pairs).map_err(|e| match e {
            RunError::Param(e) => error_line(&e),
            other => other.to_string(),
        })?;
        println!("{json}");
        return Ok(());
    }
    let record = recorded(lab, &parsed)?;
    let import = import_options(&parsed)?;
    let file = match parsed.value("trace").filter(|_| lab.replays_traces) {
        None => None,
        Some(path) => Some(read_trace(path)?),
    };
    let request = RunRequest {
        only: &only,
        trace: file.as_ref().map(|parsed| TraceInput {
            parsed,
            options: &import,
        }),
        record: &record,
        ..RunRequest::of(&pairs)
    };
    if parsed.has("estimate") {
        return estimate(text, &request);
    }
    let format = output_format(&parsed);
    let out = (text.run)(
        &RunRequest {
            threads: Some(crate::threads::threads()),
            ..request
        },
        format,
    )
    .map_err(run_error)?;
    print!("{out}");
    if format == Format::Json {
        println!();
    }
    Ok(())
}

/// `lblab <lab> --help`: what the lab is, then its flags by group.
fn print_help(
    lab: &LabEntry,
    params: &[Flag],
    outputs: &[Flag],
    traces: &[Flag],
    configs: &[Flag],
) {
    let usage = format!(
        "Usage: lblab {} [flags]\n\n{} ({} of the reference article): {}",
        lab.info.id, lab.info.title, lab.info.section, lab.info.summary
    );
    print!(
        "{}",
        args::help(
            &usage,
            &[
                ("Parameters", params),
                ("Output", outputs),
                ("Trace replay", traces),
                ("Router configurations", configs)
            ]
        )
    );
}

/// The items whose timeline `--record` names (`all`: every one), or a
/// one-line error naming the choices.
fn recorded<'a>(lab: &LabEntry, parsed: &'a args::Parsed) -> Result<Vec<&'a str>, String> {
    let (Some(focus), Some(list)) = (lab.focus, parsed.value("record")) else {
        return Ok(Vec::new());
    };
    let names: Vec<&'static str> = (focus.options)().iter().map(|o| o.name).collect();
    if list == "all" {
        return Ok(names);
    }
    list.split(',')
        .map(|name| {
            names
                .iter()
                .find(|&&n| n == name)
                .map(|_| name)
                .ok_or_else(|| {
                    format!(
                        "--record takes {}, or all, comma-separated (got '{}')",
                        names.join(", "),
                        params::shown(name)
                    )
                })
        })
        .collect()
}

/// The items the focus flag names (`--rule least-kv`): none for all (or
/// for a lab that compares nothing), or a one-line error naming the choices.
fn focus_only<'a>(lab: &LabEntry, parsed: &'a args::Parsed) -> Result<Vec<&'a str>, String> {
    let Some(focus) = lab.focus else {
        return Ok(Vec::new());
    };
    match parsed.value(focus.key) {
        None | Some("all") => Ok(Vec::new()),
        Some(name) => {
            let options = (focus.options)();
            if !options.iter().any(|o| o.name == name) {
                let names: Vec<&str> = options.iter().map(|o| o.name).collect();
                return Err(format!(
                    "--{} must be one of {}, all (got '{}')",
                    focus.key,
                    names.join(", "),
                    params::shown(name)
                ));
            }
            Ok(vec![name])
        }
    }
}

/// What to print: JSON, CSV, the per-step detail or the report.
fn output_format(parsed: &args::Parsed) -> Format {
    if parsed.has("json") {
        Format::Json
    } else if parsed.has("csv") {
        Format::Csv
    } else if parsed.has("detail") {
        Format::Detail
    } else {
        Format::Report
    }
}

/// The trace import's options from their flags (window, scaling, limits).
fn import_options(parsed: &args::Parsed) -> Result<ImportOptions, String> {
    let import_pairs = parsed
        .pairs()
        .filter(|(k, _)| ImportOptions::param(k).is_some());
    let (import, errors) = params::from_pairs::<ImportOptions>(import_pairs);
    match errors.first() {
        Some(e) => Err(error_line(e)),
        None => Ok(import),
    }
}

/// A run's error as the one line the CLI prints.
fn run_error(e: RunError) -> String {
    match e {
        RunError::Param(e) => error_line(&e),
        RunError::Trace(e) => format!("--trace: {e}"),
        other => other.to_string(),
    }
}

/// `--estimate`: the run's estimated native work against the limit.
fn estimate(text: &TextEntry, request: &RunRequest<'_>) -> Result<(), String> {
    let w = (text.work)(request).map_err(run_error)?;
    println!(
        "{}: about {:.0} ms of native work ({:.0}% of the {:.0} ms limit){}",
        w.what,
        w.ns / 1e6,
        100.0 * w.ns / WORK_LIMIT_NS,
        WORK_LIMIT_NS / 1e6,
        if w.fits() { "" } else { "; refused" }
    );
    Ok(())
}
