//! The engine's host-memory tier: a prefix the accelerator's cache has
//! evicted comes back over the host link, costing its transfer instead of
//! its prefill, and routers see it as a host-tier match. Off by default,
//! where every golden output stays as it was (the CLI's golden tests run
//! with it off).

use sim_core::engine::{EngineEvent, EngineSpec, Replica};
use sim_core::routing::ReplicaState;
use sim_core::time::Tick;
use sim_core::workload::{Request, Workload};

/// One slot, 64 prompt tokens a prefill tick, a device cache of two
/// 64-token blocks; `host` tokens of host tier moving 256 tokens a tick.
fn spec(host: u32) -> EngineSpec {
    EngineSpec {
        slots: 1,
        kv_blocks: 4096,
        kv_block_tokens: 16,
        prefill_budget: 64,
        cache_tokens: 128,
        cache_in_kv: false,
        host_cache_tokens: host,
        host_tokens_per_tick: 256,
        shared_tokens_per_tick: 0,
    }
}

fn request(blocks: &[u32]) -> Request {
    Request {
        adapter: 0,
        arrival: Tick(0),
        prompt_tokens: blocks.len() as u32 * 64,
        output_tokens: 1,
        blocks: blocks.to_vec(),
        long: false,
    }
}

/// Prompt A, then B (which pushes A out of the device cache), then A
/// again, each sent once the last is done, on replicas of `spec`: A's
/// second TTFT in ticks, the tokens its admission reported cached, and what
/// a router saw by tier just before it was sent.
fn replay_a(spec: EngineSpec) -> (u64, u32, sim_core::routing::Tiers) {
    let w = Workload {
        block_tokens: 64,
        requests: vec![
            request(&[1, 2, 3, 4]),
            request(&[5, 6, 7, 8]),
            request(&[1, 2, 3, 4]),
        ],
    };
    let mut r = Replica::new(spec, 64);
    let mut events = Vec::new();
    let (mut now, mut result) = (0u64, (0, 0, Default::default()));
    for i in 0..3u32 {
        if i == 2 {
            result.2 = r.cached_tiers(&w.requests[2], 64);
        }
        r.enqueue(i, w.requests[i as usize].prompt_tokens);
        let sent = now;
        loop {
            events.clear();
            r.tick(Tick(now), &w, &mut events);
            now += 1;
            for e in &events {
                match *e {
                    EngineEvent::Admitted {
                        request: 2,
                        cached_tokens,
                    } => result.1 = cached_tokens,
                    EngineEvent::FirstToken { request: 2, tick } => result.0 = tick.0 + 1 - sent,
                    _ => {}
                }
            }
            if r.is_idle() {
                break;
            }
        }
    }
    result
}

#[test]
fn an_evicted_prefix_comes_back_from_host_memory_faster_than_it_is_computed() {
    let (cold, cold_cached, cold_tiers) = replay_a(spec(0));
    let (warm, warm_cached, warm_tiers) = replay_a(spec(1024));
    println!("A again: TTFT {cold} ticks without the host tier, {warm} with it");
    // Without the tier A is computed again: 256 tokens at 64 a tick.
    assert_eq!((cold, cold_cached), (4, 0));
    assert_eq!((cold_tiers.device, cold_tiers.host), (0, 0));
    // With it, 255 tokens come over the link (64 tokens' worth of the
    // prefill step) and one is computed: two ticks.
    assert_eq!((warm, warm_cached), (2, 255));
    assert_eq!((warm_tiers.device, warm_tiers.host), (0, 256));
}

#[test]
fn a_link_slower_than_computing_costs_no_more_than_computing() {
    // 16 tokens a tick would take 16 ticks for A; computing takes 4.
    let slow = EngineSpec {
        host_tokens_per_tick: 16,
        ..spec(1024)
    };
    let (ttft, cached, _) = replay_a(slow);
    assert_eq!((ttft, cached), (4, 255));
}

/// TTFT of prompt A on replica 2 after replica 1 computed it, with a store
/// shared by the pool moving `link` tokens a tick (0: no store), and the
/// tokens replica 2's admission reported cached.
fn a_elsewhere(link: u32) -> (u64, u32) {
    let w = Workload {
        block_tokens: 64,
        requests: vec![request(&[1, 2, 3, 4]), request(&[1, 2, 3, 4])],
    };
    let spec = EngineSpec {
        shared_tokens_per_tick: link,
        ..spec(0)
    };
    let mut store = sim_core::engine::PrefixCache::new(if link > 0 { 64 } else { 0 });
    let mut pool = [Replica::new(spec, 64), Replica::new(spec, 64)];
    let mut events = Vec::new();
    let (mut now, mut result) = (0u64, (0, 0));
    for (i, r) in pool.iter_mut().enumerate() {
        r.enqueue(i as u32, 256);
        let sent = now;
        while !r.is_idle() {
            events.clear();
            r.tick_shared(Tick(now), &w, &mut events, &mut store);
            now += 1;
            for e in &events {
                match *e {
                    EngineEvent::Admitted {
                        request: 1,
                        cached_tokens,
                    } => result.1 = cached_tokens,
                    EngineEvent::FirstToken { request: 1, tick } => result.0 = tick.0 + 1 - sent,
                    _ => {}
                }
            }
        }
    }
    result
}

#[test]
fn a_prefix_computed_on_one_replica_reaches_another_through_the_shared_store() {
    // Without a store replica 2 computes A again: 4 ticks.
    assert_eq!(a_elsewhere(0), (4, 0));
    // With one at 256 tokens a tick, 255 tokens arrive in 64 tokens'
    // worth of the prefill step and one is computed: 2 ticks.
    assert_eq!(a_elsewhere(256), (2, 255));
    // A store slower than computing costs what computing does.
    assert_eq!(a_elsewhere(16), (4, 255));
}
