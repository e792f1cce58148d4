//! SGLang's `cache_aware` policy as the SGLang model gateway runs it, pinned to
//! `sgl-project/sglang` commit `b93974f140de1e545d9134d87e77f0bd1fbf3014`
//! (`sgl-model-gateway/src/policies/cache_aware.rs` and `tree.rs`; article §5.5).
//!
//! What the gateway does, and what this file does the same way:
//! - **Load** is the gateway's count of requests it sent and that have not
//!   finished (`worker.load()`): outstanding requests here.
//! - **Imbalance**: if `max − min > abs` **and** `max > min × rel`, the least
//!   loaded worker takes the request (first in index order on a tie, as
//!   `min_by_key` picks), and the request is still inserted into the tree for it.
//! - **Otherwise**, the router-side **approximate tree** answers "which worker
//!   was last sent the longest prefix of this prompt?". If the matched share
//!   of the prompt exceeds `cache_threshold`, that worker wins; otherwise the
//!   least loaded. Either way the prompt is inserted for the chosen worker.
//! - The tree is the router's *history*, not the engines' caches: it can claim
//!   a worker holds a prefix its engine has long evicted. It is trimmed by an
//!   **eviction event** every `eviction_interval` ticks, which removes each
//!   worker's least recently used leaves until the worker holds at most
//!   `max_tree_tokens` tokens (the gateway counts characters; see below).
//!
//! Where the lab must differ: prompts here are chains of hash-block ids, not
//! text, so the tree matches block by block and sizes are counted in tokens
//! (block × tokens per block) instead of characters. When several workers
//! share the deepest matched node, the gateway returns whichever its concurrent
//! map yields first; the lab takes the one that touched the node most recently
//! (lowest index on a tie), which is deterministic. Eviction runs at decision
//! time for every interval boundary passed since the last decision, which gives
//! the same tree at every decision as a background timer would.
//!
//! Defaults are the gateway binary's at that commit: cache threshold 0.3,
//! absolute 64, relative 1.5, eviction every 120 s (1,200 ticks at the 100 ms
//! per tick of the trace replays), and a tree cap of 2²⁶ = 67,108,864.

use alloc::vec;
use alloc::vec::Vec;
use hashbrown::HashMap;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use super::{Chooser, Origin, Decision, Reason, ReplicaState, RouteContext, Router, Rule, HasRules, Rows};
use crate::params::{narrow, Param, Show};
use crate::workload::BlockId;

/// Settings of [`SglangCacheAware`] (the gateway's names in the doc lines).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CacheAwareSettings {
    /// `cache_threshold`: share of the prompt a match must exceed (0–1).
    pub cache_threshold: f64,
    /// `balance_abs_threshold`, in requests.
    pub abs_threshold: u32,
    /// `balance_rel_threshold`.
    pub rel_threshold: f64,
    /// `eviction_interval_secs`, in ticks (0: never evict).
    pub eviction_interval: u64,
    /// `max_tree_size`, in tokens per worker.
    pub max_tree_tokens: u64,
}

impl Default for CacheAwareSettings {
    fn default() -> Self {
        CacheAwareSettings {
            cache_threshold: 0.3,
            abs_threshold: 64,
            rel_threshold: 1.5,
            eviction_interval: 1_200,
            max_tree_tokens: 67_108_864,
        }
    }
}

/// One node of the tree: a hash block, its children, and the workers that were
/// sent a prompt through it (with when they last were).
#[derive(Clone, Debug, Default)]
struct Node {
    block: BlockId,
    parent: usize,
    children: Vec<usize>,
    /// (worker, last access tick).
    tenants: Vec<(u32, u64)>,
}

/// The router-side approximate tree: one per pool, every worker a tenant.
/// Nodes live in an arena; one map from (parent, block) to child finds edges,
/// so a node with thousands of children (the root) costs no more than one with
/// a single child.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    edges: HashMap<(usize, BlockId), usize, FxBuildHasher>,
    free: Vec<usize>,
    /// Tokens held per worker.
    sizes: Vec<u64>,
}

const ROOT: usize = 0;

impl Default for Tree {
    fn default() -> Self {
        Tree {
            nodes: vec![Node::default()],
            edges: HashMap::default(),
            free: Vec::new(),
            sizes: Vec::new(),
        }
    }
}

impl Tree {
    fn size_mut(&mut self, worker: u32) -> &mut u64 {
        let w = worker as usize;
        if self.sizes.len() <= w {
            self.sizes.resize(w + 1, 0);
        }
        &mut self.sizes[w]
    }

    /// Tokens the tree attributes to `worker`.
    pub fn size(&self, worker: u32) -> u64 {
        self.sizes.get(worker as usize).copied().unwrap_or(0)
    }

    /// Record that `blocks` were sent to `worker` at `now`.
    pub fn insert(&mut self, blocks: &[BlockId], worker: u32, now: u64, block_tokens: u32) {
        let mut at = ROOT;
        for &b in blocks {
            let next = match self.edges.get(&(at, b)) {
                Some(&n) => n,
                None => {
                    let node = Node {
                        block: b,
                        parent: at,
                        ..Node::default()
                    };
                    let n = match self.free.pop() {
                        Some(n) => {
                            self.nodes[n] = node;
                            n
                        }
                        None => {
                            self.nodes.push(node);
                            self.nodes.len() - 1
                        }
                    };
                    self.nodes[at].children.push(n);
                    self.edges.insert((at, b), n);
                    n
                }
            };
            let tenants = &mut self.nodes[next].tenants;
            match tenants.iter_mut().find(|t| t.0 == worker) {
                Some(t) => t.1 = now,
                None => {
                    tenants.push((worker, now));
                    *self.size_mut(worker) += u64::from(block_tokens);
                }
            }
            at = next;
        }
    }

    /// The longest prefix of `blocks` in the tree, in blocks, and the worker to
    /// send it to: the most recent tenant of the deepest matched node.
    pub fn prefix_match(&self, blocks: &[BlockId]) -> (usize, Option<u32>) {
        let mut at = ROOT;
        let mut depth = 0;
        for &b in blocks {
            match self.edges.get(&(at, b)) {
                Some(&n) => {
                    at = n;
                    depth += 1;
                }
                None => break,
            }
        }
        let tenant = self.nodes[at]
            .tenants
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|t| t.0);
        (depth, tenant)
    }

    /// Trim every worker above `max_tokens` by removing its least recently used
    /// leaves (nodes it holds where none of the node's children are its).
    pub fn evict(&mut self, max_tokens: u64, block_tokens: u32) {
        for worker in 0..self.sizes.len() as u32 {
            if self.size(worker) <= max_tokens {
                continue;
            }
            let holds = |tree: &Tree, n: usize| tree.nodes[n].tenants.iter().any(|t| t.0 == worker);
            let is_leaf =
                |tree: &Tree, n: usize| !tree.nodes[n].children.iter().any(|&c| holds(tree, c));
            let mut leaves: Vec<(u64, usize)> = (1..self.nodes.len())
                .filter(|&n| holds(self, n) && is_leaf(self, n))
                .map(|n| (self.access(n, worker), n))
                .collect();
            while self.size(worker) > max_tokens && !leaves.is_empty() {
                // Oldest leaf first (lowest node index on a tie).
                let (pos, _) = leaves
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, l)| **l)
                    .map(|(i, l)| (i, *l))
                    .unwrap_or((0, (0, 0)));
                let (_, n) = leaves.swap_remove(pos);
                self.nodes[n].tenants.retain(|t| t.0 != worker);
                *self.size_mut(worker) -= u64::from(block_tokens);
                let parent = self.nodes[n].parent;
                if self.nodes[n].tenants.is_empty() && self.nodes[n].children.is_empty() {
                    let b = self.nodes[n].block;
                    self.edges.remove(&(parent, b));
                    self.nodes[parent].children.retain(|&c| c != n);
                    self.nodes[n] = Node::default();
                    self.free.push(n);
                }
                if parent != ROOT && holds(self, parent) && is_leaf(self, parent) {
                    leaves.push((self.access(parent, worker), parent));
                }
            }
        }
    }

    fn access(&self, n: usize, worker: u32) -> u64 {
        self.nodes[n]
            .tenants
            .iter()
            .find(|t| t.0 == worker)
            .map_or(0, |t| t.1)
    }
}

/// SGLang's `cache_aware` policy with its approximate tree.
#[derive(Clone, Debug, Default)]
pub struct SglangCacheAware {
    settings: CacheAwareSettings,
    tree: Tree,
    /// Next tick at which an eviction event is due.
    next_eviction: u64,
}

impl SglangCacheAware {
    /// The router's tree, as it stands.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    fn evict_due(&mut self, now: u64, block_tokens: u32) {
        let every = self.settings.eviction_interval;
        if every == 0 {
            return;
        }
        if self.next_eviction == 0 {
            self.next_eviction = every;
        }
        while now >= self.next_eviction {
            self.tree.evict(self.settings.max_tree_tokens, block_tokens);
            self.next_eviction += every;
        }
    }
}

/// The first replica with the fewest outstanding requests (`min_by_key`).
fn first_least<S: ReplicaState>(replicas: &[S]) -> Option<(usize, u32)> {
    replicas
        .iter()
        .map(ReplicaState::outstanding)
        .enumerate()
        .min_by_key(|&(i, load)| (load, i))
}

impl SglangCacheAware {
    /// Whether an eviction event is due at `now` (one has not run yet).
    fn eviction_due(&self, now: u64) -> bool {
        let every = self.settings.eviction_interval;
        every > 0 && now >= self.next_eviction.max(every)
    }

    /// The decision on the tree as it stands (no insert, no eviction).
    fn decide<S: ReplicaState>(&self, ctx: &RouteContext<'_, S>) -> Option<Decision> {
        let s = self.settings;
        let loads = ctx.replicas.iter().map(ReplicaState::outstanding);
        let max = loads.clone().max()?;
        let min = loads.min()?;
        let imbalanced = max.saturating_sub(min) > s.abs_threshold
            && f64::from(max) > f64::from(min) * s.rel_threshold;
        if imbalanced {
            let (i, _) = first_least(ctx.replicas)?;
            return Some(Decision {
                replica: i as u32,
                reason: Reason::ImbalanceEscape {
                    max_load: max,
                    min_load: min,
                },
            });
        }
        let (depth, tenant) = self.tree.prefix_match(&ctx.request.blocks);
        let matched = (depth as u64 * u64::from(ctx.block_tokens))
            .min(u64::from(ctx.request.prompt_tokens));
        let prompt = u64::from(ctx.request.prompt_tokens.max(1));
        let permille = (matched * 1000 / prompt) as u32;
        let rate = matched as f64 / prompt as f64;
        Some(
            match tenant.filter(|&t| rate > s.cache_threshold && (t as usize) < ctx.replicas.len()) {
                Some(t) => Decision {
                    replica: t,
                    reason: Reason::CacheAffinity {
                        match_permille: permille,
                    },
                },
                None => {
                    let (i, load) = first_least(ctx.replicas)?;
                    Decision {
                        replica: i as u32,
                        reason: Reason::LowMatch {
                            match_permille: permille,
                            load,
                        },
                    }
                }
            },
        )
    }
}

impl Router for SglangCacheAware {
    fn select<S: ReplicaState>(
        &mut self,
        ctx: &RouteContext<'_, S>,
        _choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        self.evict_due(ctx.now.0, ctx.block_tokens);
        let decision = self.decide(ctx)?;
        self.tree
            .insert(&ctx.request.blocks, decision.replica, ctx.now.0, ctx.block_tokens);
        Some(decision)
    }

    fn observe<S: ReplicaState>(&mut self, ctx: &RouteContext<'_, S>, chosen: u32) {
        self.evict_due(ctx.now.0, ctx.block_tokens);
        self.tree
            .insert(&ctx.request.blocks, chosen, ctx.now.0, ctx.block_tokens);
    }

    fn peek<S: ReplicaState>(
        &self,
        ctx: &RouteContext<'_, S>,
        choose: &mut Chooser<'_>,
    ) -> Option<Decision> {
        // Answer from the shared tree; only when an eviction is due (once per
        // interval) is a copy needed, to evict before matching as `select` does.
        if self.eviction_due(ctx.now.0) {
            return self.clone().select(ctx, choose);
        }
        self.decide(ctx)
    }
}

/// Shorthand for the parameter rows below.
impl Rule for SglangCacheAware {
    const NAME: &'static str = "sglang-cache-aware";
    const TITLE: &'static str = "SGLang cache-aware";
    const SIGNAL: &'static str = "SGLang's gateway policy with its own defaults: a router-side tree of where prompts were sent, overridden only by a large load gap.";
    const ORIGIN: Origin = Origin::Upstream {
        project: "SGLang model gateway",
        version: "b93974f1",
        file: "sgl-model-gateway/src/policies/cache_aware.rs",
    };
    type Settings = CacheAwareSettings;
    fn build(settings: &CacheAwareSettings) -> Self {
        SglangCacheAware {
            settings: *settings,
            ..SglangCacheAware::default()
        }
    }
}

impl<C: HasRules> Rows<C> for SglangCacheAware {
    const ROWS: &'static [Param<C>] = &[
        Param::<C>::real(
            "sglang-cache-threshold",
            "SGLang: cache threshold",
            "",
            (0.0, 1.0, 0.05),
            |c| c.rules().sglang_cache_aware.cache_threshold,
            |c, x| c.rules_mut().sglang_cache_aware.cache_threshold = x,
        )
        .doc("SGLang cache-aware follows the tree's match only above this share of the prompt.")
        .show(Show::Percent(0))
        .advanced(),
        Param::<C>::whole(
            "sglang-abs-threshold",
            "SGLang: absolute imbalance",
            "requests",
            (0, 1_000_000, 1),
            |c| c.rules().sglang_cache_aware.abs_threshold.into(),
            |c, x| c.rules_mut().sglang_cache_aware.abs_threshold = narrow(x),
        )
        .doc("SGLang cache-aware switches to the least loaded when max − min load exceeds this…")
        .advanced(),
        Param::<C>::real(
            "sglang-rel-threshold",
            "SGLang: relative imbalance",
            "",
            (1.0, 1000.0, 0.05),
            |c| c.rules().sglang_cache_aware.rel_threshold,
            |c, x| c.rules_mut().sglang_cache_aware.rel_threshold = x,
        )
        .doc("…and max load exceeds min load times this.")
        .advanced(),
        Param::<C>::whole(
            "sglang-eviction-interval",
            "SGLang: tree eviction every",
            "ticks",
            (0, 1_000_000, 1),
            |c| c.rules().sglang_cache_aware.eviction_interval,
            |c, x| c.rules_mut().sglang_cache_aware.eviction_interval = x,
        )
        .doc("Ticks between the tree's eviction events; 0 never evicts.")
        .advanced(),
        Param::<C>::whole(
            "sglang-max-tree",
            "SGLang: tree size per worker",
            "tokens",
            (1, 67_108_864, 1),
            |c| c.rules().sglang_cache_aware.max_tree_tokens,
            |c, x| c.rules_mut().sglang_cache_aware.max_tree_tokens = x,
        )
        .doc("An eviction event trims each worker's share of the tree to this many tokens.")
        .advanced(),
    ];
}
