//! LiteLLM's routing strategies and cooldown rule, as its source defines
//! them (litellm 1.110.2, `litellm/router_strategy/` and
//! `litellm/router_utils/cooldown_handlers.py`): each case is one rule of
//! the source, with the edge the source draws.

use sim_core::providers::litellm::cooldown::{cools, counts, Failure};
use sim_core::providers::litellm::cost::{self, Price};
use sim_core::providers::litellm::latency;
use sim_core::providers::litellm::least_busy;
use sim_core::providers::litellm::shuffle::{self, Declared};
use sim_core::providers::litellm::usage::{self, Minute};

#[test]
fn simple_shuffle_weighs_by_weight_then_rpm_then_tpm() {
    let w = |weight, rpm, tpm| Declared { weight, rpm, tpm };
    // `weight` wins when any deployment sets one; the others count as 0.
    let d = [w(Some(3.0), Some(100.0), None), w(None, Some(900.0), None)];
    assert_eq!(shuffle::weights(&d), [3.0, 0.0]);
    // With no weight, the rpm limits; with neither, the tpm limits.
    let d = [w(None, Some(100.0), None), w(None, Some(300.0), None)];
    assert_eq!(shuffle::weights(&d), [100.0, 300.0]);
    let d = [w(None, None, Some(1.0)), w(None, None, None)];
    assert_eq!(shuffle::weights(&d), [1.0, 0.0]);
    // Nothing declared: uniform.
    assert_eq!(shuffle::weights(&[Declared::default(); 3]), [1.0, 1.0, 1.0]);
    // A draw lands in proportion: a quarter of the range picks the first.
    let d = [w(None, Some(100.0), None), w(None, Some(300.0), None)];
    assert_eq!(shuffle::pick(&d, 0.2), Some(0));
    assert_eq!(shuffle::pick(&d, 0.3), Some(1));
    assert_eq!(shuffle::pick(&d, 0.999), Some(1));
    // A zero weight is never picked, whatever the draw.
    let d = [w(Some(0.0), None, None), w(Some(1.0), None, None)];
    assert!((0..100).all(|k| shuffle::pick(&d, f64::from(k) / 100.0) == Some(1)));
}

#[test]
fn usage_based_v2_takes_the_least_used_with_headroom() {
    let m = |tokens, requests| Minute {
        tpm: Some(1000),
        rpm: Some(10),
        tokens,
        requests,
    };
    // The fewest tokens this minute wins; a tie leaves both.
    assert_eq!(
        usage::candidates(&[m(500, 1), m(200, 1), m(200, 2)], 100),
        [1, 2]
    );
    // A request that would pass the token limit rules a deployment out.
    assert_eq!(
        usage::candidates(&[m(950, 1), m(960, 1)], 100),
        Vec::<usize>::new()
    );
    // `requests + 1 >= rpm`: with rpm 10 a deployment is out after 9.
    assert_eq!(usage::candidates(&[m(0, 9), m(500, 8)], 10), [1]);
    // No limits: everything is open.
    let free = Minute {
        tokens: 7,
        ..Minute::default()
    };
    assert_eq!(usage::candidates(&[free], 1_000_000), [0]);
}

#[test]
fn least_busy_and_cost_break_ties_by_list_order() {
    assert_eq!(least_busy::pick(&[3, 1, 1, 2]), Some(1));
    assert_eq!(least_busy::pick(&[]), None);
    let p = |input, output| Price { input, output };
    assert_eq!(
        cost::pick(&[
            p(Some(2.0), Some(2.0)),
            p(Some(1.0), Some(3.0)),
            p(Some(0.5), Some(1.0))
        ]),
        Some(2)
    );
    assert_eq!(
        cost::pick(&[p(Some(1.0), Some(1.0)), p(Some(2.0), Some(0.0))]),
        Some(0)
    );
    // A price the router does not know is 5.0 a token.
    assert_eq!(
        cost::pick(&[p(None, None), p(Some(4.0), Some(4.0))]),
        Some(1)
    );
}

#[test]
fn latency_routing_keeps_ten_samples_and_tries_the_unseen_first() {
    let mut w = Vec::new();
    for s in 1..=12 {
        latency::record(&mut w, f64::from(s));
    }
    // The oldest two are gone: 3..=12.
    assert_eq!(w.len(), 10);
    assert_eq!(latency::mean(&w), 7.5);
    // A deployment never seen reads 0 and is the one to try.
    assert_eq!(
        latency::candidates(&[latency::mean(&w), latency::mean(&[])], 0.0),
        [1]
    );
    // A buffer widens the set to those within it of the lowest.
    assert_eq!(latency::candidates(&[1.0, 1.09, 1.2], 0.1), [0, 1]);
}

#[test]
fn cooldown_follows_the_default_rules() {
    let f = |status, single, successes, failures| Failure {
        status,
        single,
        successes,
        failures,
    };
    // A bad request or a content-policy refusal never counts.
    assert!(!counts(400) && !counts(403) && !counts(422));
    assert!(counts(429) && counts(401) && counts(500) && counts(503));
    assert!(!cools(&f(400, false, 0, 50)));
    // A 429 cools a deployment down at once, unless it is its group's only one.
    assert!(cools(&f(429, false, 100, 1)));
    assert!(!cools(&f(429, true, 100, 1)));
    // More than half of at least five calls this minute failing: cool down.
    assert!(cools(&f(500, false, 2, 3)));
    assert!(!cools(&f(500, false, 3, 3)), "half is not more than half");
    assert!(!cools(&f(500, false, 0, 4)), "fewer than five calls");
    // A lone deployment only at 100% failures over 1,000 calls a minute.
    assert!(!cools(&f(500, true, 0, 999)));
    assert!(cools(&f(500, true, 0, 1000)));
    // Errors LiteLLM does not retry (401, 404) cool down at once.
    assert!(cools(&f(401, true, 10, 1)) && cools(&f(404, false, 10, 1)));
    // 402 on a lone deployment does not.
    assert!(!cools(&f(402, true, 10, 1)));
}
