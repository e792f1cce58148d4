//! SGLang's `prefix_hash` policy, pinned to `sgl-project/sglang` commit
//! `065f331fc8a7df2c27dd749f324c54d6924c0d7e`
//! (`sgl-model-gateway/src/policies/prefix_hash.rs`; article §6.2): consistent
//! hashing of the prompt's head, with a bounded-load escape.
//!
//! 1. Hash the first `prefix_tokens` tokens of the prompt.
//! 2. Find the owning worker on a consistent-hash ring (150 virtual nodes per
//!    worker, as the gateway's `HashRing` builds it).
//! 3. If the owner's load is at most `(total load + 1) / workers × load_factor`
//!    (the +1 counts the incoming request), send it there.
//! 4. Otherwise take the least-loaded worker among those within that bound (the
//!    first in index order, as `min_by_key` picks), or the owner if none is.
//!
//! Where the lab differs: prompts are chains of hash-block ids, so the head is
//! the first ⌈`prefix_tokens` / tokens per block⌉ blocks, and positions on the
//! ring come from a portable 64-bit mix of the replica index (the gateway hashes
//! worker URLs with blake3 and the head with xxh3). Which replica owns a given
//! prefix therefore differs from any real deployment, but how often prefixes
//! collide, and what the load bound does, are the same. The ring is rebuilt
//! when the pool grows, moving about 1/(n + 1) of the keys.
//!
//! Defaults are upstream's `PrefixHashConfig::default()`: 256 tokens, 1.25.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{Chooser, Origin, Decision, Reason, ReplicaState, RouteContext, Router, Rule, HasRules, Rows};
use crate::params::{narrow, Param};

/// Virtual nodes per worker on the ring (the gateway's `VIRTUAL_NODES_PER_WORKER`).
pub const VIRTUAL_NODES: u32 = 150;

/// Settings of [`SglangPrefixHash`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PrefixHashSettings {
    /// `prefix_token_count`: tokens of the prompt's head that are hashed.
    pub prefix_tokens: u32,
    /// `load_factor`: how far above the average load the owner may be.
    pub load_factor: f64,
}

impl Default for PrefixHashSettings {
    fn default() -> Self {
        PrefixHashSettings {
            prefix_tokens: 256,
            load_factor: 1.25,
        }
    }
}

/// Whether a worker with `load` may take one more request, with `total` load
/// over `workers` workers (upstream's `load_ok`; an idle pool accepts anything).
pub fn load_ok(load: u64, total: u64, workers: usize, load_factor: f64) -> bool {
    if total == 0 || workers == 0 {
        return true;
    }
    let average = (total + 1) as f64 / workers as f64;
    load as f64 <= average * load_factor
}

/// SplitMix64 finaliser: a portable, well-mixed 64-bit hash step.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The hash of a prompt's head: its first `blocks` block ids, chained.
pub fn head_hash(ids: &[u32], blocks: usize) -> u64 {
    ids.iter()
        .take(blocks)
        .fold(0x5151_5151_5151_5151u64, |h, &b| mix(h ^ u64::from(b)))
}

/// A consistent-hash ring over `workers` workers.
#[derive(Clone, Debug, Default)]
pub struct Ring {
    /// (position, worker), sorted by position.
    points: Vec<(u64, u32)>,
    workers: usize,
}

impl Ring {
    /// The ring for workers `0..workers`.
    pub fn new(workers: usize) -> Ring {
        let mut points: Vec<(u64, u32)> = (0..workers as u32)
            .flat_map(|w| {
                (0..VIRTUAL_NODES).map(move |v| (mix((u64::from(w) << 32) | u64::from(v)), w))
            })
            .collect();
        points.sort();
        Ring { points, workers }
    }

    /// How many workers the ring was built for.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The worker owning `key`: the first virtual node at or after it,
    /// wrapping around.
    pub fn owner(&self, key: u64) -> Option<u32> {
        if self.points.is_empty() {
            return None;
        }
        let i = self.points.partition_point(|&(p, _)| p < key);
        Some(self.points[i % self.points.len()].1)
    }
}

/// SGLang's `prefix_hash` policy.
#[derive(Clone, Debug, Default)]
pub struct SglangPrefixHash {
    settings: PrefixHashSettings,
    ring: Ring,
}

impl SglangPrefixHash {
    /// The decision with a ring built for the current pool.
    fn decide<S: ReplicaState>(&self, ctx: &RouteContext<'_, S>) -> Option<Decision> {
        let n = ctx.replicas.len();
        if n == 0 {
            return None;
        }
        let loads: Vec<u64> = ctx
            .replicas
            .iter()
            .map(|r| u64::from(r.outstanding()))
            .collect();
        let total: u64 = loads.iter().sum();
        let least_within = || {
            (0..n)
                .filter(|&i| load_ok(loads[i], total, n, self.settings.load_factor))
                .min_by_key(|&i| (loads[i], i))
        };
        let blocks = ctx.request.blocks.as_slice();
        if blocks.is_empty() {
            // Nothing to hash: the least loaded (upstream's fallback branch).
            let i = (0..n).min_by_key(|&i| (loads[i], i))?;
            return Some(Decision {
                replica: i as u32,
                reason: Reason::LeastLoaded {
                    load: loads[i] as u32,
                },
            });
        }
        let head_blocks = self.settings.prefix_tokens.div_ceil(ctx.block_tokens.max(1)).max(1);
        let owner = self
            .ring
            .owner(head_hash(blocks, head_blocks as usize))? as usize;
        if load_ok(loads[owner], total, n, self.settings.load_factor) {
            return Some(Decision {
                replica: owner as u32,
                reason: Reason::RingOwner {
                    load: loads[owner] as u32,
                },
            });
        }
        let target = least_within().unwrap_or(owner);
        Some(Decision {
            replica: target as u32,
            reason: Reason::RingOverloaded {
                owner: owner as u32,
                owner_load: loads[owner] as u32,
                load: loads[target] as u32,
            },
        })
    }
}

impl Router for SglangPrefixHash {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        _choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        if self.ring.workers() != ctx.replicas.len() {
            // The pool changed: rebuild the ring (about 1/(n + 1) of keys move).
            self.ring = Ring::new(ctx.replicas.len());
        }
        self.decide(ctx)
    }

    fn peek<S: ReplicaState>(
        &self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        if self.ring.workers() != ctx.replicas.len() {
            return self.clone().select(ctx, choose);
        }
        self.decide(ctx)
    }
}

/// Shorthand for the parameter rows below.
impl Rule for SglangPrefixHash {
    const NAME: &'static str = "sglang-prefix-hash";
    const TITLE: &'static str = "SGLang prefix hash";
    const SIGNAL: &'static str = "Hashes the head of the prompt onto a consistent-hash ring; an owner far above the average load is bypassed.";
    const ORIGIN: Origin = Origin::Upstream {
        project: "SGLang model gateway",
        version: "065f331f",
        file: "sgl-model-gateway/src/policies/prefix_hash.rs",
    };
    type Settings = PrefixHashSettings;
    fn build(settings: &PrefixHashSettings) -> Self {
        SglangPrefixHash {
            settings: *settings,
            ring: Ring::default(),
        }
    }
}

impl<C: HasRules> Rows<C> for SglangPrefixHash {
    const ROWS: &'static [Param<C>] = &[
        Param::<C>::whole(
            "hash-prefix-tokens",
            "Prefix hash: head hashed",
            "tokens",
            (1, 65_536, 1),
            |c| c.rules().sglang_prefix_hash.prefix_tokens.into(),
            |c, x| c.rules_mut().sglang_prefix_hash.prefix_tokens = narrow(x),
        )
        .doc("Tokens at the start of the prompt that pick the owner on the ring.")
        .advanced(),
        Param::<C>::real(
            "hash-load-factor",
            "Prefix hash: load factor",
            "",
            (1.0, 10.0, 0.05),
            |c| c.rules().sglang_prefix_hash.load_factor,
            |c, x| c.rules_mut().sglang_prefix_hash.load_factor = x,
        )
        .doc("The owner is bypassed above the average load times this.")
        .advanced(),
    ];
}
