//! Queueing and overload figures (article §1.2, §9.1, §10.2), exactly, plus the
//! simulations that show the formulas hold.

use sim_core::labs::queueing::{cascade, knee, retries};

#[test]
fn usable_utilization_at_three_service_times() {
    let o = knee::run(&knee::Config::default()).expect("valid");
    let u: Vec<f64> = o.curves[..3].iter().map(|c| c.usable_utilization).collect();
    assert!((u[0] - 6.0 / 7.0).abs() < 1e-12, "{}", u[0]);
    assert!((u[1] - 3.0 / 4.0).abs() < 1e-12, "{}", u[1]);
    assert!((u[2] - 6.0 / 11.0).abs() < 1e-12, "{}", u[2]);
    let shown: Vec<String> = u.iter().map(|x| format!("{x:.2}")).collect();
    assert_eq!(shown, ["0.86", "0.75", "0.55"]);
    // At the same utilisation a CV² of 4 waits 2.5× the exponential case.
    assert!(
        (knee::pollaczek_khinchine(0.6, 4.0) / knee::pollaczek_khinchine(0.6, 1.0) - 2.5).abs()
            < 1e-12
    );
}

#[test]
fn simulated_mg1_wait_is_within_ten_percent_of_the_formula() {
    for cs2 in [0.0, 1.0, 4.0] {
        for rho in [0.5, 0.7] {
            let p = knee::simulate(rho, 1.0, cs2, 2_000_000, 7);
            let pk = knee::pollaczek_khinchine(rho, cs2);
            let err = (p.mean_wait - pk).abs() / pk;
            println!(
                "CV² {cs2}, ρ {rho}: simulated {:.3} ± {:.3}, formula {pk:.3} ({:.1}% off)",
                p.mean_wait,
                p.band,
                err * 100.0
            );
            assert!(
                err < 0.10,
                "CV² {cs2} ρ {rho}: {:.3} vs {pk:.3}",
                p.mean_wait
            );
        }
    }
}

#[test]
fn retries_multiply_across_layers() {
    assert_eq!(retries::running_product(&[3, 4, 4, 3]), [3, 12, 48, 144]);
    let o = retries::run(&retries::Config::default()).expect("valid");
    assert_eq!(o.upstream_calls, 144);
}

#[test]
fn a_retry_budget_caps_upstream_calls_during_the_incident() {
    let cfg = retries::Config::default();
    let o = retries::run(&cfg).expect("valid");
    let window = cfg.incident_start as usize..(cfg.incident_start + cfg.incident_length) as usize;
    let worst = |s: &[f64]| s[window.clone()].iter().copied().fold(0.0, f64::max);
    println!(
        "peak calls per action in the incident: every layer {:.1}, one layer {:.2}, budgeted {:.3}",
        worst(&o.every_layer),
        worst(&o.one_layer),
        worst(&o.budgeted)
    );
    assert!(
        worst(&o.budgeted) <= 1.1,
        "budgeted peak {}",
        worst(&o.budgeted)
    );
    assert!(
        worst(&o.every_layer) > 50.0,
        "retrying everywhere amplifies"
    );
    assert!(worst(&o.one_layer) > worst(&o.budgeted));
    // Outside the incident everyone makes about one call per action.
    assert!(o.every_layer[5] < 1.1 && o.budgeted[5] <= 1.1);
}

#[test]
fn escalating_the_top_tenth_of_an_exponential() {
    let c = cascade::cascade(0.1, 2_000_000, 3).expect("valid");
    let l = 10f64.ln();
    assert!((c.cv2 - 1.0 / ((1.0 + l) * (1.0 + l))).abs() < 1e-12);
    assert!((c.mean_ratio - (1.0 + l)).abs() < 1e-12);
    assert_eq!(format!("{:.2}", c.cv2), "0.09");
    assert_eq!(format!("{:.1}", c.mean_ratio), "3.3");
    assert!(
        (c.sampled.0 - c.cv2).abs() < 0.01,
        "sampled C² {}",
        c.sampled.0
    );
    assert!(
        (c.sampled.1 - c.mean_ratio).abs() < 0.05,
        "sampled mean {}",
        c.sampled.1
    );
}

#[test]
fn hedging_at_p95_trims_the_tail_for_about_five_percent_more_load() {
    use sim_core::labs::queueing::hedging;
    let o = hedging::run(&hedging::Config::default()).expect("valid");
    let get = |n: &str| {
        o.strategies
            .iter()
            .find(|s| s.strategy == n)
            .expect("strategy")
    };
    let (none, hedge, always) = (get("none"), get("hedge"), get("always"));
    assert!(
        (hedge.extra_load - 0.05).abs() < 0.002,
        "hedging at P95 duplicates 5%: {}",
        hedge.extra_load
    );
    assert!(
        hedge.p99 < none.p99 * 0.8,
        "the tail shrinks: {} vs {}",
        hedge.p99,
        none.p99
    );
    assert_eq!(always.extra_load, 1.0);
    assert!(hedge.extra_work < 0.1);
    let (ft, full) = (get("hedge-first-token"), get("duplicate-full"));
    // Cancelling at the first token duplicates only prefill (30% of a request here).
    assert!(
        ft.extra_work < full.extra_work * 0.4,
        "first-token hedging spends far less: {} vs {}",
        ft.extra_work,
        full.extra_work
    );
    assert_eq!(ft.p99, full.p99, "same hedge, same latency");
    assert!(ft.p99 < none.p99);
}

#[test]
fn cache_hits_raise_the_little_ceiling() {
    use sim_core::labs::queueing::little;
    let o = little::run(&little::Config::default()).expect("valid");
    // 8,100 tokens in 16-token blocks = 507 blocks; 20,000 blocks hold 39 sequences.
    assert_eq!((o.blocks_per_sequence, o.l_max), (507, 39));
    // W = 8,000 / 320 prefill ticks + 100 decode ticks = 125.
    assert!((o.residency - 125.0).abs() < 1e-12);
    assert!((o.lambda_max - 39.0 / 125.0).abs() < 1e-12);
    // Three quarters of the prompt from cache: W = 6.25 + 100.
    assert!((o.lambda_max_cached - 39.0 / 106.25).abs() < 1e-12);
    // With no cache hits the two ceilings agree; more hits, higher ceiling.
    let none = little::run(&little::Config {
        cache_hit: 0.0,
        ..little::Config::default()
    })
    .expect("valid");
    assert_eq!(none.lambda_max_cached, none.lambda_max);
    assert_eq!(o.ceiling_at(0.0), o.lambda_max);
    assert!((o.ceiling_at(0.75) - o.lambda_max_cached).abs() < 1e-12);
    assert!(o.lambda_max_cached > o.lambda_max);
}

#[test]
fn a_seeded_replica_with_variable_outputs_completes_lmax_over_w_per_tick() {
    use sim_core::labs::queueing::little;
    for (seed, output) in [(1, 100), (2, 20), (3, 1000)] {
        let o = little::run(&little::Config {
            output_tokens: output,
            seed,
            ..little::Config::default()
        })
        .expect("valid");
        let c = &o.check;
        let err = (c.throughput - o.lambda_max_cached).abs() / o.lambda_max_cached;
        println!(
            "output {output}: measured {:.4} req/tick over {} sequences (mean W {:.1}), formula {:.4} ({:.2}% off)",
            c.throughput,
            c.sequences,
            c.mean_residency,
            o.lambda_max_cached,
            err * 100.0
        );
        assert!(err < 0.02, "output {output}: {err}");
        assert!(c.sequences > 1000);
    }
}
