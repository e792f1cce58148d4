//! The Routing Lab's rules run in parts and joined (`sim_core::labs::fork`,
//! what `lblab routing` does on a machine with several cores) give the run
//! of all of them byte for byte: its JSON and the page's bytes with the
//! player's recording, whatever order the parts run in and however many
//! there are.

use sim_core::hardware::{Gpu, Timing};
use sim_core::labs::fork::{self, Threads};
use sim_core::labs::routing::{Config, RoutingLab};
use sim_core::labs::{encode, Input, Lab, TraceInput};
use sim_core::routing::RuleKind;
use sim_core::workload::trace::{ImportOptions, ParsedTrace};

/// Every part on the calling thread, last part first.
fn backwards(jobs: &mut [&mut (dyn FnMut() + Send)]) {
    for job in jobs.iter_mut().rev() {
        job();
    }
}

/// Every part on a thread of its own.
fn threaded(jobs: &mut [&mut (dyn FnMut() + Send)]) {
    std::thread::scope(|s| {
        for job in jobs.iter_mut() {
            s.spawn(job);
        }
    });
}

fn same(config: &Config, input: &Input<'_, RuleKind>, what: &str) {
    let whole = RoutingLab::run(config, input).expect("the whole run");
    let json = serde_json::to_string(&whole).expect("json");
    let bytes = encode(&whole).expect("bytes");
    for ways in [2, 3, 4, 16] {
        for (name, run) in [
            (
                "backwards",
                backwards as fn(&mut [&mut (dyn FnMut() + Send)]),
            ),
            ("threaded", threaded),
        ] {
            let joined = fork::run::<RoutingLab>(config, input, Some(Threads { ways, fork: &run }))
                .expect("the parts");
            assert_eq!(
                serde_json::to_string(&joined).expect("json"),
                json,
                "{what}: {ways} parts, {name}: JSON"
            );
            assert_eq!(
                encode(&joined).expect("bytes"),
                bytes,
                "{what}: {ways} parts, {name}: the page's bytes"
            );
        }
    }
}

#[test]
fn parts_join_into_the_run_of_every_rule() {
    let quiet = |_: u32, _: u32| {};
    let ms = Config {
        timing: Timing {
            gpu: Some(Gpu::H100),
            ..Default::default()
        },
        ..Config::default()
    };
    let configs = [
        ("defaults", Config::default()),
        (
            "counterfactuals, seed 7, 8 replicas",
            Config {
                counterfactuals: true,
                seed: 7,
                replicas: 8,
                ..Config::default()
            },
        ),
        (
            "a fast replica and one added",
            Config {
                speeds: vec![2.0, 1.0, 1.0, 1.0],
                scale_up_at: 200,
                ..Config::default()
            },
        ),
        ("milliseconds", ms),
    ];
    let player: &[RuleKind] = &[RuleKind::LeastOutstanding, RuleKind::RoundRobin];
    let some: &[RuleKind] = &[RuleKind::DynamoKv, RuleKind::Random, RuleKind::PrefixAware];
    for (what, config) in &configs {
        for (record, only) in [(&[][..], &[][..]), (player, &[][..]), (player, some)] {
            let input = Input {
                trace: None,
                only,
                record,
                progress: &quiet,
            };
            same(
                config,
                &input,
                &format!("{what}, recording {record:?}, only {only:?}"),
            );
        }
    }
}

#[test]
fn parts_of_a_trace_replay_join_too() {
    let text = include_str!("../assets/traces/mooncake_conversation_first2000.jsonl");
    let parsed = ParsedTrace::parse(text).expect("the bundled excerpt parses");
    let options = ImportOptions::default();
    let quiet = |_: u32, _: u32| {};
    let input = Input {
        trace: Some(TraceInput {
            parsed: &parsed,
            options: &options,
        }),
        only: &[],
        record: &[RuleKind::PrefixAware, RuleKind::LeastOutstanding],
        progress: &quiet,
    };
    same(&Config::default(), &input, "the Mooncake excerpt");
}

#[test]
fn one_way_or_a_lab_that_does_not_join_runs_once() {
    // One part, or a lab without `join`: the same as `Lab::run`, not an error.
    let quiet = |_: u32, _: u32| {};
    let input = Input {
        trace: None,
        only: &[],
        record: &[],
        progress: &quiet,
    };
    let whole = RoutingLab::run(&Config::default(), &input).expect("whole");
    let one = fork::run::<RoutingLab>(
        &Config::default(),
        &input,
        Some(Threads {
            ways: 1,
            fork: &backwards,
        }),
    )
    .expect("one part");
    assert_eq!(encode(&one).expect("bytes"), encode(&whole).expect("bytes"));
    use sim_core::labs::herding::HerdingLab;
    let herding = <HerdingLab as Lab>::Config::default();
    let all = Input::all();
    let a = HerdingLab::run(&herding, &all).expect("herding");
    let b = fork::run::<HerdingLab>(
        &herding,
        &all,
        Some(Threads {
            ways: 4,
            fork: &backwards,
        }),
    )
    .expect("herding, forked");
    assert_eq!(encode(&a).expect("bytes"), encode(&b).expect("bytes"));
}
