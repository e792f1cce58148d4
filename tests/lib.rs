//! Helpers shared by the integration tests.

use sim_core::labs::routing::{self, Config, Outcome};

/// Seeds every claims test runs over. One hundred, because claim (d) sits near its
/// 80% line and a 20-seed sample would make the verdict a coin flip.
pub const SEEDS: std::ops::RangeInclusive<u64> = 1..=100;

/// Run the Routing Lab with `config` at `seed`.
pub fn routing_at(config: &Config, seed: u64) -> Outcome {
    let cfg = Config {
        seed,
        ..config.clone()
    };
    routing::run(&cfg).expect("test configs are valid")
}

/// Share of `SEEDS` for which `claim` holds, with the failing seeds listed.
pub fn pass_ratio(
    outcomes: &[(u64, Outcome)],
    claim: impl Fn(&Outcome) -> bool,
) -> (f64, Vec<u64>) {
    let failed: Vec<u64> = outcomes
        .iter()
        .filter(|(_, o)| !claim(o))
        .map(|(s, _)| *s)
        .collect();
    (1.0 - failed.len() as f64 / outcomes.len() as f64, failed)
}

/// Path of a trace excerpt committed with the repository (`assets/traces/`).
pub fn excerpt(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../assets/traces")
        .join(name)
}

/// Say, in one line the test run shows, that a test skipped its work. Written
/// straight to the stderr handle: libtest captures `println!`/`eprintln!` of
/// passing tests, and a skip must not be silent.
pub fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "skipped: {why}");
}

/// Path of a full public trace file, if one is at hand: in the directory named
/// by `LBLAB_TRACES`, or in a `traces/` folder of any directory beside the
/// repository. `None` (and the caller prints that it skipped) otherwise.
pub fn full_trace(name: &str) -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("LBLAB_TRACES") {
        let p = std::path::Path::new(&dir).join(name);
        return p.is_file().then_some(p);
    }
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let parent = repo.canonicalize().ok()?.parent()?.to_path_buf();
    let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(parent)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| d.join("traces").join(name))
        .find(|p| p.is_file())
}
