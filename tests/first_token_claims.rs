//! The article's claims about the first token (§9.4, §9.5), tested over
//! seeds 1–100 with a stated pass ratio each. Every strategy of a run sees
//! the same conversations and, attempt by attempt, the same failure draws,
//! so the comparisons inside a run are paired; runs compared across
//! settings share their seed.

use sim_core::labs::first_token::{self, Config, HedgeUntil, Recovery, RecoveryRun, Route};

const SEEDS: u64 = 100;

fn runs(seed: u64, change: impl Fn(&mut Config)) -> Vec<RecoveryRun> {
    let mut c = Config {
        seed,
        ..Config::default()
    };
    change(&mut c);
    first_token::run(&c, &[], &[]).expect("valid").runs
}

fn of(runs: &[RecoveryRun], r: Recovery) -> &RecoveryRun {
    runs.iter()
        .find(|x| x.recovery == r)
        .expect("every strategy runs")
}

/// §9.4: recovery works only before the first visible token. Retrying on
/// another replica turns almost every failure before it into an answer the
/// user never knew was late (errors fall by at least 90% against no
/// recovery), but cannot touch a failure after it: the broken streams stay
/// (at least half as many as with no recovery; the turns differ, since a
/// conversation goes on only after an answer). Resuming from the text shown
/// is what saves those: at most a tenth of retry's broken streams are left.
/// Pass ratio: 95 of 100 seeds.
#[test]
fn recovery_before_the_first_token_is_unseen_and_after_it_breaks_the_stream() {
    let mut held = 0;
    for seed in 1..=SEEDS {
        let r = runs(seed, |_| {});
        let (none, retry, resume) = (
            of(&r, Recovery::None),
            of(&r, Recovery::Retry),
            of(&r, Recovery::Resume),
        );
        if seed == 1 {
            println!(
                "seed 1: errors none {} retry {}; broken none {} retry {} resume {} (resumed {})",
                none.errors, retry.errors, none.broken, retry.broken, resume.broken, resume.resumed
            );
        }
        let saved = f64::from(retry.errors) <= 0.1 * f64::from(none.errors.max(1));
        let stays = none.broken > 0 && f64::from(retry.broken) >= 0.5 * f64::from(none.broken);
        let resumed =
            f64::from(resume.broken) <= 0.1 * f64::from(retry.broken) && resume.resumed > 0;
        held += usize::from(saved && stays && resumed);
    }
    println!("retry saves the early failures, not the broken streams; resume saves those: {held}/{SEEDS} seeds");
    assert!(held >= 95, "{held}/{SEEDS}");
}

/// §9.5: a reasoning model shows nothing while it reasons, so a failure
/// during the reasoning is still one a retry hides. At the same failure
/// rates, with retries, a smaller share of the failures come after the
/// first visible token with reasoning than without, and fewer streams
/// break. Pass ratio: 95 of 100 seeds.
#[test]
fn reasoning_moves_the_commitment_point_later() {
    let mut held = 0;
    for seed in 1..=SEEDS {
        let think = runs(seed, |_| {});
        let plain = runs(seed, |c| c.reasoning = false);
        let (t, p) = (of(&think, Recovery::Retry), of(&plain, Recovery::Retry));
        let after = |x: &RecoveryRun| {
            f64::from(x.failures_after) / f64::from((x.failures_before + x.failures_after).max(1))
        };
        if seed == 1 {
            println!(
                "seed 1: failures after the first visible token {:.0}% with reasoning, {:.0}% without; broken {} against {}",
                100.0 * after(t),
                100.0 * after(p),
                t.broken,
                p.broken
            );
        }
        held += usize::from(after(t) < after(p) && t.broken < p.broken);
    }
    println!("reasoning leaves fewer failures after the first visible token: {held}/{SEEDS} seeds");
    assert!(held >= 95, "{held}/{SEEDS}");
}

/// §9.5 against §9.2: a reasoning model's hedge is cancelled at the first
/// visible token, while both copies are still in their hidden phase, so the
/// losing copy's tokens are part of a reasoning budget. A plain model's first
/// token comes at once, so the only hedge that covers its slow or failing
/// decode races the whole answer (`hedge-until end`), and its losing copy
/// decodes most of an answer. Per hedge sent, the reasoning model's cancelled
/// copy costs a smaller share of a whole answer (hidden and visible tokens)
/// than the plain model's. Pass ratio: 95 of 100 seeds.
#[test]
fn with_reasoning_a_hedge_costs_less_of_an_answer_than_a_plain_models() {
    let mut held = 0;
    let (mut think_sum, mut plain_sum) = (0.0, 0.0);
    for seed in 1..=SEEDS {
        let think = runs(seed, |_| {});
        let plain = runs(seed, |c| {
            c.reasoning = false;
            c.hedge_until = HedgeUntil::End;
        });
        let (t, p) = (of(&think, Recovery::Hedge), of(&plain, Recovery::Hedge));
        think_sum += t.hedge_cost;
        plain_sum += p.hedge_cost;
        if seed == 1 {
            println!(
                "seed 1: a hedge cost {:.2} of an answer with reasoning ({} hedges), {:.2} on a plain model racing whole answers ({} hedges; broken streams {} against {} with retries alone)",
                t.hedge_cost,
                t.hedges,
                p.hedge_cost,
                p.hedges,
                p.broken,
                of(&plain, Recovery::Retry).broken
            );
        }
        held += usize::from(t.hedges > 0 && p.hedges > 0 && t.hedge_cost < p.hedge_cost);
    }
    println!(
        "a reasoning model's hedge costs less of an answer than a plain model's race: {held}/{SEEDS} seeds (mean {:.2} against {:.2})",
        think_sum / SEEDS as f64,
        plain_sum / SEEDS as f64
    );
    assert!(held >= 95, "{held}/{SEEDS}");
}

/// §9.5: the effort is known at dispatch, so high-effort requests can be
/// kept off the replicas that serve interactive turns. A separate pool for
/// high effort lowers the interactive (low-effort) turns' P95 time to the
/// first visible token against a shared pool that ignores the effort, once
/// the pool is busy enough for long reasoning to hold the slots (a
/// conversation a second). Healthy replicas here, so only the sharing
/// differs. Pass ratio: 90 of 100 seeds.
#[test]
fn a_separate_high_effort_pool_protects_interactive_turns() {
    let mut held = 0;
    let healthy = |c: &mut Config| {
        c.faulty = c.fail;
        c.slow = 1.0;
        c.rate = 1.0;
    };
    for seed in 1..=SEEDS {
        let shared = runs(seed, healthy);
        let pool = runs(seed, |c| {
            healthy(c);
            c.route = Route::Pool;
        });
        let (s, p) = (of(&shared, Recovery::Retry), of(&pool, Recovery::Retry));
        if seed == 1 {
            println!(
                "seed 1: interactive TTFVT P95 {:.0} ms shared, {:.0} ms with a pool of {} for high effort",
                s.interactive_p95,
                p.interactive_p95,
                Config::default().pool
            );
        }
        held += usize::from(p.interactive_p95 < s.interactive_p95);
    }
    println!("a separate pool lowers interactive P95: {held}/{SEEDS} seeds");
    assert!(held >= 90, "{held}/{SEEDS}");
}

/// §9.5: the effort is rendered into the prompt, so it is part of the
/// cached prefix. When turns change effort inside a conversation (half of
/// them here), the cache share of prompt tokens falls below a run where
/// every conversation keeps its effort. Pass ratio: 100 of 100 seeds.
#[test]
fn changing_effort_inside_a_conversation_loses_its_cache() {
    let mut held = 0;
    for seed in 1..=SEEDS {
        let steady = runs(seed, |_| {});
        let varied = runs(seed, |c| c.vary = 0.5);
        let (s, v) = (of(&steady, Recovery::Retry), of(&varied, Recovery::Retry));
        if seed == 1 {
            println!(
                "seed 1: cache share {:.1}% with steady effort, {:.1}% when half the turns change it",
                100.0 * s.cache_share,
                100.0 * v.cache_share
            );
        }
        held += usize::from(v.cache_share < s.cache_share);
    }
    println!("varying effort lowers the cache share: {held}/{SEEDS} seeds");
    assert!(held >= 100, "{held}/{SEEDS}");
}

/// Every request is accounted for: answered, failed where the user saw
/// it, or still open; and a plain model's runs never count a hidden token.
#[test]
fn every_request_ends_one_way() {
    for seed in 1..=10 {
        for r in runs(seed, |_| {}) {
            assert_eq!(
                r.requests,
                r.done + r.errors + r.broken + r.open,
                "seed {seed} {:?}",
                r.recovery
            );
        }
    }
}
