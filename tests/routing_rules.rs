//! One behavioural test per selection rule, on hand-built replica states.

use sim_core::choice::Choice;
use sim_core::engine::{EngineSpec, Replica};
use sim_core::rng::Rng;
use sim_core::routing::{
    Chooser, Decision, GapRule, LeastKv, LeastOutstanding, PowerOfTwo, PrefixAware,
    PrefixAwareParams, Reason, RoundRobin, RouteContext, Router, RuleKind, Ties,
};
use sim_core::time::Tick;
use sim_core::workload::{Request, Workload};

const SPEC: EngineSpec = EngineSpec {
    slots: 8,
    kv_blocks: 1000,
    kv_block_tokens: 16,
    prefill_budget: 320,
    cache_tokens: 64 * 64,
    cache_in_kv: false,
    host_cache_tokens: 0,
    host_tokens_per_tick: 0,
    shared_tokens_per_tick: 0,
};

fn request(blocks: Vec<u32>) -> Request {
    Request {
        adapter: 0,
        arrival: Tick(0),
        prompt_tokens: blocks.len() as u32 * 64,
        output_tokens: 4,
        blocks,
        long: false,
    }
}

/// Replicas whose outstanding counts are `loads` (all queued, none admitted).
fn with_loads(loads: &[u32]) -> Vec<Replica> {
    loads
        .iter()
        .map(|&l| {
            let mut r = Replica::new(SPEC, 64);
            (0..l).for_each(|i| r.enqueue(i, 64));
            r
        })
        .collect()
}

/// One decision, drawing from `rng` with random tie-breaks (as the Routing Lab does).
fn decide(
    router: &mut impl Router,
    replicas: &[Replica],
    req: &Request,
    rng: &mut Rng,
) -> Decision {
    let ctx = RouteContext {
        now: Tick(0),
        request: req,
        block_tokens: 64,
        kv_block_tokens: 16,
        replicas,
    };
    router
        .select(&ctx, &mut Chooser::new(rng, Ties::Random))
        .expect("replicas exist")
}

#[test]
fn round_robin_deals_in_fixed_order() {
    let replicas = with_loads(&[5, 0, 9, 1]);
    let mut rr = RoundRobin::default();
    let mut rng = Rng::new(1, 1);
    let req = request(vec![1]);
    let picks: Vec<u32> = (0..9)
        .map(|_| decide(&mut rr, &replicas, &req, &mut rng).replica)
        .collect();
    assert_eq!(picks, [0, 1, 2, 3, 0, 1, 2, 3, 0]);
}

#[test]
fn power_of_two_never_picks_the_heavier_of_its_pair() {
    let loads = [0, 5, 2, 9];
    let replicas = with_loads(&loads);
    let mut p2c = PowerOfTwo;
    let mut rng = Rng::new(5, 1);
    let req = request(vec![1]);
    let mut chosen = [0u32; 4];
    for _ in 0..2000 {
        let d = decide(&mut p2c, &replicas, &req, &mut rng);
        let Reason::TwoChoices {
            other,
            load,
            other_load,
        } = d.reason
        else {
            panic!("unexpected reason {:?}", d.reason)
        };
        assert_ne!(other, d.replica, "the pair must be distinct");
        assert_eq!(load, loads[d.replica as usize]);
        assert_eq!(other_load, loads[other as usize]);
        assert!(
            load <= other_load,
            "picked the heavier: {load} > {other_load}"
        );
        chosen[d.replica as usize] += 1;
    }
    assert_eq!(chosen[3], 0, "the heaviest replica can never win a pair");
    // Replica 0 wins every pair it is in: 3 of the 6 pairs, so about half the time.
    assert!(chosen[0] > 800 && chosen[0] < 1200, "{chosen:?}");
}

#[test]
fn least_outstanding_picks_a_minimum_and_spreads_ties() {
    let replicas = with_loads(&[3, 1, 4, 1]);
    let mut lo = LeastOutstanding;
    let mut rng = Rng::new(9, 1);
    let req = request(vec![1]);
    let mut seen = [0u32; 4];
    for _ in 0..400 {
        let d = decide(&mut lo, &replicas, &req, &mut rng);
        assert_eq!(d.reason, Reason::LeastLoaded { load: 1 });
        seen[d.replica as usize] += 1;
    }
    assert_eq!(seen[0] + seen[2], 0);
    assert!(
        seen[1] > 100 && seen[3] > 100,
        "ties should be broken both ways: {seen:?}"
    );
}

#[test]
fn least_kv_cannot_see_queued_work() {
    // Replica 0: one admitted sequence holding KV. Replica 1: six queued, none admitted.
    let work = Workload {
        block_tokens: 64,
        requests: vec![request((0..10).collect())],
    };
    let mut busy = Replica::new(SPEC, 64);
    busy.enqueue(0, 640);
    let mut events = Vec::new();
    busy.step(Tick(0), &work, &mut events);
    assert!(busy.kv_used() > 0);
    let queued = with_loads(&[6]).pop().expect("one replica");
    let replicas = vec![busy, queued];
    let d = decide(
        &mut LeastKv,
        &replicas,
        &work.requests[0],
        &mut Rng::new(1, 1),
    );
    assert_eq!(
        d.replica, 1,
        "the gauge reads zero blocks on the replica with a queue"
    );
    assert_eq!(
        d.reason,
        Reason::LeastKv {
            kv_blocks: 0,
            waiting: 6
        }
    );
}

/// Four idle replicas; replica 2 has served (and cached) blocks 100..110.
fn warm_pool() -> Vec<Replica> {
    let work = Workload {
        block_tokens: 64,
        requests: vec![request((100..110).collect())],
    };
    let mut replicas = with_loads(&[0, 0, 0, 0]);
    replicas[2].enqueue(0, 640);
    let mut events = Vec::new();
    for t in 0..50 {
        replicas[2].step(Tick(t), &work, &mut events);
    }
    assert!(replicas[2].is_idle());
    assert_eq!(replicas[2].cache().match_len(&work.requests[0].blocks), 10);
    replicas
}

#[test]
fn prefix_aware_follows_the_cache_when_balanced() {
    let replicas = warm_pool();
    let mut pa = PrefixAware::new(PrefixAwareParams::default());
    let mut rng = Rng::new(2, 1);
    let mut blocks: Vec<u32> = (100..110).collect();
    blocks.push(7777);
    let d = decide(&mut pa, &replicas, &request(blocks), &mut rng);
    assert_eq!(d.replica, 2);
    // 10 of 11 blocks cached.
    assert_eq!(
        d.reason,
        Reason::CacheAffinity {
            match_permille: 909
        }
    );
}

#[test]
fn prefix_aware_falls_back_to_least_loaded_on_a_poor_match() {
    let mut replicas = warm_pool();
    replicas[0].enqueue(0, 640);
    replicas[2].enqueue(0, 640);
    replicas[3].enqueue(0, 640);
    let mut pa = PrefixAware::new(PrefixAwareParams::default());
    let mut rng = Rng::new(2, 1);
    // 2 of 10 blocks cached on replica 2: 20%, under the 30% threshold.
    let blocks: Vec<u32> = (100..102).chain(5000..5008).collect();
    let d = decide(&mut pa, &replicas, &request(blocks), &mut rng);
    assert_eq!(d.replica, 1);
    assert_eq!(
        d.reason,
        Reason::LowMatch {
            match_permille: 200,
            load: 0
        }
    );
}

#[test]
fn prefix_aware_escapes_when_imbalanced() {
    let mut replicas = warm_pool();
    // Replica 2 holds the prefix but is 12 requests ahead of the rest: with the
    // default thresholds, 12 − 1 > 8 and 12 > 2 × 1.
    (0..12).for_each(|i| replicas[2].enqueue(i, 640));
    for r in [0, 1, 3] {
        replicas[r].enqueue(0, 640);
    }
    let mut pa = PrefixAware::new(PrefixAwareParams::default());
    let mut rng = Rng::new(2, 1);
    let d = decide(&mut pa, &replicas, &request((100..110).collect()), &mut rng);
    assert_ne!(d.replica, 2);
    assert_eq!(
        d.reason,
        Reason::ImbalanceEscape {
            max_load: 12,
            min_load: 1
        }
    );
    // One request less and the gap (4) is no longer over the threshold: affinity wins.
    let mut replicas = warm_pool();
    (0..5).for_each(|i| replicas[2].enqueue(i, 640));
    for r in [0, 1, 3] {
        replicas[r].enqueue(0, 640);
    }
    let d = decide(&mut pa, &replicas, &request((100..110).collect()), &mut rng);
    assert_eq!(d.replica, 2);
}

#[test]
fn prefix_aware_with_the_holder_gap_drops_affinity_only_for_a_holder_too_far_ahead() {
    let holder_gap = PrefixAwareParams {
        abs_threshold: 2,
        rel_threshold: 1.0,
        cache_threshold: 0.0,
        gap: GapRule::Holder,
    };
    // Replica 0 is far ahead but does not hold the prefix; replica 2 holds it
    // and is 2 ahead of the idlest: within the threshold, so affinity wins even
    // though the pool as a whole is imbalanced (the pool rule would escape).
    let mut replicas = warm_pool();
    (0..9).for_each(|i| replicas[0].enqueue(i, 640));
    (0..2).for_each(|i| replicas[2].enqueue(i, 640));
    let mut rng = Rng::new(3, 1);
    let req = request((100..110).collect());
    let mut pa = PrefixAware::new(holder_gap);
    let d = decide(&mut pa, &replicas, &req, &mut rng);
    assert_eq!(d.replica, 2);
    assert!(matches!(d.reason, Reason::CacheAffinity { .. }));
    let d = decide(
        &mut PrefixAware::new(PrefixAwareParams::default()),
        &replicas,
        &req,
        &mut rng,
    );
    assert!(matches!(d.reason, Reason::ImbalanceEscape { .. }));
    // One more request on the holder puts it 3 ahead: affinity dropped, and the
    // reason names the holder and both loads.
    replicas[2].enqueue(9, 640);
    let d = decide(&mut pa, &replicas, &req, &mut rng);
    assert_eq!(
        d.reason,
        Reason::AffinityDropped {
            holder: 2,
            holder_load: 3,
            least_load: 0
        }
    );
    assert!(d.replica == 1 || d.replica == 3);
}

#[test]
fn lowest_index_ties_are_deterministic() {
    let replicas = with_loads(&[2, 1, 1, 1]);
    let req = request(vec![1]);
    let mut rng = Rng::new(4, 1);
    for _ in 0..20 {
        let ctx = RouteContext {
            now: Tick(0),
            request: &req,
            block_tokens: 64,
            kv_block_tokens: 16,
            replicas: &replicas[..],
        };
        let d = LeastOutstanding
            .select(&ctx, &mut Chooser::new(&mut rng, Ties::First))
            .expect("replicas exist");
        assert_eq!(d.replica, 1);
    }
}

#[test]
fn registry_names_round_trip_and_are_unique() {
    for &r in RuleKind::ALL {
        assert_eq!(RuleKind::from_name(r.name()), Some(r));
        assert!(!r.blurb().is_empty() && !r.title().is_empty());
        assert_eq!(RuleKind::ALL[r.index()], r);
        // The JSON name is the registry name.
        assert_eq!(
            serde_json::to_string(&r).expect("serialises"),
            format!("\"{}\"", r.name())
        );
    }
    let mut names: Vec<&str> = RuleKind::ALL.iter().map(|r| r.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), RuleKind::ALL.len());
    assert_eq!(RuleKind::from_name("least-connections"), None);
}
