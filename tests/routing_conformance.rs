//! Conformance of the real routers' policies with their upstream test vectors.
//!
//! A test named `test_…` reproduces the upstream unit test of that name, with
//! its inputs and expected outputs (the upstream file is named above each one);
//! the others check a formula or worked example from upstream documentation
//! (article §4.3, §5.4, §5.5, §6.2, §11.3). The policies run on hand-built
//! replica views, so each case sets exactly the signals upstream set.

use sim_core::rng::Rng;
use sim_core::routing::dynamo_kv::{cost, softmax_pick, CostInputs, DynamoSettings};
use sim_core::routing::envoy_least_request::{effective_weight, slow_start_factor, EnvoySettings};
use sim_core::routing::sglang_cache_aware::CacheAwareSettings;
use sim_core::routing::sglang_prefix_hash::{load_ok, PrefixHashSettings, Ring};
use sim_core::routing::{
    Chooser, Decision, DynamoKv, EnvoyLeastRequest, PowerOfTwo, Reason, ReplicaState, RouteContext,
    Router, Rule, SglangCacheAware, SglangPrefixHash, Tiers, Ties,
};
use sim_core::time::Tick;
use sim_core::workload::Request;

/// One replica exactly as a test sets it up.
#[derive(Clone, Debug)]
struct View {
    outstanding: u32,
    tokens: Option<u64>,
    tiers: Tiers,
    backlog: u64,
    kv_used: u32,
    weight: f64,
    joined: Tick,
}

impl View {
    fn load(outstanding: u32) -> View {
        View {
            outstanding,
            tokens: None,
            tiers: Tiers::default(),
            backlog: 0,
            kv_used: 0,
            weight: 1.0,
            joined: Tick::ZERO,
        }
    }
}

impl ReplicaState for View {
    fn outstanding(&self) -> u32 {
        self.outstanding
    }
    fn waiting(&self) -> u32 {
        0
    }
    fn kv_used(&self) -> u32 {
        self.kv_used
    }
    fn cached_tokens(&self, _: &Request, _: u32) -> u32 {
        self.tiers.device
    }
    fn cached_tiers(&self, _: &Request, _: u32) -> Tiers {
        self.tiers
    }
    fn prefill_backlog(&self) -> u64 {
        self.backlog
    }
    fn token_load(&self) -> Option<u64> {
        self.tokens
    }
    fn weight(&self) -> f64 {
        self.weight
    }
    fn joined_at(&self) -> Tick {
        self.joined
    }
}

/// A request whose blocks are `ids`, `block_tokens` tokens each.
fn request(ids: &[u32], block_tokens: u32) -> Request {
    Request {
        adapter: 0,
        arrival: Tick(0),
        prompt_tokens: ids.len() as u32 * block_tokens,
        output_tokens: 1,
        blocks: ids.to_vec(),
        long: false,
    }
}

/// A text prompt matched character by character, as SGLang's tree does: one
/// block per character.
fn text(s: &str) -> Request {
    let ids: Vec<u32> = s.chars().map(u32::from).collect();
    request(&ids, 1)
}

/// Routes `req` at `now` over `replicas`, `block_tokens` per block and 16
/// tokens per KV block, drawing from `rng`.
fn route_at(
    router: &mut impl Router,
    replicas: &[View],
    req: &Request,
    block_tokens: u32,
    now: Tick,
    rng: &mut Rng,
) -> Decision {
    let ctx = RouteContext {
        now,
        request: req,
        block_tokens,
        kv_block_tokens: 16,
        replicas,
    };
    router
        .select(&ctx, &mut Chooser::new(rng, Ties::Random))
        .expect("replicas exist")
}

fn route(router: &mut impl Router, replicas: &[View], req: &Request, rng: &mut Rng) -> Decision {
    route_at(router, replicas, req, 1, Tick(0), rng)
}

// ---- SGLang cache_aware: sgl-model-gateway/src/policies/cache_aware.rs @ b93974f1

/// Upstream's `CacheAwareConfig::default()` (the tests' base), eviction off.
fn cache_aware_test_config() -> CacheAwareSettings {
    CacheAwareSettings {
        cache_threshold: 0.5,
        abs_threshold: 32,
        rel_threshold: 1.1,
        eviction_interval: 0,
        max_tree_tokens: 10_000,
    }
}

#[test]
fn test_cache_aware_with_imbalanced_load() {
    let mut policy = SglangCacheAware::build(&CacheAwareSettings {
        cache_threshold: 0.5,
        abs_threshold: 5,
        rel_threshold: 2.0,
        eviction_interval: 0,
        max_tree_tokens: 10_000,
    });
    let workers = [View::load(20), View::load(0)];
    let mut rng = Rng::new(1, 1);
    for _ in 0..5 {
        let d = route(&mut policy, &workers, &text("test"), &mut rng);
        assert_eq!(d.replica, 1, "the idle worker, despite affinity");
        assert_eq!(
            d.reason,
            Reason::ImbalanceEscape {
                max_load: 20,
                min_load: 0
            }
        );
    }
}

#[test]
fn test_cache_aware_with_balanced_load() {
    let mut policy = SglangCacheAware::build(&cache_aware_test_config());
    let workers = [View::load(0), View::load(0)];
    let mut rng = Rng::new(2, 1);
    let first = route(&mut policy, &workers, &text("hello world"), &mut rng);
    let again = route(&mut policy, &workers, &text("hello world"), &mut rng);
    assert_eq!(
        first.replica, again.replica,
        "the same prompt follows its cache"
    );
    assert_eq!(
        again.reason,
        Reason::CacheAffinity {
            match_permille: 1000
        }
    );
    let shorter = route(&mut policy, &workers, &text("hello"), &mut rng);
    assert_eq!(first.replica, shorter.replica, "a prefix of it too");
}

#[test]
fn cache_aware_low_match_goes_to_the_first_least_loaded() {
    // Below the cache threshold the gateway takes `min_by_key` of the loads:
    // the first worker with the fewest requests.
    let mut policy = SglangCacheAware::build(&cache_aware_test_config());
    let workers = [View::load(3), View::load(1), View::load(1)];
    let mut rng = Rng::new(3, 1);
    let d = route(&mut policy, &workers, &text("abc"), &mut rng);
    assert_eq!(d.replica, 1);
    assert!(matches!(
        d.reason,
        Reason::LowMatch {
            match_permille: 0,
            load: 1
        }
    ));
    // "abd" matches 2 of 3 characters (0.67 > 0.5): affinity to worker 2.
    let d = route(&mut policy, &workers, &text("abd"), &mut rng);
    assert_eq!(d.replica, 1);
    assert_eq!(
        d.reason,
        Reason::CacheAffinity {
            match_permille: 666
        }
    );
}

#[test]
fn cache_aware_eviction_event_trims_each_tenant_to_the_cap() {
    let mut policy = SglangCacheAware::build(&CacheAwareSettings {
        eviction_interval: 10,
        max_tree_tokens: 8,
        ..cache_aware_test_config()
    });
    let workers = [View::load(0)];
    let mut rng = Rng::new(4, 1);
    for (t, s) in ["aaaa", "bbbb", "cccc", "dddd"].iter().enumerate() {
        route_at(&mut policy, &workers, &text(s), 1, Tick(t as u64), &mut rng);
    }
    assert_eq!(policy.tree().size(0), 16, "no eviction before the interval");
    // The next decision past tick 10 runs the due eviction first: the oldest
    // leaves go until the worker holds at most 8 tokens, then "eeee" is added.
    route_at(&mut policy, &workers, &text("eeee"), 1, Tick(11), &mut rng);
    assert_eq!(policy.tree().size(0), 8 + 4);
    let (depth, _) = policy.tree().prefix_match(&text("aaaa").blocks);
    assert_eq!(depth, 0, "the least recently used prompt was evicted");
    let (depth, _) = policy.tree().prefix_match(&text("dddd").blocks);
    assert_eq!(depth, 4, "the most recent one stays");
}

// ---- SGLang prefix_hash: sgl-model-gateway/src/policies/prefix_hash.rs @ 065f331f

#[test]
fn test_load_ok_calculation() {
    // Total 100 over 4 workers: average (100 + 1) / 4, times 1.25 ≈ 31.6.
    assert!(load_ok(30, 100, 4, 1.25));
    assert!(!load_ok(35, 100, 4, 1.25));
    assert!(load_ok(0, 0, 4, 1.25), "no load is always fine");
    assert!(load_ok(100, 0, 0, 1.25), "no workers is always fine");
}

#[test]
fn test_prefix_hash_consistent_routing() {
    let mut policy = SglangPrefixHash::build(&PrefixHashSettings::default());
    let workers = [View::load(0), View::load(0), View::load(0)];
    let req = request(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 1);
    let mut rng = Rng::new(5, 1);
    let first = route(&mut policy, &workers, &req, &mut rng).replica;
    for _ in 0..10 {
        assert_eq!(route(&mut policy, &workers, &req, &mut rng).replica, first);
    }
}

#[test]
fn test_different_prefixes_distribute() {
    let mut policy = SglangPrefixHash::build(&PrefixHashSettings::default());
    let workers = [View::load(0), View::load(0), View::load(0)];
    let mut rng = Rng::new(6, 1);
    let mut seen = [0u32; 3];
    for i in 0..100 {
        let d = route(
            &mut policy,
            &workers,
            &request(&[i, i + 1, i + 2, i + 3], 1),
            &mut rng,
        );
        seen[d.replica as usize] += 1;
    }
    assert!(seen.iter().filter(|&&n| n > 0).count() > 1, "{seen:?}");
}

#[test]
fn test_shared_prefix_routes_same() {
    let mut policy = SglangPrefixHash::build(&PrefixHashSettings {
        prefix_tokens: 5,
        ..PrefixHashSettings::default()
    });
    let workers = [View::load(0), View::load(0), View::load(0)];
    let mut rng = Rng::new(7, 1);
    let a = route(
        &mut policy,
        &workers,
        &request(&[1, 2, 3, 4, 5, 100, 200, 300], 1),
        &mut rng,
    );
    let b = route(
        &mut policy,
        &workers,
        &request(&[1, 2, 3, 4, 5, 999, 888, 777], 1),
        &mut rng,
    );
    assert_eq!(a.replica, b.replica, "the same head, the same owner");
}

#[test]
fn prefix_hash_bypasses_an_owner_over_its_load_bound() {
    let settings = PrefixHashSettings {
        prefix_tokens: 4,
        load_factor: 1.25,
    };
    let req = request(&[7, 7, 7, 7], 1);
    let mut rng = Rng::new(8, 1);
    let idle = [View::load(0), View::load(0), View::load(0), View::load(0)];
    let owner = route(
        &mut SglangPrefixHash::build(&settings),
        &idle,
        &req,
        &mut rng,
    )
    .replica;
    // Load the owner to 10 of a total 13: far over (13 + 1) / 4 × 1.25 = 4.4.
    let mut loaded: Vec<View> = [1, 1, 1, 1].map(View::load).to_vec();
    loaded[owner as usize] = View::load(10);
    let least = (0..4).find(|&i| i != owner as usize).unwrap() as u32;
    let d = route(
        &mut SglangPrefixHash::build(&settings),
        &loaded,
        &req,
        &mut rng,
    );
    assert_eq!(
        d.replica, least,
        "the first least-loaded worker within the bound"
    );
    assert_eq!(
        d.reason,
        Reason::RingOverloaded {
            owner,
            owner_load: 10,
            load: 1
        }
    );
}

#[test]
fn prefix_hash_ring_growth_moves_about_one_key_in_n_plus_one() {
    let (four, five) = (Ring::new(4), Ring::new(5));
    let keys: Vec<u64> = (0..20_000u64)
        .map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .collect();
    let moved: Vec<u32> = keys
        .iter()
        .filter(|&&k| four.owner(k) != five.owner(k))
        .map(|&k| five.owner(k).unwrap())
        .collect();
    let share = moved.len() as f64 / keys.len() as f64;
    assert!(
        (0.14..0.26).contains(&share),
        "moved share {share:.3}, expected about 0.2"
    );
    assert!(
        moved.iter().all(|&w| w == 4),
        "keys only move to the new worker"
    );
}

// ---- SGLang power_of_two: sgl-model-gateway/src/policies/power_of_two.rs @ 065f331f

/// A worker with `reqs` requests and, if given, a monitor's token load.
fn worker(reqs: u32, tokens: Option<u64>) -> View {
    View {
        tokens,
        ..View::load(reqs)
    }
}

/// The pick among two workers; with two, both are always sampled, so the
/// answer does not depend on the draw (ties aside, which none of these have).
fn p2c(workers: [View; 2], seed: u64) -> Decision {
    route(
        &mut PowerOfTwo,
        &workers,
        &request(&[1], 1),
        &mut Rng::new(seed, 1),
    )
}

#[test]
fn test_power_of_two_edge_cases() {
    for seed in 1..=20 {
        // 1. Both report tokens: tokens decide, whatever the request counts.
        let d = p2c([worker(10, Some(1_000)), worker(2, Some(100_000))], seed);
        assert_eq!(d.replica, 0, "happy path");
        assert!(matches!(
            d.reason,
            Reason::TwoChoicesTokens { tokens: 1_000, .. }
        ));
        // 2. Only A reports: both fall back to requests, 10 against 2.
        assert_eq!(
            p2c([worker(10, Some(1_000)), worker(2, None)], seed).replica,
            1
        );
        // 3. Only B reports: requests again, 2 against 10.
        assert_eq!(
            p2c([worker(2, None), worker(10, Some(1_000))], seed).replica,
            0
        );
        // 4. Neither reports: requests, 5 against 3.
        let d = p2c([worker(5, None), worker(3, None)], seed);
        assert_eq!(d.replica, 1);
        assert!(matches!(
            d.reason,
            Reason::TwoChoices {
                load: 3,
                other_load: 5,
                ..
            }
        ));
    }
}

#[test]
fn test_reproduce_incompatible_metric_bug() {
    // A is idle but reports 50,000 tokens; B has 5 requests and no report.
    // Tokens must not be weighed against requests: A (0 ≤ 5) wins.
    for seed in 1..=20 {
        assert_eq!(
            p2c([worker(0, Some(50_000)), worker(5, None)], seed).replica,
            0
        );
    }
}

#[test]
fn test_power_of_two_with_cached_loads() {
    let workers = [worker(0, Some(100)), worker(0, Some(10))];
    let mut rng = Rng::new(9, 1);
    let picked_second = (0..50)
        .filter(|_| route(&mut PowerOfTwo, &workers, &request(&[1], 1), &mut rng).replica == 1)
        .count();
    assert!(picked_second > 35, "{picked_second} of 50");
}

// ---- Dynamo KV router: lib/kv-router/src/scheduling/selector/default.rs @ 07a6c9ce
// and the worked example of docs/router/router-design.md.

#[test]
fn router_design_worked_example() {
    let s = DynamoSettings::default();
    let inputs = |device: f64, decode: f64| CostInputs {
        raw_prefill_blocks: 10.0,
        overlap_blocks: [device, 0.0, 0.0],
        decode_blocks: decode,
        ..CostInputs::default()
    };
    let costs = [
        cost(&s, &inputs(2.0, 10.0)),
        cost(&s, &inputs(5.0, 5.0)),
        cost(&s, &inputs(8.0, 9.0)),
    ];
    assert_eq!(costs, [18.0, 10.0, 11.0]);
    // The same three workers through the router: a prompt of 8 blocks, 2
    // blocks of backlog each (10 raw prefill), and decode 10 / 5 / 9 blocks in
    // use, so every cost is the example's plus the request's own 8 blocks.
    let view = |device_blocks: u32, kv_used: u32| View {
        tiers: Tiers {
            device: device_blocks * 16,
            ..Tiers::default()
        },
        backlog: 2 * 16,
        kv_used,
        ..View::load(1)
    };
    let workers = [view(2, 10), view(5, 5), view(8, 9)];
    let req = request(&[1; 8], 16);
    let d = route_at(
        &mut DynamoKv::build(&s),
        &workers,
        &req,
        16,
        Tick(0),
        &mut Rng::new(1, 1),
    );
    assert_eq!(d.replica, 1, "worker 2 is selected");
    assert_eq!(d.reason, Reason::LowestCost { cost_blocks: 18 });
}

#[test]
fn tier_weights_and_credit_decay() {
    let mut s = DynamoSettings::default();
    let x = CostInputs {
        raw_prefill_blocks: 10.0,
        overlap_blocks: [0.0, 4.0, 4.0],
        ..CostInputs::default()
    };
    // Host blocks are credited at 0.75, disk blocks at 0.25: 10 − 3 − 1.
    assert_eq!(cost(&s, &x), 6.0);
    let behind = CostInputs {
        overlap_blocks: [8.0, 0.0, 0.0],
        normalized_excess_prefill: 1.0,
        ..x
    };
    assert_eq!(cost(&s, &behind), 2.0, "decay 0 (the default): full credit");
    s.overlap_score_credit_decay = 1.0;
    // Credit 8 / (1 + 1 × 1) = 4.
    assert_eq!(cost(&s, &behind), 6.0, "decay 1: half the credit");
}

#[test]
fn softmax_over_normalised_costs() {
    // Costs 18, 10, 11 normalise to 1, 0, 0.125; at temperature 1 the weights
    // are e^-1, 1, e^-0.125 and the probabilities about 0.163, 0.443, 0.391.
    let costs = [18.0, 10.0, 11.0];
    assert_eq!(softmax_pick(&costs, 1.0, 0.10), 0);
    assert_eq!(softmax_pick(&costs, 1.0, 0.50), 1);
    assert_eq!(softmax_pick(&costs, 1.0, 0.70), 2);
    // A low temperature all but always picks the minimum.
    assert_eq!(softmax_pick(&costs, 0.01, 0.999), 1);
    // Equal costs: uniform.
    assert_eq!(softmax_pick(&[5.0, 5.0], 1.0, 0.4), 0);
    assert_eq!(softmax_pick(&[5.0, 5.0], 1.0, 0.6), 1);
}

// ---- Envoy least request: least_request_lb.cc and the slow-start docs @ v1.35.0

#[test]
fn effective_weight_at_bias_zero_and_one() {
    assert_eq!(
        effective_weight(2.0, 3, 0.0),
        2.0,
        "bias 0 ignores active requests"
    );
    assert_eq!(effective_weight(2.0, 3, 1.0), 0.5, "bias 1: 2 / (3 + 1)");
    assert_eq!(effective_weight(2.0, 3, 0.5), 1.0, "bias 0.5: 2 / √4");
}

/// Picks per replica over `n` decisions on a static pool.
fn envoy_counts(settings: EnvoySettings, workers: &[View], n: usize) -> Vec<u32> {
    let mut lb = EnvoyLeastRequest::build(&settings);
    let mut rng = Rng::new(10, 1);
    let mut counts = vec![0u32; workers.len()];
    for _ in 0..n {
        counts[route(&mut lb, workers, &request(&[1], 1), &mut rng).replica as usize] += 1;
    }
    counts
}

#[test]
fn bias_zero_is_weighted_round_robin() {
    let settings = EnvoySettings {
        active_request_bias: 0.0,
        ..EnvoySettings::default()
    };
    let workers = [
        View {
            weight: 2.0,
            ..View::load(9)
        },
        View {
            weight: 1.0,
            ..View::load(0)
        },
    ];
    // Weights 2 : 1 whatever the active counts.
    assert_eq!(envoy_counts(settings, &workers, 300), [200, 100]);
}

#[test]
fn bias_one_divides_the_weight_by_active_plus_one() {
    let workers = [
        View {
            weight: 2.0,
            ..View::load(3)
        },
        View {
            weight: 1.0,
            ..View::load(0)
        },
    ];
    // 2 / 4 against 1 / 1: the lighter replica gets twice the share.
    assert_eq!(
        envoy_counts(EnvoySettings::default(), &workers, 300),
        [100, 200]
    );
}

#[test]
fn equal_weights_are_two_random_choices_with_replacement() {
    let workers = [View::load(0), View::load(5)];
    let counts = envoy_counts(EnvoySettings::default(), &workers, 4_000);
    // Replica 2 wins only when both draws land on it: 1 in 4.
    let share = f64::from(counts[1]) / 4_000.0;
    assert!((0.22..0.28).contains(&share), "{counts:?}");
}

#[test]
fn slow_start_time_factor() {
    let s = EnvoySettings {
        slow_start_window: 100,
        ..EnvoySettings::default()
    };
    assert_eq!(
        slow_start_factor(&s, 0),
        0.1,
        "max(1, 0) / 100 is below the 10% floor"
    );
    assert_eq!(slow_start_factor(&s, 50), 0.5);
    assert_eq!(slow_start_factor(&s, 100), 1.0, "out of the window");
    let gentle = EnvoySettings {
        aggression: 2.0,
        ..s
    };
    assert_eq!(slow_start_factor(&gentle, 25), 0.5, "(25 / 100)^(1/2)");
}

#[test]
fn slow_start_ramps_a_replica_that_joins_later() {
    let settings = EnvoySettings {
        slow_start_window: 100,
        active_request_bias: 0.0,
        ..EnvoySettings::default()
    };
    let joined = |t| View {
        joined: Tick(t),
        ..View::load(0)
    };
    let workers = [View::load(0), joined(1_000)];
    let share_at = |now: u64| {
        let mut lb = EnvoyLeastRequest::build(&settings);
        let mut rng = Rng::new(11, 1);
        let req = request(&[1], 1);
        let new = (0..1_100)
            .filter(|_| route_at(&mut lb, &workers, &req, 1, Tick(now), &mut rng).replica == 1)
            .count();
        new as f64 / 1_100.0
    };
    // At weight factor f the newcomer gets f / (1 + f) of the picks.
    assert!(
        (share_at(1_010) - 0.1 / 1.1).abs() < 0.01,
        "{}",
        share_at(1_010)
    );
    assert!(
        (share_at(1_050) - 0.5 / 1.5).abs() < 0.01,
        "{}",
        share_at(1_050)
    );
    // Past the window the weights are equal again: two random choices, even.
    assert!((share_at(1_200) - 0.5).abs() < 0.05, "{}", share_at(1_200));
}
