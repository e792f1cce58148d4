//! The repository stands alone: nothing in it points at material outside it.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !matches!(name.as_ref(), ".git" | "target" | "node_modules" | "dist") {
                files(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// No file names the folder of shared working material beside the checkout: a
/// fresh clone has no such folder, so the repository must not depend on it.
#[test]
fn no_file_mentions_the_folder_beside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = Vec::new();
    files(&root, &mut all);
    assert!(all.len() > 50, "found only {} files", all.len());
    // Built from parts so this file does not mention it either.
    let needle = format!("{}{}", "shared", "/");
    let offenders: Vec<String> = all
        .iter()
        .filter(|p| {
            std::fs::read(p)
                .map(|bytes| String::from_utf8_lossy(&bytes).contains(&needle))
                .unwrap_or(false)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "files mentioning {needle}: {offenders:?}"
    );
}

/// The code the page's bundle is built from never maps case through Unicode:
/// `str::to_lowercase` and `to_uppercase` pull the standard library's case
/// tables into the wasm (one call on a rule title cost the bundle 10.6 KB
/// gzipped); titles are ASCII, so `to_ascii_lowercase` does the same job.
#[test]
fn the_bundle_code_maps_case_in_ascii_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = Vec::new();
    for dir in ["web/src", "sim-core/src"] {
        files(&root.join(dir), &mut all);
    }
    assert!(all.len() > 50, "found only {} files", all.len());
    // Built from parts so this file does not match itself.
    let calls = [
        format!(".to_{}case(", "lower"),
        format!(".to_{}case(", "upper"),
    ];
    let offenders: Vec<String> = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| {
            std::fs::read_to_string(p)
                .map(|text| calls.iter().any(|c| text.contains(c.as_str())))
                .unwrap_or(false)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "Unicode case mapping in {offenders:?}"
    );
}

/// Lab pages stay descriptions (issue 24): every Rust file under
/// `web/src/labs` together is at most 3,500 lines. What a page draws beyond
/// the shared template (its own tables, readouts, explorers) belongs in
/// `web/src/panels` or `web/src/scenes`, as ARCHITECTURE.md says.
#[test]
fn lab_pages_stay_descriptions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/src/labs");
    let mut all = Vec::new();
    files(&root, &mut all);
    let rust: Vec<&PathBuf> = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    assert!(rust.len() >= 15, "found only {} page files", rust.len());
    let lines: usize = rust
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .expect("readable")
                .lines()
                .count()
        })
        .sum();
    println!("web/src/labs: {lines} lines in {} files", rust.len());
    assert!(
        lines <= 3_500,
        "web/src/labs is {lines} lines (at most 3,500)"
    );
}
