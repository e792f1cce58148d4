//! llm-d's approximate `prefix-cache-scorer` (llm-d-inference-scheduler
//! v0.8.0: the scorer in `pkg/epp/framework/plugins/scheduling/scorer/
//! prefix/plugin.go`, its index in `pkg/epp/framework/plugins/
//! requestcontrol/dataproducer/approximateprefix/`). The gateway cannot see
//! the engines' caches, so it remembers which endpoint it sent each prompt
//! block to and assumes the block is still cached there.
//!
//! - Upstream hashes the prompt's text in blocks of 16 tokens × 4
//!   characters, chained, the last partial block included, at most 256 of
//!   them. Here a request's hash blocks (already chained and at the
//!   workload's block size) stand in for them, the first 256.
//! - The index keeps one LRU per endpoint, of as many blocks as the
//!   endpoint's KV cache holds (upstream's auto-tune: vLLM's block count),
//!   or 31,250 when the endpoint does not report it. After each pick every
//!   block of the request is added to the chosen endpoint's LRU in order,
//!   so its last block is the most recent.
//! - The match walks the request's blocks and, for each, credits every
//!   endpoint the index has it on, stopping at the first block no endpoint
//!   has. An endpoint is credited for a later block even when it lacks an
//!   earlier one: upstream's own shortcut, kept.
//! - The score is matched blocks over the request's blocks.

use alloc::vec::Vec;

use crate::engine::PrefixCache;
use crate::workload::BlockId;

/// Most blocks of a prompt upstream hashes (`maxPrefixBlocksToMatch`).
pub const MAX_BLOCKS: usize = 256;

/// Upstream's LRU size for an endpoint that reports no cache size
/// (`defaultLRUCapacityPerServer`).
pub const DEFAULT_CAPACITY: usize = 31_250;

/// The gateway's memory of where it sent each block: an LRU per endpoint.
#[derive(Clone, Debug, Default)]
pub struct Index {
    servers: Vec<PrefixCache>,
}

impl Index {
    /// An empty index.
    pub fn new() -> Index {
        Index::default()
    }

    /// The blocks of `blocks` upstream would hash (the first 256).
    pub fn hashes(blocks: &[BlockId]) -> &[BlockId] {
        &blocks[..blocks.len().min(MAX_BLOCKS)]
    }

    /// Make room for `n` endpoints; a new one's LRU holds `capacity(i)`
    /// blocks, fixed when it is first seen (as upstream sizes it).
    pub fn ensure(&mut self, n: usize, capacity: impl Fn(usize) -> usize) {
        while self.servers.len() < n {
            let i = self.servers.len();
            self.servers.push(PrefixCache::new(capacity(i)));
        }
    }

    /// Per endpoint (of the first `n`), the blocks of `hashes` credited to it.
    pub fn matches(&self, hashes: &[BlockId], n: usize) -> Vec<u32> {
        let mut out = alloc::vec![0u32; n];
        for h in hashes {
            let mut any = false;
            for (i, s) in self.servers.iter().take(n).enumerate() {
                if s.match_len(core::slice::from_ref(h)) == 1 {
                    out[i] += 1;
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
        out
    }

    /// Record that `hashes` went to endpoint `i`.
    pub fn add(&mut self, i: usize, hashes: &[BlockId]) {
        if let Some(s) = self.servers.get_mut(i) {
            for h in hashes {
                s.touch(core::slice::from_ref(h));
            }
        }
    }
}

/// The score of an endpoint credited with `matched` of `total` blocks
/// (0 for a prompt with none).
pub fn score(matched: u32, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        f64::from(matched) / total as f64
    }
}
