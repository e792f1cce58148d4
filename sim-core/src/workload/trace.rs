//! How a trace file becomes a [`Workload`]: format detection, row parsing
//! (`mooncake`, `azure`), the import options and their parameter table, the
//! time window, the optional compression to a target utilisation, and a
//! report of what was read, kept and skipped.
//!
//! No I/O: the caller hands in the file's text (the CLI reads a path, the page
//! a dropped file or a bundled excerpt). Nothing here panics on bad input: a
//! malformed row is skipped and reported by line number; a file with no usable
//! row, or over the size cap, is an error.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::mooncake::MOONCAKE_BLOCK_TOKENS;
pub use super::row::{Row, RowProblem};
use super::{azure, mooncake, Request, Workload};
use crate::params::{narrow, Configurable, Param};
use crate::time::Tick;

/// Largest trace text accepted, in bytes (64 MiB: the largest public traces
/// we replay are a few MB).
pub const MAX_TRACE_BYTES: usize = 64 * 1024 * 1024;
/// Most requests kept from one trace.
pub const MAX_TRACE_ROWS: u32 = 200_000;
/// Problems listed by line number in a report (the rest are only counted).
pub const LISTED_PROBLEMS: usize = 10;
/// Rows more than this far from every other row (one day, in ms) are left
/// out of a replay and reported (see `far_out`).
pub const FAR_GAP_MS: f64 = 86_400_000.0;

/// The trace formats the importer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// Mooncake JSONL.
    Mooncake,
    /// Azure LLM inference CSV.
    Azure,
}

impl TraceFormat {
    /// The format of `text`, from its first non-empty line: a JSON object is
    /// Mooncake, the Azure header is Azure.
    pub fn detect(text: &str) -> Option<TraceFormat> {
        let first = text.lines().map(str::trim).find(|l| !l.is_empty())?;
        if first.starts_with('{') {
            Some(TraceFormat::Mooncake)
        } else if first.trim_start_matches('\u{feff}') == azure::HEADER {
            Some(TraceFormat::Azure)
        } else {
            None
        }
    }

    /// A human name.
    pub fn title(self) -> &'static str {
        match self {
            TraceFormat::Mooncake => "Mooncake JSONL",
            TraceFormat::Azure => "Azure LLM inference CSV",
        }
    }
}

/// The refusal of a trace over [`MAX_TRACE_BYTES`] (`bytes`: its size, when
/// the reader knows it; a reader that stops at the cap does not). The CLI and
/// the page refuse with these words before reading the file whole.
pub fn too_big(bytes: Option<usize>) -> TraceError {
    let cap = MAX_TRACE_BYTES / (1024 * 1024);
    TraceError(match bytes {
        Some(b) => format!(
            "the trace is {:.1} MB; traces up to {cap} MB are read",
            b as f64 / 1.0e6
        ),
        None => format!("the trace is over {cap} MB; traces up to {cap} MB are read"),
    })
}

/// A trace file's bytes as text: refused past [`MAX_TRACE_BYTES`] and when
/// they are not UTF-8 (the CLI and the page's worker read files through
/// this, so both accept and refuse the same ones).
pub fn text_of(bytes: Vec<u8>) -> Result<String, TraceError> {
    if bytes.len() > MAX_TRACE_BYTES {
        return Err(too_big(None));
    }
    String::from_utf8(bytes).map_err(|e| {
        TraceError(format!(
            "the file is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to() + 1
        ))
    })
}

/// Why a trace could not be imported at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError(pub String);

impl core::fmt::Display for TraceError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What an engine pool can do, for the utilisation estimate of
/// [`ImportOptions::target_utilisation`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capacity {
    /// Replicas.
    pub replicas: u32,
    /// Batch slots per replica.
    pub slots: u32,
    /// Prompt tokens per prefill step.
    pub prefill_budget: u32,
}

impl Capacity {
    /// Estimated share of the pool's ticks that `requests` keep busy over
    /// `span` ticks: every prompt costs ⌈prompt / budget⌉ whole prefill ticks
    /// of one replica, and every output token 1 / slots of a decode tick (full
    /// batches). Cache hits are ignored, so this errs high; it is the
    /// reference the time compression aims at, not a simulation result.
    pub fn utilisation(&self, requests: &[Request], span: f64) -> f64 {
        let budget = f64::from(self.prefill_budget.max(1));
        let slots = f64::from(self.slots.max(1));
        let busy: f64 = requests
            .iter()
            .map(|r| {
                libm::ceil(f64::from(r.prompt_tokens) / budget) + f64::from(r.output_tokens) / slots
            })
            .sum();
        busy / (f64::from(self.replicas.max(1)) * span.max(1.0))
    }
}

/// Options of a trace import.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportOptions {
    /// Trace milliseconds per simulated tick (default 100).
    pub ms_per_tick: u32,
    /// Keep at most this many requests (default and most: 200,000).
    pub limit: u32,
    /// Start of the window, in seconds after the first request (default 0).
    pub window_start_s: f64,
    /// Length of the window, in seconds (0, the default: to the end).
    pub window_length_s: f64,
    /// Compress or stretch time so the estimated utilisation is this (0, the
    /// default: keep the trace's own timing).
    pub target_utilisation: f64,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            ms_per_tick: 100,
            limit: MAX_TRACE_ROWS,
            window_start_s: 0.0,
            window_length_s: 0.0,
            target_utilisation: 0.0,
        }
    }
}

/// Shorthand for the table below.
type P = Param<ImportOptions>;

impl Configurable for ImportOptions {
    const PARAMS: &'static [Param<ImportOptions>] = &[
        P::whole(
            "ms-per-tick",
            "Time scale",
            "ms/tick",
            (1, 100_000, 1),
            |o| o.ms_per_tick.into(),
            |o, x| o.ms_per_tick = narrow(x),
        )
        .doc("Trace milliseconds per simulated tick."),
        P::whole(
            "trace-limit",
            "Requests read",
            "",
            (1, MAX_TRACE_ROWS as u64, 1),
            |o| o.limit.into(),
            |o, x| o.limit = narrow(x),
        )
        .doc("Keep at most this many requests of the trace (after the window)."),
        P::real(
            "window-start",
            "Window start",
            "s",
            (0.0, 1.0e7, 1.0),
            |o| o.window_start_s,
            |o, x| o.window_start_s = x,
        )
        .doc("Skip requests that arrive earlier than this, in seconds after the first."),
        P::real(
            "window-length",
            "Window length",
            "s",
            (0.0, 1.0e7, 1.0),
            |o| o.window_length_s,
            |o, x| o.window_length_s = x,
        )
        .doc("Keep only this many seconds of requests from the window start; 0 keeps the rest."),
        P::real(
            "target-utilisation",
            "Target utilisation",
            "",
            (0.0, 2.0, 0.05),
            |o| o.target_utilisation,
            |o, x| o.target_utilisation = x,
        )
        .doc("Compress or stretch the trace's time so the pool is about this busy; 0 keeps its timing."),
    ];
}

/// What an import read, kept and skipped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImportReport {
    /// The file's format.
    pub format: TraceFormat,
    /// Data rows in the file (non-empty lines, header excluded).
    pub rows: u32,
    /// Rows kept (inside the window and the limit).
    pub kept: u32,
    /// Rows skipped as malformed.
    pub malformed: u32,
    /// The first malformed rows, by line number.
    pub problems: Vec<RowProblem>,
    /// Rows left out by the window.
    pub outside_window: u32,
    /// Rows left out by the request limit.
    pub over_limit: u32,
    /// Rows left out because their time is far from the rest of the trace
    /// (more than [`FAR_GAP_MS`] from any other row: a timestamp in another
    /// year, say), and the first of them, by line number.
    pub far: u32,
    /// The first far rows, by line number, and how far they were.
    pub far_rows: Vec<RowProblem>,
    /// Estimated utilisation of the trace's own timing on the pool (0 when no
    /// capacity was given).
    pub utilisation: f64,
    /// Factor time was compressed by (1: unchanged; 2: arrivals twice as dense).
    pub compression: f64,
}

impl ImportReport {
    /// One line for a page or a terminal.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{}: {} of {} rows kept",
            self.format.title(),
            self.kept,
            self.rows
        );
        if self.outside_window > 0 {
            s.push_str(&format!(", {} outside the window", self.outside_window));
        }
        if self.over_limit > 0 {
            s.push_str(&format!(", {} over the request limit", self.over_limit));
        }
        if self.far > 0 {
            let listed: Vec<String> = self.far_rows.iter().map(|p| format!("{p}")).collect();
            s.push_str(&format!(
                ", {} far from the rest left out ({}{})",
                self.far,
                listed.join("; "),
                if self.far as usize > listed.len() {
                    "; …"
                } else {
                    ""
                }
            ));
        }
        if self.malformed > 0 {
            let listed: Vec<String> = self.problems.iter().map(|p| format!("{p}")).collect();
            s.push_str(&format!(
                ", {} malformed skipped ({}{})",
                self.malformed,
                listed.join("; "),
                if self.malformed as usize > listed.len() {
                    "; …"
                } else {
                    ""
                }
            ));
        }
        if self.compression != 1.0 {
            s.push_str(&format!(
                "; time compressed ×{:.2} (estimated utilisation {:.2} → {:.2})",
                self.compression,
                self.utilisation,
                self.utilisation * self.compression
            ));
        }
        s
    }
}

/// A trace file's rows, parsed once: what every replay of the file starts
/// from, whatever its import options (a page parses a loaded file once and
/// replays it on every change of the settings).
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedTrace {
    format: TraceFormat,
    rows: Vec<Row>,
    /// Data rows in the file (non-empty lines, header excluded).
    total: u32,
    /// The first malformed rows.
    problems: Vec<RowProblem>,
    /// Malformed rows.
    malformed: u32,
}

impl ParsedTrace {
    /// Detect the format of `text` and read its rows; an error when the text
    /// is over the size cap, of no format this reads, or has no usable row.
    pub fn parse(text: &str) -> Result<ParsedTrace, TraceError> {
        if text.len() > MAX_TRACE_BYTES {
            return Err(too_big(Some(text.len())));
        }
        let format = TraceFormat::detect(text).ok_or_else(|| {
            TraceError(String::from(
                "not a trace this lab reads: expected Mooncake JSONL (one JSON object per line) \
                 or the Azure CSV header TIMESTAMP,ContextTokens,GeneratedTokens",
            ))
        })?;
        let (rows, total, problems, malformed) = parse_rows(text, format);
        if rows.is_empty() {
            let first = problems
                .first()
                .map(|p| format!(": {p}"))
                .unwrap_or_default();
            return Err(TraceError(format!("no usable row in the trace{first}")));
        }
        Ok(ParsedTrace {
            format,
            rows,
            total,
            problems,
            malformed,
        })
    }

    /// The file's format.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// Rows read (malformed ones left out).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row was read (never, for a trace [`ParsedTrace::parse`]
    /// accepted).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Seconds between the first and last readable rows (for messages).
    fn span_s(&self) -> f64 {
        let (lo, hi) = self
            .rows
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), r| {
                (lo.min(r.ms), hi.max(r.ms))
            });
        if hi >= lo {
            (hi - lo) / 1000.0
        } else {
            0.0
        }
    }
}

impl ImportOptions {
    /// Import `text` (either format, detected): [`ParsedTrace::parse`], then
    /// [`ImportOptions::import_parsed`]. `capacity` is needed only for
    /// [`ImportOptions::target_utilisation`] and the report's estimate.
    pub fn import(
        &self,
        text: &str,
        capacity: Option<Capacity>,
    ) -> Result<(Workload, ImportReport), TraceError> {
        self.import_parsed(&ParsedTrace::parse(text)?, capacity)
    }

    /// A parsed trace with these options: its window, limit, time scale
    /// and compression.
    pub fn import_parsed(
        &self,
        parsed: &ParsedTrace,
        capacity: Option<Capacity>,
    ) -> Result<(Workload, ImportReport), TraceError> {
        let mut report = ImportReport {
            format: parsed.format,
            rows: parsed.total,
            kept: 0,
            malformed: parsed.malformed,
            problems: parsed.problems.clone(),
            outside_window: 0,
            over_limit: 0,
            far: 0,
            far_rows: Vec::new(),
            utilisation: 0.0,
            compression: 1.0,
        };
        let workload = self.build(parsed.rows.clone(), capacity, &mut report);
        if workload.requests.is_empty() {
            return Err(TraceError(format!(
                "no request in the window ({} s from {} s); the trace spans {:.0} s",
                self.window_length_s,
                self.window_start_s,
                parsed.span_s()
            )));
        }
        Ok((workload, report))
    }

    /// Window, limit, time scale and compression applied to parsed rows.
    fn build(
        &self,
        mut rows: Vec<Row>,
        capacity: Option<Capacity>,
        report: &mut ImportReport,
    ) -> Workload {
        // Stable sort: file order among equal timestamps, as the traces list them.
        rows.sort_by(|a, b| a.ms.total_cmp(&b.ms));
        far_out(&mut rows, report);
        let origin = rows.first().map_or(0.0, |r| r.ms);
        let start = origin + self.window_start_s.max(0.0) * 1000.0;
        let end = if self.window_length_s > 0.0 {
            start + self.window_length_s * 1000.0
        } else {
            f64::INFINITY
        };
        let total = rows.len();
        rows.retain(|r| r.ms >= start && r.ms < end);
        report.outside_window = (total - rows.len()) as u32;
        let limit = self.limit.clamp(1, MAX_TRACE_ROWS) as usize;
        report.over_limit = rows.len().saturating_sub(limit) as u32;
        rows.truncate(limit);
        report.kept = rows.len() as u32;

        let ms_per_tick = f64::from(self.ms_per_tick.max(1));
        let base = rows.first().map_or(0.0, |r| r.ms);
        let mut next_private: u32 = u32::MAX;
        let mut requests: Vec<Request> = rows
            .into_iter()
            .map(|r| {
                let blocks = r.blocks.unwrap_or_else(|| {
                    // No prefix information: blocks of its own, counting down
                    // from the top of the id space so they never meet a trace id.
                    let n = r.prompt.div_ceil(MOONCAKE_BLOCK_TOKENS).max(1);
                    let ids = (0..n).map(|i| next_private - i).collect();
                    next_private -= n;
                    ids
                });
                Request {
                    adapter: 0,
                    arrival: Tick(libm::floor((r.ms - base) / ms_per_tick) as u64),
                    prompt_tokens: r.prompt.max(1),
                    output_tokens: r.output.max(1),
                    blocks,
                    long: false,
                }
            })
            .collect();
        if let Some(cap) = capacity {
            let span = requests.last().map_or(0, |r| r.arrival.0) as f64 + 1.0;
            report.utilisation = cap.utilisation(&requests, span);
            if self.target_utilisation > 0.0 && report.utilisation > 0.0 {
                let c = self.target_utilisation / report.utilisation;
                report.compression = c;
                for r in requests.iter_mut() {
                    r.arrival = Tick(libm::floor(r.arrival.0 as f64 / c) as u64);
                }
            }
        }
        Workload {
            block_tokens: MOONCAKE_BLOCK_TOKENS,
            requests,
        }
    }
}

/// Leave out the rows far from the rest of a sorted trace: split it where
/// consecutive rows are more than [`FAR_GAP_MS`] apart and keep the part
/// with the most rows (the first such part on a tie). A trace of one session
/// has no such gap; a row stamped in another year, or a clock that jumped,
/// would otherwise stretch the replay over an empty eternity.
fn far_out(rows: &mut Vec<Row>, report: &mut ImportReport) {
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=rows.len() {
        if i == rows.len() || rows[i].ms - rows[i - 1].ms > FAR_GAP_MS {
            parts.push((start, i));
            start = i;
        }
    }
    let Some(&(a, b)) = parts
        .iter()
        .max_by(|x, y| (x.1 - x.0).cmp(&(y.1 - y.0)).then(y.0.cmp(&x.0)))
    else {
        return;
    };
    if b - a == rows.len() {
        return;
    }
    let (lo, hi) = (rows[a].ms, rows[b - 1].ms);
    let mut far: Vec<RowProblem> = rows[..a]
        .iter()
        .chain(&rows[b..])
        .map(|r| {
            let days = if r.ms < lo { lo - r.ms } else { r.ms - hi } / 86_400_000.0;
            RowProblem {
                line: r.line,
                why: format!(
                    "{} days {} the rest of the trace",
                    if days >= 1.0e6 {
                        format!("{:.1e}", days)
                    } else {
                        format!("{:.0}", days)
                    },
                    if r.ms < lo { "before" } else { "after" }
                ),
            }
        })
        .collect();
    far.sort_by_key(|p| p.line);
    report.far = far.len() as u32;
    far.truncate(LISTED_PROBLEMS);
    report.far_rows = far;
    rows.truncate(b);
    rows.drain(..a);
}

/// Rows of `text` in `format`: the parsed rows, the data row count, the first
/// problems and the malformed count.
fn parse_rows(text: &str, format: TraceFormat) -> (Vec<Row>, u32, Vec<RowProblem>, u32) {
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    let (mut total, mut malformed) = (0u32, 0u32);
    let mut header_seen = false;
    for (i, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw).trim();
        if line.is_empty() {
            continue;
        }
        if format == TraceFormat::Azure && !header_seen {
            header_seen = true;
            continue;
        }
        total += 1;
        let parsed = match format {
            TraceFormat::Mooncake => mooncake::row(line, i + 1),
            TraceFormat::Azure => azure::row(line, i + 1),
        };
        match parsed {
            Ok(r) => rows.push(r),
            Err(p) => {
                malformed += 1;
                if problems.len() < LISTED_PROBLEMS {
                    problems.push(p);
                }
            }
        }
    }
    (rows, total, problems, malformed)
}
