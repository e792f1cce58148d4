//! The trace importer on fixtures of our own: both formats, malformed rows
//! (reported by line number, skipped, never a panic), the window, the request
//! limit, time compression, and the size cap.

use sim_core::workload::trace::{
    Capacity, ImportOptions, TraceFormat, LISTED_PROBLEMS, MAX_TRACE_BYTES,
};

/// Mooncake JSONL of our own: line 3 is blank, lines 4–7 are malformed.
const MOONCAKE: &str = r#"{"timestamp": 0, "input_length": 1100, "output_length": 20, "hash_ids": [0, 1, 2]}
{"timestamp": 250, "input_length": 600, "output_length": 5, "hash_ids": [0, 3], "extra": true}

{"timestamp": 300, "input_length": 600, "output_length": 5}
{"timestamp": 320, "input_length": 600, "output_length": 5, "hash_ids": [0]}
{"timestamp": "later", "input_length": 600, "output_length": 5, "hash_ids": [0, 4]}
{"timestamp": 330, "input_length": 600
{"timestamp": 900, "input_length": 1600, "output_length": 40, "hash_ids": [0, 1, 2, 4]}
"#;

/// Azure CSV of our own, CRLF, no newline at the end; line 4 is malformed.
const AZURE: &str = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n\
2023-11-16 18:17:03.9799600,4808,10\r\n\
2023-11-16 18:17:04.0319600,3180,8\r\n\
2023-11-16 18:17:04,lots,8\r\n\
2023-11-16 18:17:05.9799600,1024,300";

fn import(
    text: &str,
    options: ImportOptions,
) -> (
    sim_core::workload::Workload,
    sim_core::workload::trace::ImportReport,
) {
    options.import(text, None).expect("imports")
}

#[test]
fn formats_are_detected_from_the_first_line() {
    assert_eq!(TraceFormat::detect(MOONCAKE), Some(TraceFormat::Mooncake));
    assert_eq!(TraceFormat::detect(AZURE), Some(TraceFormat::Azure));
    assert_eq!(
        TraceFormat::detect("\n\n{\"timestamp\": 1}"),
        Some(TraceFormat::Mooncake)
    );
    assert_eq!(TraceFormat::detect("time,prompt,output\n1,2,3"), None);
    let err = ImportOptions::default()
        .import("hello", None)
        .expect_err("not a trace");
    assert!(
        err.0.contains("Mooncake JSONL") && err.0.contains("TIMESTAMP"),
        "{err}"
    );
}

#[test]
fn mooncake_rows_are_read_and_bad_ones_reported_by_line() {
    let (w, r) = import(MOONCAKE, ImportOptions::default());
    assert_eq!(r.format, TraceFormat::Mooncake);
    assert_eq!((r.rows, r.kept, r.malformed), (7, 3, 4));
    let lines: Vec<usize> = r.problems.iter().map(|p| p.line).collect();
    assert_eq!(lines, [4, 5, 6, 7], "{:?}", r.problems);
    assert!(
        r.problems[0].why.contains("hash_ids"),
        "{}",
        r.problems[0].why
    );
    assert!(
        r.problems[1].why.contains("expected 2"),
        "{}",
        r.problems[1].why
    );
    assert!(r.summary().contains("line 4"), "{}", r.summary());
    assert_eq!(w.block_tokens, 512);
    let arrivals: Vec<u64> = w.requests.iter().map(|q| q.arrival.0).collect();
    assert_eq!(arrivals, [0, 2, 9], "100 ms per tick");
    assert_eq!(w.requests[2].blocks, [0, 1, 2, 4]);
    assert_eq!(w.requests[1].output_tokens, 5);
}

#[test]
fn azure_rows_with_crlf_and_seven_digit_fractions() {
    let (w, r) = import(
        AZURE,
        ImportOptions {
            ms_per_tick: 10,
            ..ImportOptions::default()
        },
    );
    assert_eq!(r.format, TraceFormat::Azure);
    assert_eq!((r.rows, r.kept, r.malformed), (4, 3, 1));
    assert_eq!(r.problems[0].line, 4);
    assert!(
        r.problems[0].why.contains("ContextTokens 'lots'"),
        "{}",
        r.problems[0].why
    );
    let arrivals: Vec<u64> = w.requests.iter().map(|q| q.arrival.0).collect();
    // 0 ms, 52 ms and 2,000 ms after the first row, at 10 ms per tick.
    assert_eq!(arrivals, [0, 5, 200]);
    assert_eq!(w.requests[0].prompt_tokens, 4808);
    // No prefix data: every request has blocks of its own (⌈4808 / 512⌉ = 10).
    assert_eq!(w.requests[0].blocks.len(), 10);
    let all: Vec<u32> = w
        .requests
        .iter()
        .flat_map(|q| q.blocks.iter().copied())
        .collect();
    let mut unique = all.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), all.len(), "no two requests share a block");
    assert_eq!(w.stats().reuse_bound, 0.0);
}

#[test]
fn the_window_and_the_limit_select_rows() {
    let windowed = ImportOptions {
        window_start_s: 0.2,
        window_length_s: 0.5,
        ..ImportOptions::default()
    };
    let (w, r) = import(MOONCAKE, windowed);
    // Rows at 250 ms only (0 is before, 900 after): rebased to the window.
    assert_eq!((r.kept, r.outside_window), (1, 2));
    assert_eq!(w.requests[0].arrival.0, 0);
    let limited = ImportOptions {
        limit: 2,
        ..ImportOptions::default()
    };
    let (w, r) = import(MOONCAKE, limited);
    assert_eq!((w.requests.len(), r.over_limit), (2, 1));
    let empty = ImportOptions {
        window_start_s: 100.0,
        ..ImportOptions::default()
    };
    let err = empty
        .import(MOONCAKE, None)
        .expect_err("nothing in the window");
    assert!(err.0.contains("no request in the window"), "{err}");
}

#[test]
fn compression_reaches_the_target_utilisation() {
    let cap = Capacity {
        replicas: 2,
        slots: 4,
        prefill_budget: 512,
    };
    let (w, r) = ImportOptions::default()
        .import(AZURE, Some(cap))
        .expect("imports");
    assert!(r.utilisation > 0.0);
    assert_eq!(r.compression, 1.0, "no target: timing kept");
    let span = w.requests.last().expect("rows").arrival.0 as f64 + 1.0;
    assert!((cap.utilisation(&w.requests, span) - r.utilisation).abs() < 1e-12);
    let target = ImportOptions {
        target_utilisation: r.utilisation * 4.0,
        ..ImportOptions::default()
    };
    let (dense, r2) = target.import(AZURE, Some(cap)).expect("imports");
    assert!((r2.compression - 4.0).abs() < 1e-9, "{}", r2.compression);
    // Four times denser: the last arrival comes about a quarter as late.
    let last = |w: &sim_core::workload::Workload| w.requests.last().expect("rows").arrival.0;
    assert_eq!(last(&dense), last(&w) / 4);
}

#[test]
fn oversized_or_empty_input_is_an_error_not_a_panic() {
    let huge = "x".repeat(MAX_TRACE_BYTES + 1);
    let err = ImportOptions::default()
        .import(&huge, None)
        .expect_err("too big");
    assert!(err.0.contains("MB"), "{err}");
    assert!(ImportOptions::default().import("", None).is_err());
    let only_bad = "{\"timestamp\": 0}\n{\"nope\": 1}\n";
    let err = ImportOptions::default()
        .import(only_bad, None)
        .expect_err("no usable row");
    assert!(err.0.contains("line 1"), "{err}");
    // Many bad rows: the first few are listed, all are counted.
    let many: String = (0..50)
        .map(|i| format!("{{\"timestamp\": {i}}}\n"))
        .collect::<String>()
        + "{\"timestamp\": 99, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [7]}\n";
    let (_, r) = import(&many, ImportOptions::default());
    assert_eq!((r.malformed, r.problems.len()), (50, LISTED_PROBLEMS));
    assert!(r.summary().ends_with("…)"), "{}", r.summary());
}
