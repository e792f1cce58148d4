//! Clients and load ramps (issue 27, deliverable 2): with `clients = N` no
//! more than N requests are ever in the pool, a request waits for a client
//! free of its last answer, and (at a rate far above the pool's) the offered
//! load follows the pool's speed; a `ramp` makes the generated rate climb
//! over the trace; load `stages` send each stage at its rate and only once
//! every request of the stages before has its answer.

use sim_core::labs::routing::{self, parse_stages, Config};
use sim_core::routing::RuleKind;
use sim_core::workload::generator;

/// A closed loop: arrivals far faster than the pool (2 a tick), so the
/// clients alone pace the requests.
fn closed(clients: u32, think: f64, seed: u64) -> Config {
    Config {
        rate: 2.0,
        clients,
        think,
        seed,
        ..Config::default()
    }
}

/// Pass: with N clients no replica ever holds more than N requests and the
/// pool holds at most N on average; with one client the finishes come one
/// at a time. Seeds 1–20, all of them.
#[test]
fn clients_bound_the_requests_in_the_pool() {
    for seed in 1..=20 {
        for clients in [1u32, 3, 12] {
            let o = routing::run_rules(&closed(clients, 0.0, seed), &[RuleKind::LeastOutstanding])
                .expect("valid");
            let r = &o.rules[0];
            assert_eq!(
                r.completed, o.config.requests,
                "seed {seed}: every request finishes"
            );
            // No replica ever holds more than N, and on average the pool
            // holds at most N (the series keeps each replica's maxima per
            // bucket, which cannot be summed across replicas).
            let peak = r.queue.series.iter().flatten().copied().max().unwrap_or(0);
            assert!(
                peak <= clients,
                "seed {seed}, {clients} clients: {peak} requests on one replica at once"
            );
            let mean: f64 = r.replicas.iter().map(|x| x.mean_outstanding).sum();
            assert!(
                mean <= f64::from(clients) + 1e-9,
                "seed {seed}, {clients} clients: {mean} in the pool on average"
            );
            if clients == 1 {
                // Back to back: each request arrives the tick the previous
                // one's last token came out, so the finishes are spaced by
                // at least one request's service each.
                let mut f: Vec<u64> = r.finished_at.iter().map(|f| f.expect("finished")).collect();
                f.sort_unstable();
                assert!(
                    f.windows(2).all(|w| w[1] > w[0]),
                    "seed {seed}: one at a time"
                );
            }
        }
    }
    println!("closed loop: never more requests in the pool than clients (seeds 1–20 with 1, 3 and 12 clients)");
}

/// Pass: more clients offer more load, so the pool finishes the trace
/// sooner, but once they outnumber the batch slots (64 clients on 4 × 8
/// slots) requests queue and each waits longer for its first token; a think
/// time stretches the run. Checked in all of seeds 1–20.
#[test]
fn more_clients_more_throughput_and_longer_waits() {
    for seed in 1..=20 {
        let run = |c: Config| {
            routing::run_rules(&c, &[RuleKind::LeastOutstanding])
                .expect("valid")
                .rules[0]
                .clone()
        };
        let (few, many) = (run(closed(2, 0.0, seed)), run(closed(64, 0.0, seed)));
        assert!(
            many.ticks < few.ticks,
            "seed {seed}: 64 clients finish sooner than 2"
        );
        assert!(
            many.ttft_p50 > few.ttft_p50,
            "seed {seed}: and each waits longer: {} against {}",
            many.ttft_p50,
            few.ttft_p50
        );
        let thinking = run(closed(2, 200.0, seed));
        assert!(
            thinking.ticks > few.ticks,
            "seed {seed}: thinking stretches the run"
        );
    }
}

/// Pass: with `ramp = 10` the last tenth of the generated arrivals comes at
/// a rate at least 3× the first tenth's (the linear ramp gives 4.6×: the
/// first tenth arrives at 2.2 times the starting rate on average, the last
/// at 9.8 times), over seeds 1–20;
/// `ramp = 1` leaves the trace exactly as it was.
#[test]
fn a_ramp_climbs_and_no_ramp_changes_nothing() {
    for seed in 1..=20 {
        let base = Config {
            requests: 2000,
            seed,
            ..Config::default()
        };
        let steady = generator::generate(&base.generator(), seed);
        let ramped = generator::generate(
            &Config {
                ramp: 10.0,
                ..base.clone()
            }
            .generator(),
            seed,
        );
        let rate = |w: &sim_core::workload::Workload, from: usize, to: usize| {
            let span = w.requests[to].arrival.0 - w.requests[from].arrival.0;
            (to - from) as f64 / span.max(1) as f64
        };
        let (first, last) = (rate(&ramped, 0, 199), rate(&ramped, 1800, 1999));
        assert!(last > 3.0 * first, "seed {seed}: {first} then {last}");
        let mut same = base.clone();
        same.ramp = 1.0;
        assert_eq!(generator::generate(&same.generator(), seed), steady);
    }
}

/// Three stages in ticks: 20 requests at 0.2 a tick, 60 at 1.0 (far above
/// four replicas' pace, so a backlog builds), 20 at 0.2.
fn staged(seed: u64) -> Config {
    Config {
        requests: 100,
        stages: vec![[0.2, 100.0], [1.0, 60.0], [0.2, 100.0]],
        seed,
        ..Config::default()
    }
}

/// Pass: for every rule and seeds 1–20, no request of a stage is sent
/// before the last answer of the stages before it plus the one-tick pause,
/// and within a stage the requests keep the trace's gaps (the stage is moved
/// whole, not squeezed).
#[test]
fn a_stage_starts_once_the_one_before_is_answered() {
    for seed in 1..=20 {
        let config = staged(seed);
        let workload = generator::generate(&config.generator(), seed);
        let o = routing::run_rules_on(&config, &workload, RuleKind::ALL).expect("valid");
        for r in &o.rules {
            assert_eq!(r.completed, 100, "seed {seed} {:?}: all answered", r.rule);
            for (from, to) in [(0usize, 20usize), (20, 80), (80, 100)] {
                let answered = r.finished_at[..from]
                    .iter()
                    .map(|f| f.expect("finished"))
                    .max();
                if let Some(answered) = answered {
                    assert!(
                        r.sent_at[from] > answered,
                        "seed {seed} {:?}: request {from} sent at {} before the stage before was answered at {answered}",
                        r.rule,
                        r.sent_at[from]
                    );
                }
                for j in from..to - 1 {
                    let trace = workload.requests[j + 1].arrival.0 - workload.requests[j].arrival.0;
                    assert_eq!(
                        r.sent_at[j + 1] - r.sent_at[j],
                        trace,
                        "seed {seed} {:?}: gap after request {j}",
                        r.rule
                    );
                }
            }
        }
    }
}

/// Pass: each generated stage comes at its own rate: over seeds 1–20 the
/// busy middle stage's mean gap is within 10% of 1/1.0 ticks and the quiet
/// stages' within 10% of 1/0.2 (pooled over the seeds: 1,200 and 800 gaps).
#[test]
fn each_stage_comes_at_its_rate() {
    let (mut busy, mut quiet) = ((0u64, 0u64), (0u64, 0u64));
    for seed in 1..=20 {
        let w = generator::generate(&staged(seed).generator(), seed);
        let gap = |j: usize| w.requests[j + 1].arrival.0 - w.requests[j].arrival.0;
        busy.0 += (20..79).map(gap).sum::<u64>();
        busy.1 += 59;
        quiet.0 += (0..19).chain(80..99).map(gap).sum::<u64>();
        quiet.1 += 38;
    }
    let (b, q) = (
        busy.0 as f64 / busy.1 as f64,
        quiet.0 as f64 / quiet.1 as f64,
    );
    assert!((b - 1.0).abs() < 0.1, "busy stage: mean gap {b} ticks");
    assert!((q - 5.0).abs() < 0.5, "quiet stages: mean gap {q} ticks");
}

/// Pass: stages are read as `rate×duration` pairs and written back the
/// same way; a zero, a missing half, a word or a 65th stage is refused
/// with the rule it broke, and empty means no stages.
#[test]
fn stages_parse_and_refuse() {
    assert_eq!(
        parse_stages("3x20, 10×20").unwrap(),
        vec![[3.0, 20.0], [10.0, 20.0]]
    );
    assert_eq!(parse_stages(" ").unwrap(), Vec::<[f64; 2]>::new());
    for bad in ["3x0", "3", "x20", "fast", "3x20,", "-1x5"] {
        let e = parse_stages(bad).expect_err(bad);
        assert!(e.contains("rate×duration"), "{bad}: {e}");
    }
    let many = vec!["1x1"; 65].join(",");
    assert!(parse_stages(&many).is_err());
    assert_eq!(parse_stages(&vec!["1x1"; 64].join(",")).unwrap().len(), 64);
    let (c, errors) = sim_core::params::from_pairs::<Config>([("stages", "3x20,10.5x20")]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(c.stages, vec![[3.0, 20.0], [10.5, 20.0]]);
    let (_, errors) = sim_core::params::from_pairs::<Config>([("stages", "3x")]);
    assert_eq!(errors.len(), 1, "a bad stages value is one typed error");
}
