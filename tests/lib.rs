//! Helpers shared by the integration tests.

use sim_core::labs::routing::{self, Config, Outcome, RuleOutcome};
use sim_core::routing::{Origin, RuleKind};

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

/// Print one line of figures from a passing test (timings, counts): written
/// to the stderr handle, which libtest does not capture.
pub fn note(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Path of a full public trace file, if one is at hand (the CLI's finder:
/// `LBLAB_TRACES`, or a `traces/` folder beside the repository). `None` (and
/// the caller prints that it skipped) otherwise.
pub fn full_trace(name: &str) -> Option<std::path::PathBuf> {
    lblab::find_trace(name)
}

/// The article's six textbook rules (the Routing Lab of §4.2), in registry order.
pub fn textbook() -> impl Iterator<Item = RuleKind> {
    RuleKind::ALL
        .iter()
        .copied()
        .filter(|r| r.origin() == Origin::Textbook)
}

fn get(o: &Outcome, r: RuleKind) -> &RuleOutcome {
    o.rule(r).expect("every rule runs")
}

/// One of the article's claims about the Routing Lab: its name, the share of
/// seeds it must hold in, and the check on one seed's outcome.
pub struct Claim {
    /// The claim, as the test output names it.
    pub name: &'static str,
    /// Share of seeds it must hold in (0–1).
    pub needed: f64,
    /// Whether it holds for one outcome.
    pub holds: fn(&Outcome) -> bool,
}

/// The article's claims (a)–(e) at the lab's defaults (§4.2). They compare the
/// six textbook rules among themselves.
pub const CLAIMS_AT_DEFAULTS: [Claim; 5] = [
    Claim {
        name: "(a) round robin's assignment gap is 0",
        needed: 1.0,
        holds: |o| get(o, RuleKind::RoundRobin).assignment_gap == 0,
    },
    Claim {
        name: "(b) least outstanding beats round robin on TTFT P95",
        needed: 0.8,
        holds: |o| {
            get(o, RuleKind::LeastOutstanding).ttft_p95 < get(o, RuleKind::RoundRobin).ttft_p95
        },
    },
    Claim {
        name: "(c) random has a worse TTFT P95 than round robin",
        needed: 0.8,
        holds: |o| get(o, RuleKind::Random).ttft_p95 > get(o, RuleKind::RoundRobin).ttft_p95,
    },
    Claim {
        name: "(d) least KV: lowest SLO attainment, gap above LO, P2C, PA",
        needed: 0.8,
        holds: |o| {
            use RuleKind::*;
            let kv = get(o, LeastKv);
            let lowest = textbook()
                .filter(|&r| r != LeastKv)
                .all(|r| kv.slo_attainment < get(o, r).slo_attainment);
            let gap = [LeastOutstanding, PowerOfTwo, PrefixAware]
                .iter()
                .all(|&r| kv.assignment_gap > get(o, r).assignment_gap);
            lowest && gap
        },
    },
    Claim {
        name: "(e) prefix-aware has the highest cache-hit share",
        needed: 1.0,
        holds: |o| {
            let pa = get(o, RuleKind::PrefixAware).cache_hit_share;
            textbook()
                .filter(|&r| r != RuleKind::PrefixAware)
                .all(|r| pa > get(o, r).cache_hit_share)
        },
    },
];

/// The arrival rate of claim (f).
pub const LOW_RATE: f64 = 0.05;

/// Claim (f), at λ = [`LOW_RATE`] with the other defaults (§4.2).
pub const CLAIM_AT_LOW_LOAD: Claim = Claim {
    name: "(f) load rules converge at λ = 0.05; prefix-aware lower",
    needed: 0.8,
    holds: |o| {
        use RuleKind::*;
        let p: Vec<f64> = [LeastOutstanding, PowerOfTwo, RoundRobin]
            .iter()
            .map(|&r| get(o, r).ttft_p95)
            .collect();
        let (lo, hi) = p
            .iter()
            .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let close = hi <= lo * 1.25;
        let pa = get(o, PrefixAware).ttft_p95;
        close && p.iter().all(|&x| pa < x)
    },
};

/// Replica speeds of claim (g)'s pool: the first replica twice as fast.
pub const FAST_SPEEDS: [f64; 4] = [2.0, 1.0, 1.0, 1.0];

/// Mean outstanding on replica 0 over the mean of the others' (rule `r`).
pub fn first_replica_share(o: &Outcome, r: RuleKind) -> f64 {
    let reps = &get(o, r).replicas;
    let others: f64 =
        reps[1..].iter().map(|x| x.mean_outstanding).sum::<f64>() / (reps.len() - 1) as f64;
    reps[0].mean_outstanding / others.max(1e-9)
}

/// Claim (g), with [`FAST_SPEEDS`] and the other defaults (§4.3): a replica
/// twice as fast should carry about twice the work, and counting requests
/// alone under-fills it; Envoy's weights give it more.
pub const CLAIM_ON_A_FAST_REPLICA: Claim = Claim {
    name: "(g) Envoy's weights keep more work on a 2× replica than least outstanding does",
    needed: 0.8,
    holds: |o| {
        first_replica_share(o, RuleKind::EnvoyLeastRequest)
            > first_replica_share(o, RuleKind::LeastOutstanding)
    },
};
