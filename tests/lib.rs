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

/// Path of a file in `shared/traces/` (read-only, never copied into the repo).
pub fn shared_trace(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/traces")
        .join(name)
}
