//! The Routing Lab against published deployments (issue 27, deliverable 5):
//! every scenario of `sim_core::labs::validation::scenarios` over seeds
//! 1–20, the seeds `lblab validate` runs. A scenario holds when the source's
//! rank order of its policies, by throughput and by TTFT, comes out in at
//! least 80% of the seeds, and the headline ratios at the seed median are
//! within 1.5× (throughput) and 5× (TTFT) of the published ones.
//!
//! A scenario the lab cannot reproduce is listed in [`BLOCKED`] with the
//! modelling choice that blocks it; the test checks it still fails (so the
//! list cannot go stale when the model improves). Issue 27 asks for two of
//! its three to hold; two do (llm-d and KubeAI), and the count is printed.
//! Issue 51 added llm-d run by its own pipeline and the SGLang gateway
//! with a host tier; neither holds (the reasons are in [`BLOCKED`]).

use sim_core::labs::validation::{self, scenarios, Validation};

/// Scenarios that do not hold, and the modelling choice that blocks each
/// (the same words close the scenario's gaps in `lblab validate`).
const BLOCKED: &[(&str, &str)] = &[
    (
        "llm-d-pipeline",
        "llm-d's own pipeline (precise prefix 2, KV 1, queue 1) spreads the groups evenly and the lab's engines serve \
         its cache hits faster than the source's stack: TTFT p90 about 0.07 s against 0.542 s, so random over precise \
         is about 1,100× where the source measured 171×; the ranks and the throughput ratio hold",
    ),
    (
        "smg-tiers",
        "a host tier raises the cache share from about 1% to a quarter and both rules' throughput (16.9 and 15.4 \
         req/s against 13.6), but the lab's engines stay saturated at 32 req/s under every rule, so cache-aware is \
         1.10× round robin where the source measured 2.49×",
    ),
    (
        "smg",
        "the lab's engine turns cache hits into saved prefill only: 26.5% against 17.4% of prompt tokens \
         saves about a tenth of the work, not the 2.5× throughput the source measured, and the source's \
         round robin (median TTFT 136 ms, mean 15 s) had requests stuck for minutes in a way the lab's \
         engines do not reproduce",
    ),
];

fn run(s: &validation::Scenario) -> Validation {
    let seeds: Vec<u64> = (1..=20).collect();
    validation::validate(s, &seeds, &|_, _| {}).expect("every scenario's setup is valid")
}

/// Pass: every scenario not in [`BLOCKED`] holds on all four judged lines,
/// every scenario in it fails at least one, and the whole printout equals
/// the reviewed `tests/golden/validate.txt` (`lblab validate`'s output; on a
/// change, `validate-changed.txt` is written beside it for review).
#[test]
fn published_deployments_hold() {
    let mut held = 0;
    let mut printed = String::new();
    for s in scenarios::ALL {
        let v = run(s);
        let text = validation::text(&v);
        println!("{text}");
        printed.push_str(&text);
        printed.push('\n');
        match BLOCKED.iter().find(|(id, _)| *id == s.id) {
            Some((_, why)) => {
                println!("{}: not reproduced, because {why}", s.id);
                assert!(!v.holds(), "{} now holds: take it off BLOCKED", s.id);
            }
            None => {
                assert!(
                    v.throughput_order_holds(),
                    "{}: throughput order in {}/20",
                    s.id,
                    v.throughput_order
                );
                assert!(
                    v.ttft_order_holds(),
                    "{}: TTFT order in {}/20",
                    s.id,
                    v.ttft_order
                );
                assert!(
                    v.throughput_ratio_holds(),
                    "{}: throughput ratio {} against {}",
                    s.id,
                    v.throughput_ratio.median,
                    v.published_throughput_ratio()
                );
                assert!(
                    v.ttft_ratio_holds(),
                    "{}: TTFT ratio {} against {}",
                    s.id,
                    v.ttft_ratio.median,
                    v.published_ttft_ratio()
                );
                held += 1;
            }
        }
    }
    println!("{held} of {} scenarios hold", scenarios::ALL.len());
    assert!(
        held >= 2,
        "issue 27 asks for two of its three scenarios; {held} hold"
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let expected = std::fs::read_to_string(dir.join("validate.txt")).unwrap_or_default();
    if expected != printed {
        std::fs::write(dir.join("validate-changed.txt"), &printed).expect("write the changed file");
        panic!("lblab validate's figures changed: review tests/golden/validate-changed.txt");
    }
}

/// Pass: the rank-order checks (all pairs, and one figure against the rest)
/// treat pairs within 10% as ties and see a swapped clear pair.
#[test]
fn rank_order_ties_and_swaps() {
    use validation::same_order;
    // Published 100 > 50 ≈ 48 (higher is better).
    let p = [100.0, 50.0, 48.0];
    assert!(same_order(&p, &[9.0, 3.0, 4.0], true), "the tie may swap");
    assert!(
        !same_order(&p, &[3.0, 9.0, 4.0], true),
        "a clear pair may not"
    );
    assert!(
        !same_order(&p, &[9.0, 9.0, 4.0], true),
        "a clear pair may not tie"
    );
    // Lower is better for TTFT.
    assert!(same_order(&[0.5, 30.0], &[0.1, 2.0], false));
    assert!(!same_order(&[0.5, 30.0], &[2.0, 0.1], false));
    // One figure at a time: the first stands where it should, the second
    // is below the tied third only (allowed), then above the first (not).
    use validation::in_order;
    assert!(in_order(&p, &[9.0, 3.0, 4.0], 0, true));
    assert!(in_order(&p, &[9.0, 3.0, 4.0], 1, true));
    assert!(!in_order(&p, &[3.0, 9.0, 4.0], 1, true));
    assert!(!in_order(&p, &[3.0, 9.0, 4.0], 0, true));
}

/// Pass: every scenario's setup is a valid Routing Lab configuration, and its
/// link and command name each setting; a scenario measured stage by stage
/// sends all its requests in its stages and measures one past its warm-up.
#[test]
fn setups_are_valid_links() {
    for s in scenarios::ALL {
        let c = s.config().unwrap_or_else(|e| panic!("{}: {e}", s.id));
        assert!(c.timing.in_ms(), "{} runs in milliseconds", s.id);
        assert!(s.link().starts_with("?lab=routing&gpu="));
        // The stages the figures are averaged over are the stages the run
        // sends, every request of the run in one, and one at least is
        // measured past the warm-up.
        let plan: Vec<u32> = c.stage_plan().iter().map(|p| p.1).collect();
        if !plan.is_empty() {
            assert_eq!(plan.iter().sum::<u32>(), c.requests, "{}: requests", s.id);
        }
        assert!(
            s.warm_up < plan.len().max(1),
            "{}: a stage left to measure",
            s.id
        );
        assert_eq!(
            s.command().matches(" --").count(),
            s.setup.split('&').count(),
            "{}",
            s.id
        );
    }
}

/// Pass: the web page's path (each seed measured in its worker, the figures
/// encoded, read back and summarised where the page draws) gives exactly what
/// `validate` gives, and a cut-short buffer is refused.
#[test]
fn packed_figures_summarise_to_what_validate_gives() {
    let s = scenarios::find("smg").expect("smg is a scenario");
    let seeds = [1, 2, 3];
    let direct = validation::validate(s, &seeds, &|_, _| {}).expect("valid setup");
    let mut all = Vec::new();
    for &seed in &seeds {
        all.extend(validation::measure(s, seed).expect("valid setup"));
    }
    let bytes = sim_core::labs::encode(&all).expect("encodes");
    let back: Vec<(f64, f64)> = sim_core::labs::decode(&bytes).expect("whole figures");
    assert_eq!(back, all, "bit for bit");
    let per_seed: Vec<Vec<(f64, f64)>> =
        back.chunks(s.published.len()).map(<[_]>::to_vec).collect();
    let summarised = validation::summarise(s, &seeds, &per_seed);
    assert_eq!(validation::text(&summarised), validation::text(&direct));
    assert_eq!(
        validation::figure_rows(&summarised).len(),
        2 * s.published.len()
    );
    assert!(sim_core::labs::decode::<Vec<(f64, f64)>>(&bytes[..bytes.len() - 1]).is_err());
    assert!(scenarios::find("nope").is_none());
}

/// The rank column speaks of the rank only: the row the review found
/// (a TTFT mean 20.8× the published one, ranked as the source ranks it)
/// must not read "as published".
#[test]
fn the_rank_words_do_not_claim_the_figure_is_published() {
    for in_order in [true, false] {
        let w = validation::rank_verdict(in_order).to_lowercase();
        assert!(w.contains("rank"), "{w}");
        assert!(!w.contains("as published"), "{w}");
    }
    assert_ne!(
        validation::rank_verdict(true),
        validation::rank_verdict(false)
    );
}
