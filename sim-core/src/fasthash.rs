//! A fast hasher for the simulator's integer keys (block ids, node indices).
//!
//! Block ids are already hashes of token content, so a general-purpose hasher's
//! mixing is wasted work on the hottest path (the prefix cache is touched once
//! per prompt block). This is the multiply-rotate scheme of rustc's `FxHasher`:
//! deterministic, portable across native and wasm, and not DoS-resistant, which
//! a simulator with no untrusted keys does not need.

use core::hash::{BuildHasherDefault, Hasher};

/// The multiply-rotate hasher; see the module docs.
#[derive(Clone, Copy, Debug, Default)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A hash map keyed through [`FxHasher`].
pub type FxHashMap<K, V> = hashbrown::HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// A map from block ids (`u32`) to slot numbers (`u32`), for the prefix cache, the
/// hottest structure of a run: open addressing with linear probing over a
/// power-of-two table, Fibonacci hashing of the id (Mooncake's ids are small
/// consecutive integers, generated ones are already hashes: both spread),
/// and backward-shift deletion, so no tombstones slow later probes. Half
/// full at most. A general map pays for generality here: every prompt block
/// of every admitted request is looked up, inserted or evicted.
#[derive(Clone, Debug, Default)]
pub struct BlockMap {
    /// `(key, value)`; `EMPTY` in `value` marks a free slot. A boxed slice
    /// rather than a `Vec`: indexing one is a bounds check in place, where a
    /// `Vec`'s goes through `Index::index`, which the size-optimised browser
    /// build leaves as a call in these loops.
    slots: alloc::boxed::Box<[(u32, u32)]>,
    len: usize,
    /// `64 - log2(slots.len())`: the shift that maps a hash onto the table.
    shift: u32,
}

/// A free slot's value (slot numbers never reach it).
const EMPTY: u32 = u32::MAX;

impl BlockMap {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn home(&self, key: u32) -> usize {
        (u64::from(key).wrapping_mul(SEED) >> self.shift) as usize
    }

    /// The slot holding `key`, or the free slot where it would go.
    #[inline(always)]
    fn probe(&self, key: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, v) = self.slots[i];
            if v == EMPTY || k == key {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: u32) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (_, v) = self.slots[self.probe(key)];
        (v != EMPTY).then_some(v)
    }

    /// Set `key` to `value` (`value` must not be `u32::MAX`).
    pub fn insert(&mut self, key: u32, value: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let i = self.probe(key);
        if self.slots[i].1 == EMPTY {
            self.len += 1;
        }
        self.slots[i] = (key, value);
    }

    /// Remove `key`, if held.
    pub fn remove(&mut self, key: u32) {
        if self.slots.is_empty() {
            return;
        }
        let mask = self.slots.len() - 1;
        let mut hole = self.probe(key);
        if self.slots[hole].1 == EMPTY {
            return;
        }
        self.len -= 1;
        // Backward shift: pull later entries of the run into the hole when
        // their home is not between the hole and where they sit.
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let (k, v) = self.slots[i];
            if v == EMPTY {
                break;
            }
            let home = self.home(k);
            let stays = if hole <= i {
                hole < home && home <= i
            } else {
                hole < home || home <= i
            };
            if !stays {
                self.slots[hole] = (k, v);
                hole = i;
            }
        }
        self.slots[hole] = (0, EMPTY);
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(16);
        let old = core::mem::replace(
            &mut self.slots,
            alloc::vec![(0, EMPTY); size].into_boxed_slice(),
        );
        self.shift = 64 - size.trailing_zeros();
        self.len = 0;
        for &(k, v) in old.iter() {
            if v != EMPTY {
                self.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The map agrees with a plain one through inserts and removals that
    /// wrap around the table and shift runs back.
    #[test]
    fn agrees_with_a_plain_map() {
        let mut m = BlockMap::default();
        let mut plain = hashbrown::HashMap::new();
        let mut x: u64 = 7;
        for step in 0..20_000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let key = ((x >> 40) % 300) as u32; // few keys: many collisions and removals
            if x % 3 == 0 {
                m.remove(key);
                plain.remove(&key);
            } else {
                m.insert(key, step);
                plain.insert(key, step);
            }
            assert_eq!(m.len(), plain.len());
        }
        for k in 0..300 {
            assert_eq!(m.get(k), plain.get(&k).copied(), "key {k}");
        }
    }
}
