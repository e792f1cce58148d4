//! The prefix cache against the `lru` crate on the same stream of prompts:
//! the measurement behind ARCHITECTURE.md's "hand-written parts" row.
//!
//! Run: `cargo bench -p sim-core --bench prefix_cache`. Prints the best of
//! five passes for each; asserts only that both caches agree on every hit.
//!
//! The stream is what a replica sees in the Routing Lab: chains of
//! prefix-chained block ids, most starting with one of a few hundred shared
//! system prompts and ending in blocks of their own, against a cache that
//! holds a fraction of them (so eviction runs on most touches).

use std::hint::black_box;
use std::num::NonZeroUsize;
use std::time::Instant;

use sim_core::engine::PrefixCache;
use sim_core::rng::Rng;

const PROMPTS: usize = 200_000;
const CAPACITY: usize = 40_000;

fn prompts() -> Vec<Vec<u32>> {
    let mut rng = Rng::new(7, 0);
    let mut next_id = 1_000_000u32;
    (0..PROMPTS)
        .map(|_| {
            // A shared prefix (one of 300, ids 0..300*16), then own blocks.
            let shared = rng.below(300);
            let shared_len = 4 + rng.below(12);
            let own = 2 + rng.below(30);
            let mut chain: Vec<u32> = (0..shared_len).map(|k| shared * 16 + k).collect();
            for _ in 0..own {
                chain.push(next_id);
                next_id += 1;
            }
            chain
        })
        .collect()
}

/// The lab's cache: match, then touch (as an engine does on admission).
fn ours(stream: &[Vec<u32>]) -> u64 {
    let mut cache = PrefixCache::new(CAPACITY);
    let mut hits = 0u64;
    for chain in stream {
        hits += cache.match_len(chain) as u64;
        cache.touch(chain);
    }
    hits
}

/// The same policy over `lru::LruCache` (the same hasher, leaf first).
fn crate_lru(stream: &[Vec<u32>]) -> u64 {
    let mut cache: lru::LruCache<u32, (), rustc_hash::FxBuildHasher> = lru::LruCache::with_hasher(
        NonZeroUsize::new(CAPACITY).unwrap(),
        rustc_hash::FxBuildHasher,
    );
    let mut hits = 0u64;
    for chain in stream {
        hits += chain.iter().take_while(|b| cache.contains(b)).count() as u64;
        for &b in chain.iter().rev() {
            cache.put(b, ());
        }
    }
    hits
}

fn best_of(f: impl Fn() -> u64) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut out = 0;
    for _ in 0..5 {
        let t = Instant::now();
        out = black_box(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
    }
    (best, out)
}

fn main() {
    let stream = prompts();
    let blocks: usize = stream.iter().map(Vec::len).sum();
    let (a, hits_a) = best_of(|| ours(&stream));
    let (b, hits_b) = best_of(|| crate_lru(&stream));
    assert_eq!(hits_a, hits_b, "the two caches must agree on every hit");
    println!(
        "{PROMPTS} prompts, {blocks} blocks, capacity {CAPACITY}, {hits_a} blocks hit\n\
         PrefixCache      {a:7.1} ms\n\
         lru::LruCache    {b:7.1} ms  ({:.2}x)",
        b / a
    );
}
