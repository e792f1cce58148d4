//! The stale-signal herding lab's claims (article §5.6), over 100 seeds each.

use lblab_tests::SEEDS;
use sim_core::choice::Choice;
use sim_core::labs::herding::{self, Config, HerdingRule, Outcome, RuleSummary};

fn runs(cfg: &Config) -> Vec<Outcome> {
    SEEDS
        .map(|seed| {
            herding::run(&Config {
                seed,
                ..cfg.clone()
            })
            .expect("valid")
        })
        .collect()
}

fn get(o: &Outcome, r: HerdingRule) -> &RuleSummary {
    o.rule(r).expect("every rule runs")
}

fn ratio(outcomes: &[Outcome], claim: impl Fn(&Outcome) -> bool) -> f64 {
    outcomes.iter().filter(|o| claim(o)).count() as f64 / outcomes.len() as f64
}

fn check(name: &str, got: f64, needed: f64) {
    println!(
        "claim {name}: held in {:.0}% of seeds (needs {:.0}%)",
        got * 100.0,
        needed * 100.0
    );
    assert!(
        got >= needed,
        "claim {name}: {:.0}% < {:.0}%",
        got * 100.0,
        needed * 100.0
    );
}

#[test]
fn a_mean_skew_orders_the_four_rules() {
    use HerdingRule::*;
    let all = runs(&Config::default());
    let order = [Stale, OwnDispatches, TwoChoices, Both];
    let avg: Vec<f64> = order
        .iter()
        .map(|&r| all.iter().map(|o| get(o, r).mean_skew).sum::<f64>() / all.len() as f64)
        .collect();
    println!("mean skew averaged over seeds: {avg:.2?}");
    for w in avg.windows(2) {
        assert!(w[0] > w[1], "averages out of order: {avg:?}");
    }
    for pair in order.windows(2) {
        let got = ratio(&all, |o| {
            get(o, pair[0]).mean_skew > get(o, pair[1]).mean_skew
        });
        check(
            &format!("(a) {} > {}", pair[0].name(), pair[1].name()),
            got,
            0.75,
        );
    }
}

#[test]
fn b_one_router_counting_own_dispatches_beats_two_choices() {
    use HerdingRule::*;
    let all = runs(&Config {
        routers: 1,
        ..Config::default()
    });
    let got = ratio(&all, |o| {
        get(o, OwnDispatches).mean_skew < get(o, TwoChoices).mean_skew
    });
    check("(b) one router: own dispatches < two choices", got, 0.8);
}

#[test]
fn c_staggering_scrapes_lowers_stale_skew() {
    let base = runs(&Config::default());
    let staggered = runs(&Config {
        stagger: true,
        ..Config::default()
    });
    let pairs: Vec<(f64, f64)> = base
        .iter()
        .zip(&staggered)
        .map(|(a, b)| {
            (
                get(a, HerdingRule::Stale).mean_skew,
                get(b, HerdingRule::Stale).mean_skew,
            )
        })
        .collect();
    let got = pairs.iter().filter(|(a, b)| b < a).count() as f64 / pairs.len() as f64;
    check("(c) staggered < in phase (stale rule)", got, 0.8);
}

#[test]
fn d_fresh_signals_mean_low_skew_and_much_agreement() {
    let all = runs(&Config {
        scrape_interval: 1,
        ..Config::default()
    });
    let got = ratio(&all, |o| {
        let s = get(o, HerdingRule::Stale);
        s.mean_skew <= 3.0 && s.pile_up_share >= 0.5
    });
    check("(d) T = 1: mean skew ≤ 3 and pile-up ≥ 50%", got, 0.8);
}

#[test]
fn e_router_count_does_not_matter_in_phase() {
    let one = runs(&Config {
        routers: 1,
        ..Config::default()
    });
    let eight = runs(&Config {
        routers: 8,
        ..Config::default()
    });
    let got = one
        .iter()
        .zip(&eight)
        .filter(|(a, b)| {
            let (a, b) = (
                get(a, HerdingRule::Stale).mean_skew,
                get(b, HerdingRule::Stale).mean_skew,
            );
            (a - b).abs() < 0.1 * a.max(b).max(f64::MIN_POSITIVE)
        })
        .count() as f64
        / one.len() as f64;
    check(
        "(e) in phase, 1 → 8 routers changes stale mean skew < 10%",
        got,
        0.8,
    );
}

#[test]
fn f_longer_scrape_interval_raises_peak_skew() {
    let t20 = runs(&Config {
        scrape_interval: 20,
        ..Config::default()
    });
    let t5 = runs(&Config {
        scrape_interval: 5,
        ..Config::default()
    });
    let got = t20
        .iter()
        .zip(&t5)
        .filter(|(a, b)| {
            get(a, HerdingRule::Stale).peak_skew > get(b, HerdingRule::Stale).peak_skew
        })
        .count() as f64
        / t20.len() as f64;
    check("(f) peak skew at T = 20 > at T = 5", got, 0.8);
}
