//! The searches behind the calibrated defaults (all ignored: run them by hand
//! with `cargo test --release -p lblab-tests --test calibration <name> --
//! --ignored --nocapture`). They print candidates; nothing here asserts.
//!
//! - `search_routing_calibration`: random search around the engine's first
//!   constants, scored by [`routing_loss`] over 20 seeds.
//! - `search_wide_routing`: random search in the long-output, many-slot regime
//!   the article's own figures suggest (TTFT median ~2 ticks with an 837-tick
//!   E2E P95), scored with the claims.
//! - `refine_routing_calibration`: coordinate descent from a start
//!   (`LBLAB_REFINE_FROM="key=value …"`, a key's first mention wins) that
//!   keeps claims (a)–(g) at their ratios on seeds 1–100 *and* 101–200, then
//!   prints the claims on seeds 201–300, which it never saw.
//! - `LBLAB_LOSS=hinge` makes the routing searches count cells outside
//!   tolerance ([`routing_hinge`]) instead of summing squared distances.
//! - `search_herding_calibration`: grid over arrivals, rate and service time.
//! - `most_typical_seeds`: the default seed.

use super::*;

/// How far a herding table is from the article's: squared distances in units
/// of each cell's tolerance.
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
                let rows = herding_table(&cfg);
                let mut misses = Vec::new();
                for (label, got, want) in &rows {
                    herding_misses(label, *got, want, &mut misses);
                }
                results.push((misses.len() as f64 * 100.0 + herding_loss(&rows), cfg));
            }
        }
    }
    results.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (loss, cfg) in results.iter().take(10) {
        println!(
            "\n100 × misses + loss = {loss:.2}: arrivals {}, λ = {}, service {}",
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

/// Each routing cell's signed distance from the article's figure, in units of
/// its tolerance (within tolerance means at most 1 either way).
fn distances(cells: &[(RuleKind, Cells)]) -> Vec<f64> {
    let mut d = Vec::new();
    for a in &ARTICLE_ROUTING {
        let (_, c) = cells
            .iter()
            .find(|(r, _)| *r == a.rule)
            .expect("textbook rule");
        d.push((c.ttft_p95.max(0.1) / a.ttft_p95).ln() / 1.3f64.ln());
        d.push((c.slo - a.slo) / 0.05);
        d.push((c.cache - a.cache) / 0.08);
        let gap_tol = if a.rule == RuleKind::LeastKv {
            15.0
        } else {
            5.0
        };
        d.push((c.gap - a.gap) / gap_tol);
        d.push((c.throughput - a.throughput) / (a.throughput * 0.2));
        if a.rule == RuleKind::LeastOutstanding {
            d.push((c.e2e_p95 - ARTICLE_E2E_P95_LO) / (ARTICLE_E2E_P95_LO * 0.25));
        }
    }
    d
}

/// Pairs of rules the article ranks one way on TTFT P95 and `cells` do not.
fn inverted_pairs(cells: &[(RuleKind, Cells)]) -> usize {
    let ours = |rule: RuleKind| {
        cells
            .iter()
            .find(|(r, _)| *r == rule)
            .expect("textbook rule")
            .1
            .ttft_p95
    };
    ARTICLE_ROUTING
        .iter()
        .flat_map(|a| ARTICLE_ROUTING.iter().map(move |b| (a, b)))
        .filter(|(a, b)| a.ttft_p95 < b.ttft_p95 && ours(a.rule) >= ours(b.rule))
        .count()
}

/// How far `cells` are from the article, as a sum of squared distances in
/// units of each cell's tolerance (a cell within tolerance adds at most 1),
/// plus 4 per pair of rules ranked the other way round on TTFT P95.
fn routing_loss(cells: &[(RuleKind, Cells)]) -> f64 {
    distances(cells).iter().map(|d| d * d).sum::<f64>() + 4.0 * inverted_pairs(cells) as f64
}

/// The search's objective when every cell must hold: 5 per cell outside its
/// tolerance plus how far outside (squared, in tolerance units), plus a small
/// pull toward the article's values; 5 per pair of rules in the wrong order.
fn routing_hinge(cells: &[(RuleKind, Cells)]) -> f64 {
    let cell = |d: &f64| {
        let over = (d.abs() - 1.0).max(0.0);
        0.05 * d * d + if over > 0.0 { 5.0 + over * over } else { 0.0 }
    };
    distances(cells).iter().map(cell).sum::<f64>() + 5.0 * inverted_pairs(cells) as f64
}

/// The objective the searches minimise: [`routing_hinge`] when
/// `LBLAB_LOSS=hinge`, else [`routing_loss`].
fn objective(cells: &[(RuleKind, Cells)]) -> f64 {
    if std::env::var("LBLAB_LOSS").as_deref() == Ok("hinge") {
        routing_hinge(cells)
    } else {
        routing_loss(cells)
    }
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
/// ratios over `seeds` (`runs` are its runs over them): 0 when all hold, else
/// 20 plus 100 per missing share, per failing claim; with the ratios as text.
fn claims_penalty(
    cfg: &Config,
    runs: &[Outcome],
    seeds: std::ops::RangeInclusive<u64>,
) -> (f64, String) {
    let low_runs = routing_runs(
        &Config {
            rate: LOW_RATE,
            ..cfg.clone()
        },
        seeds.clone(),
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
    let fast_runs = routing_runs_of(
        &Config {
            speeds: FAST_SPEEDS.to_vec(),
            ..cfg.clone()
        },
        seeds,
        &[RuleKind::LeastOutstanding, RuleKind::EnvoyLeastRequest],
    );
    for c in &CLAIMS_AT_DEFAULTS {
        add(c, runs);
    }
    add(&CLAIM_AT_LOW_LOAD, &low_runs);
    add(&CLAIM_ON_A_FAST_REPLICA, &fast_runs);
    (penalty, text.join(", "))
}

/// The claims of `cfg` on seeds 101–200 (which the descent keeps them on
/// besides 1–100) and 201–300 (which it never sees): a setting that holds a
/// claim on one seed set by a point may not hold it on another.
fn print_claims_beyond(cfg: &Config) {
    for seeds in [101..=200, 201..=300] {
        let runs = routing_runs(cfg, seeds.clone());
        println!(
            "claims on seeds {seeds:?}: {}",
            claims_penalty(cfg, &runs, seeds.clone()).1
        );
    }
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
            &["60", "80", "100", "125", "150", "175", "200"],
        ),
        (
            "long-output-mean",
            &[
                "250", "300", "350", "400", "500", "600", "650", "700", "750", "800", "850", "900",
            ],
        ),
        ("short-output-cv", &["0.25", "0.5", "0.75"]),
        (
            "long-output-cv",
            &["0.1", "0.25", "0.5", "0.6", "0.75", "0.9", "1"],
        ),
        (
            "slots",
            &["5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "16"],
        ),
        (
            "prefill-budget",
            &["160", "192", "224", "256", "320", "384", "512"],
        ),
        (
            "kv-blocks",
            &["600", "700", "800", "900", "1000", "1500", "2000", "3000"],
        ),
        ("cache-tokens", &["4096", "6144", "8192", "12288", "16384"]),
        ("prefix-pool", &["4", "5", "6", "7", "8"]),
        ("prefix-cover-min", &["0.5", "0.6", "0.7"]),
        ("prefix-cover-max", &["0.9", "1"]),
        ("abs-threshold", &["4", "6", "8", "9", "10", "11", "12"]),
        ("rel-threshold", &["1.5", "2"]),
        ("cache-threshold", &["0.2", "0.3", "0.4"]),
        ("prompt-min", &["64", "436"]),
        ("prompt-max", &["3079", "8192"]),
        ("burstiness", &["0.5", "0.7", "1"]),
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
        // The claims must hold on seeds 101–200 too, so a setting does not
        // pass them by the luck of one seed set.
        let more = routing_runs(&cfg, 101..=200);
        objective(&cells_of(&runs))
            + claims_penalty(&cfg, &runs, SEEDS).0
            + claims_penalty(&cfg, &more, 101..=200).0
    };
    let mut best = score(&current);
    let start = with(&current);
    println!(
        "start: loss {best:.2}; claims {}",
        claims_penalty(&start, &routing_runs(&start, SEEDS), SEEDS).1
    );
    if std::env::var_os("LBLAB_REFINE_ONLY_SCORE").is_some() {
        print_claims_beyond(&start);
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
    println!(
        "claims: {}",
        claims_penalty(&with(&current), &runs, SEEDS).1
    );
    print_claims_beyond(&with(&current));
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

/// Random search in the regime the article's own figures point to (TTFT
/// median ~2 ticks yet E2E P95 ~837: many slots, long outputs), scored by the
/// loss plus the claims penalty over 20 seeds; the best re-scored over 100.
#[test]
#[ignore = "a search, not a check: run it by hand (see the module docs)"]
fn search_wide_routing() {
    let space: &[(&str, &[&str])] = &[
        ("short-output-mean", &["50", "100", "150", "200"]),
        ("short-output-cv", &["0.25", "0.5"]),
        ("long-output-mean", &["400", "500", "600", "700", "800"]),
        ("long-output-cv", &["0.25", "0.5", "0.75", "1"]),
        ("slots", &["8", "10", "12", "14", "16", "20"]),
        ("prefill-budget", &["128", "160", "192", "256", "320"]),
        ("kv-blocks", &["600", "800", "1000", "1500", "3000"]),
        ("cache-tokens", &["4096", "8192", "12288", "16384"]),
        ("prefix-cover-min", &["0.5", "0.6"]),
        ("abs-threshold", &["4", "8", "10", "12"]),
        ("cache-threshold", &["0.2", "0.3"]),
        ("prompt-min", &["64", "436"]),
        ("prompt-max", &["3079", "8192"]),
        ("burstiness", &["0.5", "0.7", "1"]),
        ("prefix-pool", &["4", "6", "8"]),
    ];
    let samples: usize = std::env::var("LBLAB_SEARCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let mut rng = sim_core::rng::Rng::new(2027, 7);
    let cands: Vec<Vec<(&str, String)>> = (0..samples)
        .map(|_| {
            space
                .iter()
                .map(|(k, vs)| (*k, vs[rng.index(vs.len())].to_string()))
                .collect()
        })
        .collect();
    let score = |pairs: &Vec<(&str, String)>, seeds: std::ops::RangeInclusive<u64>| {
        let cfg = with(pairs);
        let runs = routing_runs(&cfg, seeds.clone());
        let (pen, text) = claims_penalty(&cfg, &runs, seeds);
        (objective(&cells_of(&runs)), pen, text)
    };
    let mut scored: Vec<(f64, f64, usize)> = std::thread::scope(|s| {
        let halves: Vec<_> = (0..2)
            .map(|h| {
                let cands = &cands;
                let score = &score;
                s.spawn(move || {
                    (h..cands.len())
                        .step_by(2)
                        .map(|i| {
                            let (l, p, _) = score(&cands[i], 1..=20);
                            (l, p, i)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        halves
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    scored.sort_by(|a, b| (a.0 + a.1).total_cmp(&(b.0 + b.1)));
    for (l, p, i) in scored.iter().take(6) {
        let (l100, p100, text) = score(&cands[*i], 1..=100);
        let kv: Vec<String> = cands[*i].iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "\n20 seeds: loss {l:.1} + claims {p:.1}; 100 seeds: loss {l100:.1} + claims {p100:.1} ({text})\n  {}",
            kv.join(" ")
        );
        let cfg = with(&cands[*i]);
        let fresh = routing_runs(&cfg, 101..=200);
        println!(
            "  claims on seeds 101..=200: {}",
            claims_penalty(&cfg, &fresh, 101..=200).1
        );
        let cells = routing_cells(&cfg, SEEDS);
        print_routing(&cells);
        for m in routing_misses(&cells) {
            println!("  miss: {m}");
        }
    }
}
