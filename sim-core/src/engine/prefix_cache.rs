//! A replica's prefix cache: least-recently-used hash blocks.
//!
//! Blocks here hold KV that finished requests left behind; they do not count
//! against the replica's KV capacity (the article's lab makes the same
//! simplification, §4.2). A lookup returns the longest leading run of a prompt's
//! blocks that is resident: ids are prefix-chained, so the run is the reusable
//! prefix. Blocks of one prompt are stamped leaf-first, so eviction trims chains
//! from their tails and never leaves a hole at the root, as vLLM's block pool
//! does by freeing a request's blocks in reverse order.

use crate::fasthash::FxHashMap;
use alloc::collections::VecDeque;

use crate::workload::BlockId;

/// An LRU set of block ids with a fixed capacity in blocks.
#[derive(Clone, Debug, Default)]
pub struct PrefixCache {
    capacity: usize,
    clock: u64,
    /// Resident block → stamp of its last use.
    stamps: FxHashMap<BlockId, u64>,
    /// Uses in stamp order; entries whose stamp is no longer current are stale.
    order: VecDeque<(BlockId, u64)>,
}

impl PrefixCache {
    /// An empty cache holding at most `capacity` blocks (0 disables caching).
    pub fn new(capacity: usize) -> PrefixCache {
        PrefixCache {
            capacity,
            ..PrefixCache::default()
        }
    }

    /// Blocks currently resident.
    pub fn len(&self) -> usize {
        self.stamps.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty()
    }

    /// How many leading blocks of `blocks` are resident (no side effects).
    pub fn match_len(&self, blocks: &[BlockId]) -> usize {
        blocks
            .iter()
            .take_while(|b| self.stamps.contains_key(*b))
            .count()
    }

    /// Mark `blocks` as just used, inserting the missing ones and evicting the
    /// least recently used beyond capacity.
    pub fn touch(&mut self, blocks: &[BlockId]) {
        if self.capacity == 0 {
            return;
        }
        // Leaf first: the root of the chain gets the newest stamp.
        for &b in blocks.iter().rev() {
            self.clock += 1;
            self.stamps.insert(b, self.clock);
            self.order.push_back((b, self.clock));
        }
        while self.stamps.len() > self.capacity {
            match self.order.pop_front() {
                Some((b, stamp)) => {
                    if self.stamps.get(&b) == Some(&stamp) {
                        self.stamps.remove(&b);
                    }
                }
                None => break,
            }
        }
        // Drop stale entries so the queue stays proportional to the capacity.
        if self.order.len() > 4 * self.capacity + 64 {
            let stamps = &self.stamps;
            self.order.retain(|(b, s)| stamps.get(b) == Some(s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_leading_run_only() {
        let mut c = PrefixCache::new(10);
        c.touch(&[1, 2, 3]);
        assert_eq!(c.match_len(&[1, 2, 3, 4]), 3);
        assert_eq!(c.match_len(&[1, 9, 3]), 1);
        assert_eq!(c.match_len(&[2, 3]), 2);
        assert_eq!(c.match_len(&[7]), 0);
    }

    #[test]
    fn evicts_least_recent_from_the_tail() {
        let mut c = PrefixCache::new(4);
        c.touch(&[1, 2, 3]);
        c.touch(&[10, 11]);
        // Five blocks for four places: the leaf of the older chain goes.
        assert_eq!(c.len(), 4);
        assert_eq!(c.match_len(&[1, 2, 3]), 2);
        assert_eq!(c.match_len(&[10, 11]), 2);
        // Reusing the old root refreshes it; the next eviction takes its child.
        c.touch(&[1]);
        c.touch(&[20]);
        assert_eq!(c.match_len(&[1, 2]), 1);
        assert_eq!(c.match_len(&[10, 11]), 2);
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let mut c = PrefixCache::new(0);
        c.touch(&[1, 2]);
        assert!(c.is_empty());
    }
}
