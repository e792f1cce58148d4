//! The article's printed tables against the labs' defaults (§4.2 Routing Lab,
//! §5.6 herding). Every cell is the median over seeds 1–100 and must sit within
//! the stated tolerance of the article's figure; the test prints both tables
//! side by side either way. The searches that chose the defaults are ignored
//! tests in `calibration/search.rs`.

use lblab_tests::{
    textbook, CLAIMS_AT_DEFAULTS, CLAIM_AT_LOW_LOAD, CLAIM_ON_A_FAST_REPLICA, FAST_SPEEDS,
    LOW_RATE, SEEDS,
};
use sim_core::choice::Choice;
use sim_core::labs::herding::{self, HerdingRule};
use sim_core::labs::routing::{self, Config, Outcome};
use sim_core::routing::RuleKind;

/// One row of the article's §4.2 table.
struct RoutingRow {
    rule: RuleKind,
    ttft_p95: f64,
    slo: f64,
    cache: f64,
    gap: f64,
    throughput: f64,
}

/// The article's §4.2 table, in its order.
const ARTICLE_ROUTING: [RoutingRow; 6] = [
    RoutingRow {
        rule: RuleKind::Random,
        ttft_p95: 324.2,
        slo: 0.88,
        cache: 0.38,
        gap: 10.0,
        throughput: 14.4,
    },
    RoutingRow {
        rule: RuleKind::RoundRobin,
        ttft_p95: 84.3,
        slo: 0.94,
        cache: 0.46,
        gap: 0.0,
        throughput: 15.1,
    },
    RoutingRow {
        rule: RuleKind::LeastOutstanding,
        ttft_p95: 52.1,
        slo: 0.98,
        cache: 0.39,
        gap: 10.0,
        throughput: 16.6,
    },
    RoutingRow {
        rule: RuleKind::PowerOfTwo,
        ttft_p95: 90.1,
        slo: 0.94,
        cache: 0.37,
        gap: 8.0,
        throughput: 16.6,
    },
    RoutingRow {
        rule: RuleKind::LeastKv,
        ttft_p95: 559.0,
        slo: 0.81,
        cache: 0.45,
        gap: 50.0,
        throughput: 12.5,
    },
    RoutingRow {
        rule: RuleKind::PrefixAware,
        ttft_p95: 151.3,
        slo: 0.91,
        cache: 0.67,
        gap: 11.0,
        throughput: 17.2,
    },
];

/// The article's E2E P95 for least outstanding (the one it prints).
const ARTICLE_E2E_P95_LO: f64 = 837.0;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Seed-medians of one rule's cells.
#[derive(Clone, Debug, Default)]
pub struct Cells {
    ttft_p95: f64,
    e2e_p95: f64,
    slo: f64,
    cache: f64,
    gap: f64,
    throughput: f64,
}

/// The textbook rules' runs of `cfg` over `seeds`.
fn routing_runs(cfg: &Config, seeds: impl Iterator<Item = u64>) -> Vec<Outcome> {
    routing_runs_of(cfg, seeds, &textbook().collect::<Vec<_>>())
}

/// Runs of `rules` under `cfg` over `seeds`.
fn routing_runs_of(
    cfg: &Config,
    seeds: impl Iterator<Item = u64>,
    rules: &[RuleKind],
) -> Vec<Outcome> {
    seeds
        .map(|seed| {
            routing::run_rules(
                &Config {
                    seed,
                    ..cfg.clone()
                },
                rules,
            )
            .expect("valid config")
        })
        .collect()
}

/// Seed-medians of every textbook rule's cells for `cfg` over `seeds`.
fn routing_cells(cfg: &Config, seeds: impl Iterator<Item = u64>) -> Vec<(RuleKind, Cells)> {
    cells_of(&routing_runs(cfg, seeds))
}

/// Seed-medians of every textbook rule's cells over `runs`.
fn cells_of(runs: &[Outcome]) -> Vec<(RuleKind, Cells)> {
    let rules: Vec<RuleKind> = textbook().collect();
    rules
        .iter()
        .map(|&rule| {
            let col = |f: &dyn Fn(&routing::RuleOutcome) -> f64| {
                median(runs.iter().map(|o| f(o.rule(rule).expect("ran"))).collect())
            };
            let cells = Cells {
                ttft_p95: col(&|r| r.ttft_p95),
                e2e_p95: col(&|r| r.e2e_p95),
                slo: col(&|r| r.slo_attainment),
                cache: col(&|r| r.cache_hit_share),
                gap: col(&|r| f64::from(r.assignment_gap)),
                throughput: col(&|r| r.output_throughput),
            };
            (rule, cells)
        })
        .collect()
}

/// Rules sorted by TTFT P95, best first.
fn rank(rows: impl Iterator<Item = (RuleKind, f64)>) -> Vec<RuleKind> {
    let mut v: Vec<(RuleKind, f64)> = rows.collect();
    v.sort_by(|a, b| a.1.total_cmp(&b.1));
    v.into_iter().map(|(r, _)| r).collect()
}

/// Every cell outside its tolerance, as one line each (empty when all hold).
fn routing_misses(cells: &[(RuleKind, Cells)]) -> Vec<String> {
    let mut misses = Vec::new();
    for a in &ARTICLE_ROUTING {
        let (_, c) = cells
            .iter()
            .find(|(r, _)| *r == a.rule)
            .expect("textbook rule");
        let name = a.rule.name();
        if !(c.ttft_p95 <= a.ttft_p95 * 1.3 && c.ttft_p95 >= a.ttft_p95 / 1.3) {
            misses.push(format!(
                "{name}: TTFT P95 {:.1} not within ×1.3 of {}",
                c.ttft_p95, a.ttft_p95
            ));
        }
        if (c.slo - a.slo).abs() > 0.05 + 1e-9 {
            misses.push(format!(
                "{name}: SLO {:.0}% not within 5 points of {:.0}%",
                c.slo * 100.0,
                a.slo * 100.0
            ));
        }
        if (c.cache - a.cache).abs() > 0.08 + 1e-9 {
            misses.push(format!(
                "{name}: cache {:.0}% not within 8 points of {:.0}%",
                c.cache * 100.0,
                a.cache * 100.0
            ));
        }
        let gap_tol = if a.rule == RuleKind::LeastKv {
            15.0
        } else {
            5.0
        };
        if (c.gap - a.gap).abs() > gap_tol {
            misses.push(format!(
                "{name}: gap {} not within {gap_tol} of {}",
                c.gap, a.gap
            ));
        }
        if (c.throughput - a.throughput).abs() > a.throughput * 0.2 {
            misses.push(format!(
                "{name}: throughput {:.1} not within 20% of {}",
                c.throughput, a.throughput
            ));
        }
        if a.rule == RuleKind::LeastOutstanding
            && (c.e2e_p95 - ARTICLE_E2E_P95_LO).abs() > ARTICLE_E2E_P95_LO * 0.25
        {
            misses.push(format!(
                "{name}: E2E P95 {:.0} not within 25% of {ARTICLE_E2E_P95_LO}",
                c.e2e_p95
            ));
        }
    }
    let ours = rank(cells.iter().map(|(r, c)| (*r, c.ttft_p95)));
    let theirs = rank(ARTICLE_ROUTING.iter().map(|a| (a.rule, a.ttft_p95)));
    if ours != theirs {
        let names = |v: &[RuleKind]| v.iter().map(|r| r.name()).collect::<Vec<_>>().join(" < ");
        misses.push(format!(
            "TTFT P95 order {} differs from the article's {}",
            names(&ours),
            names(&theirs)
        ));
    }
    misses
}

fn print_routing(cells: &[(RuleKind, Cells)]) {
    println!("Routing Lab at the defaults, median of seeds 1–100 (ours | article):");
    println!(
        "{:<20} {:>15} {:>11} {:>11} {:>9} {:>13} {:>13}",
        "rule", "TTFT P95", "SLO", "cache", "gap", "tokens/tick", "E2E P95"
    );
    for a in &ARTICLE_ROUTING {
        let (_, c) = cells
            .iter()
            .find(|(r, _)| *r == a.rule)
            .expect("textbook rule");
        let e2e = if a.rule == RuleKind::LeastOutstanding {
            format!("{:.0} | {ARTICLE_E2E_P95_LO}", c.e2e_p95)
        } else {
            format!("{:.0} | –", c.e2e_p95)
        };
        println!(
            "{:<20} {:>7.1} | {:>5.1} {:>4.0}% | {:>2.0}% {:>4.0}% | {:>2.0}% {:>4} | {:>2} {:>5.1} | {:>5.1} {:>13}",
            a.rule.name(),
            c.ttft_p95,
            a.ttft_p95,
            c.slo * 100.0,
            a.slo * 100.0,
            c.cache * 100.0,
            a.cache * 100.0,
            c.gap,
            a.gap,
            c.throughput,
            a.throughput,
            e2e
        );
    }
}

#[test]
#[ignore = "fails on the cells in KNOWN_GAPS (see docs/model.md, Calibration); `only_the_known_gaps_miss` runs in CI"]
fn the_routing_lab_reproduces_the_articles_table() {
    let cells = routing_cells(&Config::default(), SEEDS);
    print_routing(&cells);
    let misses = routing_misses(&cells);
    assert!(
        misses.is_empty(),
        "cells outside tolerance:\n{}",
        misses.join("\n")
    );
}

// ---- Herding (§5.6) ----

/// One printed herding cell set: peak skew, mean skew, pile-up share.
#[derive(Clone, Copy)]
struct HerdingRow {
    what: &'static str,
    peak: f64,
    mean: f64,
    pile_up: f64,
}

/// The article's §5.6 cells at the defaults (5 replicas, 4 routers, T = 10).
const ARTICLE_HERDING: [(HerdingRule, HerdingRow); 4] = [
    (
        HerdingRule::Stale,
        HerdingRow {
            what: "stale least outstanding",
            peak: 21.0,
            mean: 12.0,
            pile_up: 0.64,
        },
    ),
    (
        HerdingRule::OwnDispatches,
        HerdingRow {
            what: "+ own dispatches",
            peak: 20.0,
            mean: 9.1,
            pile_up: 0.48,
        },
    ),
    (
        HerdingRule::TwoChoices,
        HerdingRow {
            what: "two random replicas",
            peak: 9.0,
            mean: 5.2,
            pile_up: 0.21,
        },
    ),
    (
        HerdingRule::Both,
        HerdingRow {
            what: "both",
            peak: 10.0,
            mean: 4.4,
            pile_up: 0.23,
        },
    ),
];

/// Seed-medians (peak, mean, pile-up) of `rule` under `cfg` over `seeds`.
fn herding_cells(
    cfg: &herding::Config,
    rule: HerdingRule,
    seeds: std::ops::RangeInclusive<u64>,
) -> (f64, f64, f64) {
    let runs: Vec<_> = seeds
        .map(|seed| {
            let o = herding::run_rule(
                &herding::Config {
                    seed,
                    ..cfg.clone()
                },
                rule,
            )
            .expect("valid");
            let s = o.rule(rule).expect("ran").clone();
            (f64::from(s.peak_skew), s.mean_skew, s.pile_up_share)
        })
        .collect();
    (
        median(runs.iter().map(|r| r.0).collect()),
        median(runs.iter().map(|r| r.1).collect()),
        median(runs.iter().map(|r| r.2).collect()),
    )
}

fn herding_check(label: &str, got: (f64, f64, f64), want: &HerdingRow, misses: &mut Vec<String>) {
    println!(
        "{label:<34} peak {:>5.1} | {:>4}   mean {:>5.2} | {:>5.2}   pile-up {:>3.0}% | {:>3.0}%",
        got.0,
        want.peak,
        got.1,
        want.mean,
        got.2 * 100.0,
        want.pile_up * 100.0
    );
    herding_misses(label, got, want, misses);
}

/// The cells of one herding row outside their tolerance, as miss lines.
fn herding_misses(label: &str, got: (f64, f64, f64), want: &HerdingRow, misses: &mut Vec<String>) {
    if (got.0 - want.peak).abs() > want.peak * 0.2 {
        misses.push(format!(
            "{label}: peak {} not within 20% of {}",
            got.0, want.peak
        ));
    }
    if !want.mean.is_nan() && (got.1 - want.mean).abs() > want.mean * 0.2 {
        misses.push(format!(
            "{label}: mean {:.2} not within 20% of {}",
            got.1, want.mean
        ));
    }
    if (got.2 - want.pile_up).abs() > 0.08 + 1e-9 {
        misses.push(format!(
            "{label}: pile-up {:.0}% not within 8 points of {:.0}%",
            got.2 * 100.0,
            want.pile_up * 100.0
        ));
    }
}

/// Every printed herding cell for `d` over seeds 1–100: (label, ours (peak,
/// mean, pile-up), the article's), the interval-1 row having no mean.
fn herding_table(d: &herding::Config) -> Vec<(&'static str, (f64, f64, f64), HerdingRow)> {
    herding_table_over(d, SEEDS)
}

/// [`herding_table`] over `seeds` (one seed gives that seed's own table).
fn herding_table_over(
    d: &herding::Config,
    seeds: std::ops::RangeInclusive<u64>,
) -> Vec<(&'static str, (f64, f64, f64), HerdingRow)> {
    let mut rows: Vec<(&'static str, (f64, f64, f64), HerdingRow)> = ARTICLE_HERDING
        .iter()
        .map(|(rule, want)| {
            let w = HerdingRow {
                what: want.what,
                ..*want
            };
            (want.what, herding_cells(d, *rule, seeds.clone()), w)
        })
        .collect();
    // §5.6 fix 1: with one router the in-flight correction is exact.
    let one = herding::Config {
        routers: 1,
        ..d.clone()
    };
    rows.push((
        "one router, + own dispatches",
        herding_cells(&one, HerdingRule::OwnDispatches, seeds.clone()),
        HerdingRow {
            what: "",
            peak: 3.0,
            mean: 1.44,
            pile_up: 0.06,
        },
    ));
    // §5.6: a 1-tick scrape interval pushes pile-up to 87% and peak skew to 2
    // (the article prints no mean for it).
    let fresh = herding::Config {
        scrape_interval: 1,
        ..d.clone()
    };
    rows.push((
        "interval 1, stale least outstanding",
        herding_cells(&fresh, HerdingRule::Stale, seeds),
        HerdingRow {
            what: "",
            peak: 2.0,
            mean: f64::NAN,
            pile_up: 0.87,
        },
    ));
    rows
}

#[test]
#[ignore = "fails on the cell in KNOWN_GAPS (see docs/model.md, Calibration); `only_the_known_gaps_miss` runs in CI"]
fn the_herding_lab_reproduces_the_articles_table() {
    let mut misses = Vec::new();
    println!("Herding at the defaults, median of seeds 1–100 (ours | article):");
    for (label, got, want) in herding_table(&herding::Config::default()) {
        herding_check(label, got, &want, &mut misses);
    }
    assert!(
        misses.is_empty(),
        "cells outside tolerance:\n{}",
        misses.join("\n")
    );
}

// ---- The cells no honest setting reaches ----

/// Every cell outside its tolerance at the defaults, with the modelling choice
/// that blocks it (the evidence is in docs/model.md, Calibration). A cell is
/// named as its miss line reads up to its value.
const KNOWN_GAPS: &[(&str, &str)] = &[
    (
        "random: TTFT P95",
        "work per request varies about as much as counts do, so at the median random's tail is ~1.7× round robin's, not 3.8×",
    ),
    ("random: SLO", "as above"),
    (
        "TTFT P95 order",
        "power of two reads two exact live counts and beats round robin (sampled with replacement too)",
    ),
    (
        "least-outstanding: E2E P95",
        "an 837-tick E2E needs 700–900-token long outputs; every such setting found fails claim (g), or (d) on fresh seeds",
    ),
    (
        "least-kv: TTFT P95",
        "least KV's collapse deepens only with those long outputs, ruled out as above",
    ),
    ("least-kv: SLO", "as above"),
    ("least-kv: gap", "as above"),
    (
        "prefix-aware: TTFT P95",
        "an absolute threshold of 12 reaches 140 but breaks claims (d) and (f)",
    ),
    ("prefix-aware: cache", "as above"),
    (
        "one router, + own dispatches: peak",
        "a lone router's count misses completions since the scrape; S = 17 gives 3 but moves two other cells out",
    ),
];

/// The cell a miss line is about: its text up to the value.
fn cell(miss: &str) -> &str {
    if miss.starts_with("TTFT P95 order") {
        return "TTFT P95 order";
    }
    let head = miss.split(" not within").next().unwrap_or(miss);
    head.rsplit_once(' ').map_or(head, |(k, _)| k)
}

/// Runs in CI: prints both tables and fails if any cell outside the known gaps
/// misses its tolerance (a regression), or if a known gap now holds (so the
/// list, and the docs, must be updated).
#[test]
fn only_the_known_gaps_miss() {
    let runs = routing_runs(&Config::default(), SEEDS);
    let cells = cells_of(&runs);
    print_routing(&cells);
    let mut misses = routing_misses(&cells);
    println!("\nHerding at the defaults, median of seeds 1–100 (ours | article):");
    for (label, got, want) in herding_table(&herding::Config::default()) {
        herding_check(label, got, &want, &mut misses);
    }
    let mut missed: Vec<&str> = misses.iter().map(|m| cell(m)).collect();
    missed.sort_unstable();
    let mut known: Vec<&str> = KNOWN_GAPS.iter().map(|(c, _)| *c).collect();
    known.sort_unstable();
    // Each seed's own tables: the article prints one trace, so how often a
    // single seed lands on its figure says whether the figure is inside the
    // model's seed-to-seed spread or outside it.
    let per_seed: Vec<Vec<String>> = runs
        .iter()
        .zip(SEEDS)
        .map(|(run, seed)| {
            let mut m = routing_misses(&cells_of(std::slice::from_ref(run)));
            for (label, got, want) in herding_table_over(&herding::Config::default(), seed..=seed) {
                herding_misses(label, got, &want, &mut m);
            }
            m
        })
        .collect();
    println!();
    for m in &misses {
        let why = KNOWN_GAPS
            .iter()
            .find(|(c, _)| *c == cell(m))
            .map_or("NOT A KNOWN GAP", |g| g.1);
        let reach = per_seed
            .iter()
            .filter(|own| own.iter().all(|o| cell(o) != cell(m)))
            .count();
        println!("known gap: {m} — {why} (a single seed's own value is within tolerance in {reach} of 100 seeds)");
    }
    let (fewest, seed) = per_seed
        .iter()
        .zip(SEEDS)
        .map(|(own, seed)| (own.len(), seed))
        .min()
        .expect("seeds");
    // 30 routing cells, least outstanding's E2E and the rank order; five
    // herding rows of three and the interval-1 row's peak and pile-up.
    let printed = ARTICLE_ROUTING.len() * 5 + 2 + ARTICLE_HERDING.len() * 3 + 3 + 2;
    println!(
        "closest single seed: {seed}, with {fewest} of the {printed} cells outside tolerance on its own tables"
    );
    assert_eq!(
        missed,
        known,
        "the cells outside tolerance are not the documented ones:\n{}",
        misses.join("\n")
    );
}

#[path = "calibration/search.rs"]
mod search;
