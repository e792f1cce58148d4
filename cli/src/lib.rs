//! What the `lblab` command line shares with the workspace's tests: where
//! the full public trace files are found. The command itself is the binary
//! (`main.rs`).

/// Path of a full public trace file, if one is at hand: in the directory
/// named by `LBLAB_TRACES`, or in a `traces/` folder of any directory beside
/// the repository (sorted, the first that has it). `None` otherwise: the
/// benchmark and the tests over full files then say they skipped.
pub fn find_trace(name: &str) -> Option<std::path::PathBuf> {
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
