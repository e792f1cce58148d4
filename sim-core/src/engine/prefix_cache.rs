//! A replica's prefix cache: least-recently-used hash blocks.
//!
//! Blocks here hold KV that finished requests left behind; they do not count
//! against the replica's KV capacity (the article's lab makes the same
//! simplification, §4.2). An engine whose cache lives in its free KV (as
//! vLLM's does) moves the capacity with [`PrefixCache::set_capacity`]. A lookup returns the longest leading run of a prompt's
//! blocks that is resident: ids are prefix-chained, so the run is the reusable
//! prefix. Blocks of one prompt are stamped leaf-first, so eviction trims chains
//! from their tails and never leaves a hole at the root, as vLLM's block pool
//! does by freeing a request's blocks in reverse order.

use alloc::vec::Vec;
use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;

use crate::workload::BlockId;

/// No node (the end of the recency list).
const NONE: u32 = u32::MAX;

/// One resident block in the recency list.
#[derive(Clone, Copy, Debug)]
struct Node {
    block: BlockId,
    /// Next more recently used node.
    newer: u32,
    /// Next less recently used node.
    older: u32,
}

/// An LRU set of block ids with a fixed capacity in blocks: a map from
/// block to node (hashbrown with rustc's Fx hash: block ids are already
/// spread), and the nodes in a doubly linked recency list kept in one
/// vector (no allocation per use once full; every touch and eviction is a few
/// index writes, which matters since every prompt block passes through here).
#[derive(Clone, Debug, Default)]
pub struct PrefixCache {
    capacity: usize,
    index: HashMap<u32, u32, FxBuildHasher>,
    nodes: Vec<Node>,
    /// Most recently used node.
    newest: u32,
    /// Least recently used node: the next to go.
    oldest: u32,
    /// Nodes emptied by a shrinking capacity, to reuse.
    spare: Vec<u32>,
    /// Bumped whenever a block enters or leaves (not on a mere touch), so a
    /// caller can reuse a [`PrefixCache::match_len`] while it is unchanged.
    version: u64,
}

impl PrefixCache {
    /// An empty cache holding at most `capacity` blocks (0 disables caching).
    pub fn new(capacity: usize) -> PrefixCache {
        PrefixCache {
            capacity,
            newest: NONE,
            oldest: NONE,
            ..PrefixCache::default()
        }
    }

    /// Blocks currently resident.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Changes whenever the set of resident blocks changes.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// How many leading blocks of `blocks` are resident (no side effects).
    pub fn match_len(&self, blocks: &[BlockId]) -> usize {
        blocks
            .iter()
            .take_while(|&&b| self.index.contains_key(&b))
            .count()
    }

    // The list's links are read and written through a slice, which keeps
    // the bounds checks in place at any opt-level; every prompt block passes
    // through here.
    #[inline(always)]
    fn unlink(&mut self, i: u32) {
        let nodes = self.nodes.as_mut_slice();
        let Node { newer, older, .. } = nodes[i as usize];
        match newer {
            NONE => self.newest = older,
            n => nodes[n as usize].older = older,
        }
        match older {
            NONE => self.oldest = newer,
            o => nodes[o as usize].newer = newer,
        }
    }

    #[inline(always)]
    fn push_newest(&mut self, i: u32) {
        let nodes = self.nodes.as_mut_slice();
        nodes[i as usize].newer = NONE;
        nodes[i as usize].older = self.newest;
        match self.newest {
            NONE => self.oldest = i,
            n => nodes[n as usize].newer = i,
        }
        self.newest = i;
    }

    /// Hold at most `capacity` blocks from now on, evicting the least
    /// recently used beyond it.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        while self.index.len() > capacity {
            let i = self.oldest;
            self.unlink(i);
            self.index.remove(&self.nodes[i as usize].block);
            self.spare.push(i);
            self.version += 1;
        }
    }

    /// Mark `blocks` as just used, inserting the missing ones and evicting the
    /// least recently used beyond capacity.
    pub fn touch(&mut self, blocks: &[BlockId]) {
        if self.capacity == 0 {
            return;
        }
        // Leaf first: the root of the chain ends up the most recent.
        for &b in blocks.iter().rev() {
            if let Some(&i) = self.index.get(&b) {
                if i != self.newest {
                    self.unlink(i);
                    self.push_newest(i);
                }
                continue;
            }
            let i = if self.index.len() < self.capacity {
                if let Some(i) = self.spare.pop() {
                    self.nodes[i as usize].block = b;
                    i
                } else {
                    self.nodes.push(Node {
                        block: b,
                        newer: NONE,
                        older: NONE,
                    });
                    (self.nodes.len() - 1) as u32
                }
            } else {
                // Full: the least recently used node is reused for `b`.
                let i = self.oldest;
                self.unlink(i);
                self.index.remove(&self.nodes[i as usize].block);
                self.nodes[i as usize].block = b;
                i
            };
            self.index.insert(b, i);
            self.version += 1;
            self.push_newest(i);
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
    fn a_shrinking_capacity_evicts_the_oldest_and_reuses_their_places() {
        let mut c = PrefixCache::new(6);
        c.touch(&[1, 2, 3]);
        c.touch(&[10, 11, 12]);
        c.set_capacity(4);
        assert_eq!(c.len(), 4);
        assert_eq!(c.match_len(&[1, 2, 3]), 1, "the older chain's tail went");
        c.set_capacity(6);
        c.touch(&[20, 21]);
        assert_eq!(c.len(), 6);
        assert_eq!(c.nodes.len(), 6, "emptied places are reused");
        assert_eq!(c.match_len(&[10, 11, 12]), 3);
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let mut c = PrefixCache::new(0);
        c.touch(&[1, 2]);
        assert!(c.is_empty());
    }
}
