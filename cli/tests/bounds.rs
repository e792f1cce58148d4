//! Issue 23's reproducers against the CLI: each once froze a terminal, ran
//! out of memory, panicked or printed something unreadable. Each must now
//! end in a result or a one-line refusal that names what to change. (The
//! page's side of the same reproducers is tests/browser/bounds.test.mjs.)
//! Times are printed with the result, never asserted: the bound itself is
//! what `lblab bench` checks, and a busy CI machine must not fail a test.

use std::ffi::OsStr;
use std::io::Write;
use std::process::Command;
use std::time::Instant;

/// Run `lblab` with `args` under a 512 MB address-space limit (so reading a
/// file past its cap would fail the run); returns (exit code, stdout, stderr).
fn lblab<S: AsRef<OsStr>>(args: &[S]) -> (i32, String, String) {
    let started = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 524288; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_lblab"))
        .args(args)
        .output()
        .expect("lblab runs");
    let shown: String = args
        .iter()
        .map(|a| {
            a.as_ref()
                .to_string_lossy()
                .escape_debug()
                .take(40)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(160)
        .collect();
    let _ = writeln!(
        std::io::stderr().lock(),
        "lblab {shown}: {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A refusal: exit 2, one line, starting `error:`, mentioning each of `names`.
fn assert_refused(args: &[&str], names: &[&str]) -> String {
    let (code, out, err) = lblab(args);
    assert_eq!(code, 2, "{args:?} should be refused: {out}{err}");
    assert!(out.is_empty(), "a refusal prints nothing on stdout: {out}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    for n in names {
        assert!(err.contains(n), "the refusal names {n}: {err}");
    }
    err
}

#[test]
fn a_deep_retry_stack_in_an_outage_is_refused_with_what_fits() {
    let err = assert_refused(
        &[
            "retries",
            "--attempts",
            "10,10,10,10,10",
            "--incident-failure",
            "1",
        ],
        &["too big", "actions to 4 or less", "attempts"],
    );
    assert!(err.contains("100,000 upstream calls"), "{err}");
    assert_refused(
        &[
            "retries",
            "--attempts",
            "10,10,10,10,10,10,10,10",
            "--incident-failure",
            "1",
        ],
        &["too big", "attempts lower"],
    );
}

#[test]
fn littles_law_at_its_largest_pool_runs_its_check_on_a_sample() {
    let (code, out, err) = lblab(&[
        "little",
        "--kv-blocks",
        "200000",
        "--prompt",
        "100",
        "--output",
        "10",
        "--prefill-rate",
        "8192",
        "--cache-hit",
        "1",
        "--block-tokens",
        "1024",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("slots simulated, the rest counted at their rate"),
        "{out}"
    );
}

#[test]
fn routing_counterfactuals_on_200k_requests_are_refused() {
    assert_refused(
        &["routing", "--requests", "200000", "--counterfactuals"],
        &["200,000 requests", "requests to", "or less"],
    );
}

#[test]
fn every_routing_flag_at_its_maximum_is_refused() {
    let specs = (sim_core::labs::find("routing").expect("registered").params)();
    let corner = sim_core::labs::corners::corners(&specs)
        .into_iter()
        .find(|c| c.name == "all at max")
        .expect("an all-at-max corner");
    let flags: Vec<String> = corner
        .pairs
        .iter()
        .map(|(k, v)| format!("--{k}={v}"))
        .collect();
    let mut args = vec!["routing"];
    args.extend(flags.iter().map(String::as_str));
    let (code, _, err) = lblab(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("too big") || err.contains("must"), "{err}");
}

#[test]
fn endless_or_huge_trace_files_are_read_no_further_than_the_cap() {
    // /dev/zero never ends; a 300 MB file of one line is all one row.
    assert_refused(&["routing", "--trace", "/dev/zero"], &["64 MB"]);
    let dir = std::env::temp_dir().join(format!("lblab-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let big = dir.join("one-line.jsonl");
    let f = std::fs::File::create(&big).expect("create");
    // Sparse: 300 MB on paper, nothing on disk.
    f.set_len(300 * 1024 * 1024).expect("set_len");
    assert_refused(
        &["routing", "--trace", big.to_str().expect("utf-8 path")],
        &["64 MB"],
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn far_rows_are_left_out_and_named_and_empty_rows_refused() {
    let dir = std::env::temp_dir().join(format!("lblab-far-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let far = dir.join("far.jsonl");
    std::fs::write(
        &far,
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [1]}\n\
         {\"timestamp\": 1e15, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [2]}\n\
         {\"timestamp\": 5, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [3]}\n\
         {\"timestamp\": 1e300, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": [4]}\n",
    )
    .expect("write");
    let (code, out, err) = lblab(&["routing", "--trace", far.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 of 4 rows kept, 2 far from the rest left out"),
        "{out}"
    );
    assert!(out.contains("line 2:") && out.contains("line 4:"), "{out}");
    let zero = dir.join("zero.jsonl");
    std::fs::write(
        &zero,
        "{\"timestamp\": 0, \"input_length\": 0, \"output_length\": 5, \"hash_ids\": [1]}\n",
    )
    .expect("write");
    assert_refused(
        &["routing", "--trace", zero.to_str().expect("utf-8")],
        &["line 1", "input_length is 0"],
    );
    let csv = dir.join("zero.csv");
    std::fs::write(
        &csv,
        "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,12,0\n",
    )
    .expect("write");
    assert_refused(
        &["routing", "--trace", csv.to_str().expect("utf-8")],
        &["line 2", "0"],
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn a_non_utf8_argument_is_a_usage_error() {
    use std::os::unix::ffi::OsStrExt;
    let bad = OsStr::from_bytes(b"\xff");
    let (code, _, err) = lblab(&[OsStr::new("routing"), OsStr::new("--rate"), bad]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not valid UTF-8"), "{err}");
}

#[test]
fn values_in_errors_are_escaped_and_cut() {
    let err = assert_refused(&["routing", "--rate", "1\n\u{1b}[31mred\r"], &["--rate"]);
    assert!(!err.trim_end().contains(['\r', '\u{1b}']), "{err:?}");
    assert!(err.contains("\\n"), "{err}");
    let long = "9".repeat(100_000);
    let err = assert_refused(&["routing", "--rate", &long], &["--rate"]);
    assert!(
        err.len() < 300,
        "a 100 KB value is cut: {} bytes",
        err.len()
    );
}

/// Issue 47: values past any setting's length are refused before they are
/// read, so a crafted argument or file answers at once. Times printed.
#[test]
fn oversized_values_are_refused_unread_and_at_once() {
    // A 100 KB number for a parameter (the most one argument may carry is
    // about 128 KB on Linux): the parameter's 64-character cap.
    let long = "9".repeat(100_000);
    let started = Instant::now();
    let err = assert_refused(
        &["routing", "--rate", &long],
        &["--rate", "at most 64 characters", "100,000"],
    );
    println!(
        "lblab routing --rate <100 KB>: refused in {:.1} ms: {}",
        started.elapsed().as_secs_f64() * 1e3,
        err.trim_end()
    );
    // The same through every lab's text parameter and a flag that is not a
    // parameter: the flag parser's cap.
    let err = assert_refused(&["retries", "--attempts", &long], &["--attempts"]);
    assert!(err.contains("at most"), "{err}");
    let err = assert_refused(&["bench", "--scale", &long], &["--scale", "at most"]);
    assert!(err.len() < 300, "{err}");
    // A flag given twice is named, not silently overwritten.
    assert_refused(
        &["routing", "--rate", "0.3", "--rate", "0.5"],
        &["--rate", "twice", "0.3", "0.5"],
    );

    // A trace row with a number of a million digits.
    let dir = std::env::temp_dir().join(format!("lblab-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("huge.jsonl");
    let row = format!(
        "{{\"timestamp\": {}, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 3]}}\n",
        "1".repeat(1_000_000)
    );
    std::fs::write(&file, row).expect("write");
    let started = Instant::now();
    let err = assert_refused(
        &["routing", "--trace", file.to_str().expect("utf-8")],
        &["line 1", "at most 64 characters"],
    );
    println!(
        "lblab routing --trace <a 1,000,000-digit number>: refused in {:.1} ms: {}",
        started.elapsed().as_secs_f64() * 1e3,
        err.trim_end()
    );
    std::fs::remove_dir_all(&dir).ok();
}
