//! The engine's LoRA adapters: a request on an adapter not in a slot waits
//! for its load (from host memory or cold), a batch never holds more
//! distinct adapters than there are slots (the waiting request on a
//! further adapter is passed over, not blocking the queue), and evicted
//! adapters come back from the host cache. Off by default, where every
//! golden output stays as it was (the CLI's golden tests run with it off).

use sim_core::engine::{AdapterSpec, EngineEvent, EngineSpec, Replica};
use sim_core::time::Tick;
use sim_core::workload::{Request, Workload};

/// Four slots, 64 prompt tokens a prefill tick, no prefix cache.
fn spec() -> EngineSpec {
    EngineSpec {
        slots: 4,
        kv_blocks: 4096,
        kv_block_tokens: 16,
        prefill_budget: 64,
        cache_tokens: 0,
        cache_in_kv: false,
        host_cache_tokens: 0,
        host_tokens_per_tick: 0,
        shared_tokens_per_tick: 0,
    }
}

/// One adapter slot, two in host memory; 3 ticks from host, 10 cold.
fn adapters() -> AdapterSpec {
    AdapterSpec {
        slots: 1,
        host: 2,
        load_host_ticks: 3,
        load_cold_ticks: 10,
        step_permille: 0,
    }
}

fn request(adapter: u16, output: u32) -> Request {
    Request {
        adapter,
        arrival: Tick(0),
        prompt_tokens: 64,
        output_tokens: output,
        blocks: vec![u32::from(adapter) + 1],
        long: false,
    }
}

/// Enqueue every request of `w` at tick 0 and run until all finish:
/// each request's first-token tick (the end of the tick whose step gave it).
fn first_tokens(replica: &mut Replica, w: &Workload) -> Vec<u64> {
    let mut firsts = vec![0; w.requests.len()];
    for (i, r) in w.requests.iter().enumerate() {
        replica.enqueue(i as u32, r.prompt_tokens);
    }
    let mut events = Vec::new();
    let mut now = 0;
    while !replica.is_idle() {
        replica.tick(Tick(now), w, &mut events);
        for e in events.drain(..) {
            if let EngineEvent::FirstToken { request, tick } = e {
                firsts[request as usize] = tick.0 + 1;
            }
        }
        now += 1;
        assert!(now < 10_000, "the replica never drained");
    }
    firsts
}

fn workload(requests: Vec<Request>) -> Workload {
    Workload {
        block_tokens: 64,
        requests,
    }
}

#[test]
fn a_cold_adapter_delays_its_first_token_by_the_load() {
    let w = workload(vec![request(1, 1)]);
    let base = first_tokens(&mut Replica::new(spec(), 64), &w);
    let mut r = Replica::new(spec(), 64).with_adapters(adapters());
    let lora = first_tokens(&mut r, &w);
    assert_eq!(base, vec![1]);
    assert_eq!(
        lora,
        vec![11],
        "10 ticks of cold load, then the prefill tick"
    );
    let s = r.adapters().unwrap().stats();
    assert_eq!((s.cold_loads, s.host_loads, s.load_ticks), (1, 0, 10));
}

#[test]
fn with_adapters_off_the_engine_is_unchanged() {
    let w = workload(vec![request(1, 5), request(2, 3), request(1, 4)]);
    let base = first_tokens(&mut Replica::new(spec(), 64), &w);
    let off = first_tokens(
        &mut Replica::new(spec(), 64).with_adapters(AdapterSpec::default()),
        &w,
    );
    assert_eq!(base, off);
    assert!(Replica::new(spec(), 64)
        .with_adapters(AdapterSpec::default())
        .adapters()
        .is_none());
}

#[test]
fn a_request_on_a_further_adapter_is_passed_over_not_blocking() {
    // Adapter 1 runs; adapter 2 waits for a slot; the second adapter-1
    // request behind it joins the batch at once (vLLM's max_loras skip).
    let w = workload(vec![request(1, 20), request(2, 1), request(1, 1)]);
    let mut r = Replica::new(spec(), 64).with_adapters(adapters());
    let firsts = first_tokens(&mut r, &w);
    assert_eq!(firsts[0], 11);
    assert_eq!(
        firsts[2], 12,
        "prefilled right after the first, on the loaded adapter"
    );
    assert!(
        firsts[1] > 20,
        "adapter 2 waits until adapter 1's batch is gone: {firsts:?}"
    );
    let s = r.adapters().unwrap().stats();
    assert!(s.skipped > 0);
    assert_eq!((s.cold_loads, s.evictions), (2, 1));
}

#[test]
fn an_evicted_adapter_comes_back_from_host_memory() {
    // One batch slot, so the three run in turn: 1 cold, 2 cold (evicts
    // 1), 1 again from host (evicts 2): 10 + 10 + 3 ticks of loads.
    let w = workload(vec![request(1, 1), request(2, 1), request(1, 1)]);
    let one_slot = EngineSpec { slots: 1, ..spec() };
    let mut r = Replica::new(one_slot, 64).with_adapters(adapters());
    first_tokens(&mut r, &w);
    let s = r.adapters().unwrap().stats();
    assert_eq!((s.cold_loads, s.host_loads, s.evictions), (2, 1, 2));
    assert_eq!(s.load_ticks, 23);
}

#[test]
fn a_mixed_batch_runs_slower_by_its_step_factor() {
    // Two adapters in two slots decoding 100 tokens: at 500‰ per extra
    // adapter, every other step is overhead.
    let spec_ad = AdapterSpec {
        slots: 2,
        step_permille: 500,
        load_cold_ticks: 0,
        ..adapters()
    };
    let one = workload(vec![request(1, 100), request(1, 100)]);
    let two = workload(vec![request(1, 100), request(2, 100)]);
    let done = |w: &Workload| {
        let mut r = Replica::new(spec(), 64).with_adapters(spec_ad);
        first_tokens(&mut r, w);
        r.stats().busy_ticks
    };
    let (same, mixed) = (done(&one), done(&two));
    assert_eq!(same, 101);
    assert!(
        (150..=152).contains(&mixed),
        "half a step more per step: {mixed}"
    );
}
