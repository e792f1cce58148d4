//! The article's printed tables against the labs' defaults (§4.2 Routing Lab,
//! §5.6 herding). Every cell is the median over seeds 1–100 and must sit within
//! the stated tolerance of the article's figure; the test prints both tables
//! side by side either way. The search that chose the defaults is the ignored
//! test at the end (`cargo test --release -p lblab-tests --test calibration --
//! --ignored --nocapture`).

use lblab_tests::{textbook, CLAIMS_AT_DEFAULTS, CLAIM_AT_LOW_LOAD, LOW_RATE, SEEDS};
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
    let rules: Vec<RuleKind> = textbook().collect();
    seeds
        .map(|seed| {
            routing::run_rules(
                &Config {
                    seed,
                    ..cfg.clone()
                },
                &rules,
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

/// Seed-medians (peak, mean, pile-up) of `rule` under `cfg`.
fn herding_cells(cfg: &herding::Config, rule: HerdingRule) -> (f64, f64, f64) {
    let runs: Vec<_> = SEEDS
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

/// Every printed herding cell for `d`: (label, ours (peak, mean, pile-up),
/// the article's), the interval-1 row having no mean.
fn herding_table(d: &herding::Config) -> Vec<(&'static str, (f64, f64, f64), HerdingRow)> {
    let mut rows: Vec<(&'static str, (f64, f64, f64), HerdingRow)> = ARTICLE_HERDING
        .iter()
        .map(|(rule, want)| {
            let w = HerdingRow {
                what: want.what,
                ..*want
            };
            (want.what, herding_cells(d, *rule), w)
        })
        .collect();
    // §5.6 fix 1: with one router the in-flight correction is exact.
    let one = herding::Config {
        routers: 1,
        ..d.clone()
    };
    rows.push((
        "one router, + own dispatches",
        herding_cells(&one, HerdingRule::OwnDispatches),
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
        herding_cells(&fresh, HerdingRule::Stale),
        HerdingRow {
            what: "",
            peak: 2.0,
            mean: f64::NAN,
            pile_up: 0.87,
        },
    ));
    rows
}

fn herding_loss(rows: &[(&'static str, (f64, f64, f64), HerdingRow)]) -> f64 {
    let sq = |x: f64| x * x;
    rows.iter()
        .map(|(_, got, want)| {
            let mean = if want.mean.is_nan() {
                0.0
            } else {
                sq((got.1 - want.mean) / (want.mean * 0.2))
            };
            sq((got.0 - want.peak) / (want.peak * 0.2)) + mean + sq((got.2 - want.pile_up) / 0.08)
        })
        .sum()
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

/// Grid search over the herding model's arrival process, rate and service
/// time; prints the ten closest settings.
#[test]
#[ignore = "a search, not a check: run it by hand (see the module docs)"]
fn search_herding_calibration() {
    let mut results = Vec::new();
    for even in [false, true] {
        for rate in (15..=25).map(|r| f64::from(r) / 10.0) {
            for service in 10..=30 {
                let cfg = herding::Config {
                    arrival_rate: rate,
                    service_time: service,
                    even_arrivals: even,
                    ..herding::Config::default()
                };
                results.push((herding_loss(&herding_table(&cfg)), cfg));
            }
        }
    }
    results.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (loss, cfg) in results.iter().take(10) {
        println!(
            "\nloss {loss:.2}: arrivals {}, λ = {}, service {}",
            if cfg.even_arrivals { "even" } else { "poisson" },
            cfg.arrival_rate,
            cfg.service_time
        );
        let mut misses = Vec::new();
        for (label, got, want) in herding_table(cfg) {
            herding_check(label, got, &want, &mut misses);
        }
        for m in misses {
            println!("  miss: {m}");
        }
    }
}

// ---- The cells no honest setting reaches ----

/// Every cell outside its tolerance at the defaults, with the modelling choice
/// that blocks it (the evidence is in docs/model.md, Calibration). A cell is
/// named as its miss line reads up to its value.
const KNOWN_GAPS: &[(&str, &str)] = &[
    (
        "random: TTFT P95",
        "exact live load counts: random's tail is ~1.7× round robin's, not 3.8×",
    ),
    ("random: SLO", "as above"),
    (
        "TTFT P95 order",
        "power of two beats round robin with two exact samples",
    ),
    (
        "least-outstanding: E2E P95",
        "an 837-tick E2E needs ~600-token long outputs, which break claims (c), (f), (g)",
    ),
    (
        "least-kv: TTFT P95",
        "least KV's collapse deepens with longer outputs, ruled out as above",
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
        "a lone router's exact count still misses completions since the scrape",
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
    let cells = routing_cells(&Config::default(), SEEDS);
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
    println!();
    for m in &misses {
        let why = KNOWN_GAPS
            .iter()
            .find(|(c, _)| *c == cell(m))
            .map_or("NOT A KNOWN GAP", |g| g.1);
        println!("known gap: {m} — {why}");
    }
    assert_eq!(
        missed,
        known,
        "the cells outside tolerance are not the documented ones:\n{}",
        misses.join("\n")
    );
}

// ---- The search ----

/// How far `cells` are from the article, as a sum of squared distances in
/// units of each cell's tolerance (a cell within tolerance adds at most 1),
/// plus 4 per pair of rules ranked the other way round on TTFT P95.
fn routing_loss(cells: &[(RuleKind, Cells)]) -> f64 {
    let mut loss = 0.0;
    for a in &ARTICLE_ROUTING {
        let (_, c) = cells
            .iter()
            .find(|(r, _)| *r == a.rule)
            .expect("textbook rule");
        let sq = |x: f64| x * x;
        loss += sq((c.ttft_p95.max(0.1) / a.ttft_p95).ln() / 1.3f64.ln());
        loss += sq((c.slo - a.slo) / 0.05);
        loss += sq((c.cache - a.cache) / 0.08);
        let gap_tol = if a.rule == RuleKind::LeastKv {
            15.0
        } else {
            5.0
        };
        loss += sq((c.gap - a.gap) / gap_tol);
        loss += sq((c.throughput - a.throughput) / (a.throughput * 0.2));
        if a.rule == RuleKind::LeastOutstanding {
            loss += sq((c.e2e_p95 - ARTICLE_E2E_P95_LO) / (ARTICLE_E2E_P95_LO * 0.25));
        }
    }
    let ours: Vec<(RuleKind, f64)> = cells.iter().map(|(r, c)| (*r, c.ttft_p95)).collect();
    for a in &ARTICLE_ROUTING {
        for b in &ARTICLE_ROUTING {
            let (oa, ob) = (
                ours.iter().find(|x| x.0 == a.rule).unwrap().1,
                ours.iter().find(|x| x.0 == b.rule).unwrap().1,
            );
            if a.ttft_p95 < b.ttft_p95 && oa >= ob {
                loss += 4.0;
            }
        }
    }
    loss
}

/// A configuration from URL-style pairs over the defaults.
fn with(pairs: &[(&str, String)]) -> Config {
    use sim_core::params::Configurable;
    let mut c = Config::default();
    for (k, v) in pairs {
        Config::param(k)
            .unwrap_or_else(|| panic!("no parameter {k}"))
            .set_text(&mut c, v)
            .unwrap_or_else(|e| panic!("{k}={v}: {e}"));
    }
    c
}

/// Random search over the model's documented choices, 20 seeds per candidate,
/// then the best few re-scored over 100 seeds. Prints the winners.
#[test]
#[ignore = "a search, not a check: run it by hand (see the module docs)"]
fn search_routing_calibration() {
    let space: &[(&str, &[&str])] = &[
        ("short-output-mean", &["25", "50", "100"]),
        ("long-output-mean", &["250", "400", "600", "700"]),
        ("short-output-cv", &["0.5", "1"]),
        ("long-output-cv", &["0.25", "0.5"]),
        ("slots", &["4", "8", "16", "32"]),
        ("prefill-budget", &["64", "128", "192", "320"]),
        ("kv-blocks", &["400", "600", "1000", "2000"]),
        ("cache-tokens", &["4096", "8192"]),
        ("prefix-pool", &["6"]),
        ("prefix-cover-min", &["0.5", "0.6"]),
        ("abs-threshold", &["4", "8"]),
        ("prompt-max", &["3079", "8192"]),
    ];
    let mut rng = sim_core::rng::Rng::new(2026, 99);
    let mut best: Vec<(f64, Vec<(&str, String)>)> = Vec::new();
    let start = with(&[]);
    let base_cells = routing_cells(&start, 1..=20);
    println!("defaults: loss {:.1}", routing_loss(&base_cells));
    let samples: usize = std::env::var("LBLAB_SEARCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    for _ in 0..samples {
        let pairs: Vec<(&str, String)> = space
            .iter()
            .map(|(k, vs)| (*k, vs[rng.index(vs.len())].to_string()))
            .collect();
        let cfg = with(&pairs);
        let cells = routing_cells(&cfg, 1..=20);
        let loss = routing_loss(&cells);
        let ours = rank(cells.iter().map(|(r, c)| (*r, c.ttft_p95)));
        let theirs = rank(ARTICLE_ROUTING.iter().map(|a| (a.rule, a.ttft_p95)));
        if ours[..3] == theirs[..3] {
            let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("rank head matches (loss {loss:.1}): {}", text.join(" "));
        }
        best.push((loss, pairs));
        best.sort_by(|a, b| a.0.total_cmp(&b.0));
        best.truncate(8);
    }
    for (loss20, pairs) in &best {
        let cfg = with(pairs);
        let cells = routing_cells(&cfg, SEEDS);
        let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "\nloss {:.1} over 20 seeds, {:.1} over 100: {}",
            loss20,
            routing_loss(&cells),
            text.join(" ")
        );
        print_routing(&cells);
        for m in routing_misses(&cells) {
            println!("  miss: {m}");
        }
    }
}

/// How far `cfg` falls short of the article's claims (a)–(f) at their stated
/// ratios over seeds 1–100: 0 when all hold, else 20 plus 100 per missing
/// share, per failing claim; with the ratios as text.
fn claims_penalty(cfg: &Config, runs: &[Outcome]) -> (f64, String) {
    let low_runs = routing_runs(
        &Config {
            rate: LOW_RATE,
            ..cfg.clone()
        },
        SEEDS,
    );
    let mut penalty = 0.0;
    let mut text = Vec::new();
    let mut add = |c: &lblab_tests::Claim, runs: &[Outcome]| {
        let ratio = runs.iter().filter(|o| (c.holds)(o)).count() as f64 / runs.len() as f64;
        text.push(format!("{} {:.0}%", &c.name[..3], ratio * 100.0));
        if ratio < c.needed {
            penalty += 20.0 + 100.0 * (c.needed - ratio);
        }
    };
    for c in &CLAIMS_AT_DEFAULTS {
        add(c, runs);
    }
    add(&CLAIM_AT_LOW_LOAD, &low_runs);
    (penalty, text.join(", "))
}

/// Coordinate descent from the search's best candidate over 100 seeds: each
/// pass tries every listed value of every parameter in turn and keeps a change
/// that lowers the loss plus the claims penalty, until a pass changes nothing.
#[test]
#[ignore = "a search, not a check: run it by hand (see the module docs)"]
fn refine_routing_calibration() {
    let space: &[(&str, &[&str])] = &[
        (
            "short-output-mean",
            &["60", "80", "100", "125", "150", "200"],
        ),
        ("long-output-mean", &["250", "300", "350", "400", "500"]),
        ("short-output-cv", &["0.25", "0.5", "0.75"]),
        ("long-output-cv", &["0.1", "0.25", "0.5"]),
        ("slots", &["5", "6", "7", "8", "9", "10"]),
        ("prefill-budget", &["160", "192", "256", "320"]),
        ("kv-blocks", &["600", "800", "1000"]),
        ("cache-tokens", &["4096", "6144", "8192", "12288"]),
        ("prefix-pool", &["4", "6", "8"]),
        ("prefix-cover-min", &["0.5", "0.6", "0.7"]),
        ("prefix-cover-max", &["0.9", "1"]),
        ("abs-threshold", &["4", "6", "8", "10"]),
        ("rel-threshold", &["1.5", "2"]),
        ("cache-threshold", &["0.2", "0.3", "0.4"]),
        ("prompt-min", &["64", "436"]),
        ("prompt-max", &["3079", "8192"]),
    ];
    // Start from the start given in LBLAB_REFINE_FROM (key=value pairs), or
    // from the defaults.
    let from = std::env::var("LBLAB_REFINE_FROM").unwrap_or_default();
    let mut current: Vec<(&str, String)> = space
        .iter()
        .map(|(k, _)| {
            use sim_core::params::Configurable;
            let given = from
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(&format!("{k}=")).map(str::to_string));
            let default = Config::param(k)
                .expect("listed")
                .get_text(&Config::default());
            (*k, given.unwrap_or(default))
        })
        .collect::<Vec<_>>();
    let score = |pairs: &[(&str, String)]| {
        let cfg = with(pairs);
        let runs = routing_runs(&cfg, SEEDS);
        routing_loss(&cells_of(&runs)) + claims_penalty(&cfg, &runs).0
    };
    let mut best = score(&current);
    let start = with(&current);
    println!(
        "start: loss {best:.2}; claims {}",
        claims_penalty(&start, &routing_runs(&start, SEEDS)).1
    );
    if std::env::var_os("LBLAB_REFINE_ONLY_SCORE").is_some() {
        print_routing(&cells_of(&routing_runs(&start, SEEDS)));
        return;
    }
    loop {
        let mut changed = false;
        for (key, values) in space {
            for v in values.iter() {
                let i = current.iter().position(|(k, _)| k == key).expect("listed");
                if current[i].1 == *v {
                    continue;
                }
                let mut trial = current.clone();
                trial[i].1 = v.to_string();
                let loss = score(&trial);
                if loss < best - 1e-9 {
                    println!("{key}={v}: loss {best:.2} → {loss:.2}");
                    best = loss;
                    current = trial;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let text: Vec<String> = current.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!("\nbest: loss {best:.2}: {}", text.join(" "));
    let runs = routing_runs(&with(&current), SEEDS);
    println!("claims: {}", claims_penalty(&with(&current), &runs).1);
    let cells = cells_of(&runs);
    print_routing(&cells);
    for m in routing_misses(&cells) {
        println!("  miss: {m}");
    }
}

/// The seeds whose own tables sit closest to the seed-median table (the same
/// loss, measured against the medians instead of the article): the default
/// seed is picked from these, so the page opens on a typical run rather than a
/// lucky or unlucky one.
#[test]
#[ignore = "a search, not a check: run it by hand (see the module docs)"]
fn most_typical_seeds() {
    let cfg = Config::default();
    let runs = routing_runs(&cfg, SEEDS);
    let medians = cells_of(&runs);
    let mut scored: Vec<(f64, u64)> = runs
        .iter()
        .zip(SEEDS)
        .map(|(o, seed)| {
            let own = cells_of(std::slice::from_ref(o));
            let sq = |x: f64| x * x;
            let d: f64 = own
                .iter()
                .zip(&medians)
                .map(|((_, a), (_, m))| {
                    sq((a.ttft_p95.max(0.1) / m.ttft_p95.max(0.1)).ln() / 1.3f64.ln())
                        + sq((a.slo - m.slo) / 0.05)
                        + sq((a.cache - m.cache) / 0.08)
                        + sq((a.gap - m.gap) / 5.0)
                        + sq((a.throughput - m.throughput) / (m.throughput * 0.2))
                        + sq((a.e2e_p95 - m.e2e_p95) / (m.e2e_p95 * 0.25))
                })
                .sum();
            (d, seed)
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (d, seed) in scored.iter().take(5) {
        println!("seed {seed}: distance {d:.2}");
        print_routing(&cells_of(std::slice::from_ref(&runs[(*seed - 1) as usize])));
    }
}
