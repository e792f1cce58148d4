//! Conformance of llm-d's endpoint-picker scorers with their upstream unit
//! tests. Each test names the upstream test file it reproduces, in
//! llm-d-inference-scheduler v0.8.0 (`05c91f0d`) under
//! `pkg/epp/framework/plugins/scheduling/`, and uses its inputs and expected
//! scores (upstream compares within 1e-4 unless it says exactly).

use sim_core::rng::Rng;
use sim_core::routing::llmd::active_request::{self, ActiveRequestSettings};
use sim_core::routing::llmd::lora_affinity::{self, Adapters};
use sim_core::routing::llmd::precise_prefix::{self, Held, TierWeights};
use sim_core::routing::llmd::{
    kv_utilization, load_aware, pick, prefix, queue, weighted_sum, LlmdWeights,
};
use sim_core::routing::{Chooser, Ties};

fn close(actual: &[f64], expected: &[f64]) {
    assert_eq!(
        actual.len(),
        expected.len(),
        "{actual:?} against {expected:?}"
    );
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() < 1e-4, "{actual:?} against {expected:?}");
    }
}

/// `scorer/kvcacheutilization/kvcache_utilization_test.go`.
#[test]
fn kv_cache_utilization_scorer() {
    close(&kv_utilization::scores(&[0.8, 0.5, 0.0]), &[0.2, 0.5, 1.0]);
    close(&kv_utilization::scores(&[0.6, 0.6]), &[0.4, 0.4]);
    close(&kv_utilization::scores(&[0.0, 0.0]), &[1.0, 1.0]);
    close(&kv_utilization::scores(&[1.0, 0.5]), &[0.0, 0.5]);
}

/// `scorer/queuedepth/queue_test.go` (and `runningrequests/running_test.go`,
/// the same formula on running requests).
#[test]
fn queue_scorer() {
    close(&queue::scores(&[10, 5, 0]), &[0.0, 0.5, 1.0]);
    close(&queue::scores(&[5, 5]), &[1.0, 1.0]);
    close(&queue::scores(&[0, 0]), &[1.0, 1.0]);
    assert!(queue::scores(&[]).is_empty());
}

/// `scorer/loraaffinity/lora_affinity_test.go`; the target adapter is 1
/// ("active-model-1"), the others 2–5.
#[test]
fn lora_affinity_scorer() {
    let s = |active: &[u32], waiting: &[u32], max| {
        lora_affinity::score(
            1,
            &Adapters {
                active,
                waiting,
                max,
            },
        )
    };
    // active; waiting; no space (two pods); then the mixed case's five pods.
    assert_eq!(s(&[1], &[], 5), 1.0);
    assert_eq!(s(&[2], &[1], 2), 0.6);
    assert_eq!(s(&[2], &[3], 2), 0.0);
    assert_eq!(s(&[], &[], 0), 0.0);
    let mixed = [
        s(&[1], &[], 5),
        s(&[2], &[1], 5),
        s(&[2], &[], 2),
        s(&[3], &[1], 2),
        s(&[4, 5], &[], 2),
    ];
    close(&mixed, &[1.0, 0.8, 0.8, 0.6, 0.0]);
}

/// `scorer/loadaware/load_aware_test.go` (threshold 10; exact).
#[test]
fn load_aware_scorer() {
    let got: Vec<f64> = [2, 0, 15]
        .iter()
        .map(|&q| load_aware::score(q, 10))
        .collect();
    assert_eq!(got, [0.4, 0.5, 0.0]);
    // A threshold of 0 falls back to 128.
    assert_eq!(load_aware::score(64, 0), 0.25);
}

/// `scorer/activerequest/active_request_test.go`.
#[test]
fn active_request_scorer() {
    let d = ActiveRequestSettings::default();
    close(
        &active_request::scores(&[None, None, None], &d),
        &[1.0, 1.0, 1.0],
    );
    close(
        &active_request::scores(&[Some(3), Some(0), Some(6)], &d),
        &[0.5, 1.0, 0.0],
    );
    close(
        &active_request::scores(&[Some(4), None, Some(1)], &d),
        &[0.0, 1.0, 0.75],
    );
    let binary = ActiveRequestSettings {
        idle_threshold: 0,
        max_busy_score: 0.0,
    };
    close(
        &active_request::scores(&[Some(0), Some(0)], &binary),
        &[1.0, 1.0],
    );
    close(
        &active_request::scores(&[Some(1), Some(0)], &binary),
        &[0.0, 1.0],
    );
    let hybrid = ActiveRequestSettings {
        idle_threshold: 1,
        max_busy_score: 0.5,
    };
    close(
        &active_request::scores(&[Some(1), Some(2), None], &hybrid),
        &[1.0, 0.0, 1.0],
    );
}

/// `scorer/prefix/plugin_test.go`: matched over total blocks (exact).
#[test]
fn prefix_cache_scorer() {
    assert_eq!(prefix::score(5, 10), 0.5);
    assert_eq!(prefix::score(2, 10), 0.2);
    assert_eq!(prefix::score(0, 0), 0.0);
}

/// `requestcontrol/dataproducer/approximateprefix/plugin_test.go`
/// (`TestPrefixPluginCompletion`): a two-block prompt sent to pod 1, then a
/// prompt sharing its first block matches one of two blocks there and none
/// on pod 2; and (`TestMaxPrefixTokensToMatch`) at most 256 blocks count.
#[test]
fn approximate_prefix_index() {
    let mut index = prefix::Index::new();
    index.ensure(2, |_| prefix::DEFAULT_CAPACITY);
    // "aaaaaa" in 4-character blocks: "aaaa", then the partial "aa".
    let first = [10, 11];
    assert_eq!(index.matches(&first, 2), [0, 0]);
    index.add(0, &first);
    // "aaaabbbb": the same first block, a different second one.
    let second = [10, 12];
    let m = index.matches(&second, 2);
    assert_eq!(m, [1, 0]);
    assert_eq!(prefix::score(m[0], second.len()), 0.5);
    let long: Vec<u32> = (0..300).collect();
    assert_eq!(prefix::Index::hashes(&long).len(), 256);
}

/// `indexer_test.go` (`TestIndexer_AddAndGet`): an endpoint whose LRU holds
/// two blocks forgets the oldest when a third arrives.
#[test]
fn approximate_prefix_index_evicts_the_least_recent() {
    let mut index = prefix::Index::new();
    index.ensure(1, |_| 2);
    index.add(0, &[1]);
    index.add(0, &[2]);
    index.add(0, &[3]);
    assert_eq!(index.matches(&[1], 1), [0]);
    assert_eq!(index.matches(&[2, 3], 1), [2]);
    assert_eq!(index.matches(&[4], 1), [0]);
}

/// llm-d-kv-cache `pkg/kvcache/kvblock_scorer_test.go` (gpu 1.0, cpu 0.5):
/// a run from the first block, each weighted by its best tier.
#[test]
fn precise_prefix_raw_scores() {
    let w = TierWeights { gpu: 1.0, cpu: 0.5 };
    let gpu = Held {
        gpu: true,
        cpu: false,
    };
    let cpu = Held {
        gpu: false,
        cpu: true,
    };
    let both = Held {
        gpu: true,
        cpu: true,
    };
    let none = Held::default();
    // Keys 1001–1006: A holds 1001, 1002, 1003 (both tiers), then lacks 1004.
    let a = vec![gpu, gpu, both, none, none, gpu];
    let b = vec![none, none, none, cpu, cpu, none];
    assert_eq!(precise_prefix::raw(&[a, b.clone()], &w), [Some(3.0), None]);
    let a2 = vec![gpu, gpu, cpu, none, none, gpu];
    assert_eq!(precise_prefix::raw(&[a2, b], &w), [Some(2.5), None]);
}

/// `scorer/preciseprefixcache/precise_prefix_cache_test.go` at v0.8.0:
/// min–max over the endpoints holding the first block.
#[test]
fn precise_prefix_scores_at_the_release() {
    let n = |r: &[Option<f64>]| precise_prefix::normalised(r);
    close(&n(&[Some(3.0), Some(2.0), Some(1.0)]), &[1.0, 0.5, 0.0]);
    close(&n(&[Some(2.0), Some(1.0)]), &[1.0, 0.0]);
    // B holds blocks 0 and 2 but not 1: its run is one block.
    close(&n(&[Some(3.0), Some(1.0), Some(1.0)]), &[1.0, 0.0, 0.0]);
    close(&n(&[Some(2.0)]), &[1.0]);
    close(&n(&[None, None, None]), &[0.0, 0.0, 0.0]);
    close(&n(&[Some(2.0), Some(2.0), Some(2.0)]), &[1.0, 1.0, 1.0]);
}

/// `scheduler_profile.go`: scores clamped to [0, 1], times their weights,
/// summed; and `picker/maxscore/picker_test.go`: the highest wins, ties at
/// random among the tied only.
#[test]
fn the_profile_sums_weighted_clamped_scores_and_the_highest_wins() {
    let w = LlmdWeights::default();
    assert_eq!((w.queue, w.kv_cache, w.prefix), (2.0, 2.0, 3.0));
    let total = weighted_sum(2, &[(2.0, &[1.5, 0.5]), (3.0, &[-1.0, 0.5])]);
    assert_eq!(total, [2.0, 2.5]);
    let mut rng = Rng::new(1, 0);
    let mut c = Chooser::new(&mut rng, Ties::Random);
    assert_eq!(pick(&[10.0, 25.0, 15.0], &mut c), Some(1));
    let mut seen = [0u32; 3];
    for _ in 0..1000 {
        seen[pick(&[30.0, 25.0, 30.0], &mut c).unwrap()] += 1;
    }
    assert_eq!(seen[1], 0);
    assert!(seen[0] > 400 && seen[2] > 400, "{seen:?}");
}

/// One replica as the picker reads it: its queue and its KV use out of 100.
#[derive(Clone, Copy, Debug)]
struct Pod {
    waiting: u32,
    kv_used: u32,
}

impl sim_core::routing::ReplicaState for Pod {
    fn outstanding(&self) -> u32 {
        self.waiting
    }
    fn waiting(&self) -> u32 {
        self.waiting
    }
    fn kv_used(&self) -> u32 {
        self.kv_used
    }
    fn cached_tokens(&self, _: &sim_core::workload::Request, _: u32) -> u32 {
        0
    }
    fn kv_capacity(&self) -> Option<u32> {
        Some(100)
    }
}

/// The default weights trade a prompt's earlier home against load: a full
/// match (3 points) outweighs the longest queue (2 points lost), but not the
/// longest queue and a full KV cache together (4 lost). The picker's index
/// learns from its own picks.
#[test]
fn the_default_profile_weighs_a_prompts_home_against_its_load() {
    use sim_core::routing::llmd::Llmd;
    use sim_core::routing::{RouteContext, Router};
    use sim_core::time::Tick;
    let req = sim_core::workload::Request {
        adapter: 0,
        arrival: Tick(0),
        prompt_tokens: 64,
        output_tokens: 1,
        blocks: vec![7, 8, 9, 10],
        long: false,
    };
    let mut rng = Rng::new(3, 0);
    let mut route = |router: &mut Llmd, pods: &[Pod]| {
        let ctx = RouteContext {
            now: Tick(0),
            request: &req,
            block_tokens: 16,
            kv_block_tokens: 16,
            replicas: pods,
        };
        router
            .select(&ctx, &mut Chooser::new(&mut rng, Ties::Random))
            .expect("a pod")
            .replica
    };
    let idle = Pod {
        waiting: 0,
        kv_used: 0,
    };
    let mut llmd = Llmd::new(LlmdWeights::default());
    // First sight: all equal but the queue; the idle pod 1 wins and now
    // holds the prompt in the index.
    let busy = Pod {
        waiting: 4,
        kv_used: 0,
    };
    assert_eq!(route(&mut llmd, &[busy, idle]), 1);
    // Its queue grows to the longest: the match still wins (3 > 2).
    assert_eq!(route(&mut llmd, &[idle, busy]), 1);
    // Longest queue and a full cache: the other pod wins (4 > 3).
    let full = Pod {
        waiting: 4,
        kv_used: 100,
    };
    assert_eq!(route(&mut llmd, &[idle, full]), 0);
}
