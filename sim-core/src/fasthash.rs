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
