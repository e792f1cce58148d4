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

/// The web crate's layout shows its layers (ARCHITECTURE.md "The web
/// house"): `main.rs` alone at the top of `web/src`, then `app/` (pages),
/// `labs/` (one folder per lab), `page/` (the lab page template), `ui/`
/// (shared widgets and drawing) and `platform/` (the browser and the worker).
/// Every lab in sim-core's registry has its own folder, and no file imports
/// from a layer above its own.
#[test]
fn the_web_house_has_one_folder_per_lab_and_imports_run_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/src");
    let mut top: Vec<String> = std::fs::read_dir(&src)
        .expect("web/src")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, ["app", "labs", "main.rs", "page", "platform", "ui"]);
    for lab in sim_core::labs::LABS {
        let id = lab.info.id;
        // A Rust module name has no hyphen: `first-token` lives in `first_token`.
        let folder = id.replace('-', "_");
        let own = src.join("labs").join(&folder).join("mod.rs");
        let queueing = src.join("labs/queueing").join(&folder).join("mod.rs");
        assert!(
            own.exists() || queueing.exists(),
            "lab {id} has no folder of its own under web/src/labs"
        );
    }
    // Highest layer first: a file may import its own layer and those below.
    let layers = ["app", "labs", "page", "ui", "platform"];
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut checked = 0;
    for path in all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
    {
        let rel = path.strip_prefix(&src).expect("under web/src");
        let Some(layer) = layers.iter().position(|l| rel.starts_with(l)) else {
            continue;
        };
        let text = std::fs::read_to_string(path).expect("readable");
        // Tests may look across layers (a check over every lab's page).
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (higher, name) in layers.iter().enumerate().take(layer) {
            let needle = format!("crate::{name}");
            let hit = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(|l| l.contains(&needle));
            assert!(
                !hit,
                "{} ({}) imports {needle} (layer {higher}, above it)",
                rel.display(),
                layers[layer]
            );
        }
        checked += 1;
    }
    println!(
        "web/src: {checked} files in {} layers, every import runs down",
        layers.len()
    );
    assert!(checked > 80, "only {checked} files checked");
}
