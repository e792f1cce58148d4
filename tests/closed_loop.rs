//! Clients and load ramps (issue 27, deliverable 2): with `clients = N` no
//! more than N requests are ever in the pool, a request waits for a client
//! free of its last answer, and (at a rate far above the pool's) the offered
//! load follows the pool's speed; a `ramp` makes the generated rate climb
//! over the trace.

use sim_core::labs::routing::{self, Config};
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
