//! The cache-tier trade-off (article §6.1, the design-space table's last
//! row): when KV can come from a store the whole pool shares, a prefix
//! missing on a replica costs its transfer instead of its prefill, and
//! affinity becomes bandwidth against compute. The sweep runs the same
//! requests over a range of shared-store bandwidths under prefix-aware
//! routing, least load, and the tier-aware cost ([`tier_cost`]), on
//! engines whose accelerator cache holds only a few of the documents the
//! requests share, so that spreading a document costs recomputing it.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, TICK_MS};
use super::sim::BLOCK;
use crate::engine::{EngineEvent, EngineSpec, PrefixCache, Replica};
use crate::rng::{stream, Rng};
use crate::routing::{
    tier_cost, Chooser, Decision, LeastOutstanding, PrefixAware, PrefixAwareParams, Reason,
    ReplicaState, RouteContext, Router, Tiers, Ties,
};
use crate::stats::percentile_sorted;
use crate::time::Tick;
use crate::workload::{Request, Workload};

/// Prompt tokens of the sweep's requests.
pub const PROMPT: u32 = 8192;
/// Of which a shared document (a long system prompt, a retrieved corpus).
pub const DOCUMENT: u32 = 7680;
/// Prompt tokens a prefill step computes in the sweep: an H100 prefills
/// Llama 3.1 8B at roughly 40,000 tokens a second, about 1,024 a 25 ms
/// tick, the model whose KV bytes the bandwidths are read for.
pub const PREFILL: u32 = 1024;
/// Documents one replica's accelerator cache holds.
pub const DEVICE_DOCUMENTS: u32 = 4;
/// KV bytes per token of the model the bandwidths are read for (Llama 3.1
/// 8B in BF16: 32 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes).
pub const KV_BYTES_PER_TOKEN: f64 = 131_072.0;
/// Seconds of arrivals the sweep runs at most (the lab's duration when
/// shorter): 24 runs of long prompts are the lab's largest cost.
pub const SECONDS: u32 = 30;
/// Shared-store bandwidths of the sweep, GB/s (0: no shared tier).
pub const GBPS: [f64; 8] = [0.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0];

/// The three rules at one bandwidth; TTFT in ms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TierPoint {
    /// Shared-store bandwidth, GB/s (0: none).
    pub gbps: f64,
    /// Prefix-aware routing, TTFT P95.
    pub prefix_p95: f64,
    /// Least load, TTFT P95.
    pub least_p95: f64,
    /// The tier-aware cost, TTFT P95.
    pub tier_p95: f64,
    /// Prefix-aware routing, mean TTFT.
    pub prefix_mean: f64,
    /// Least load, mean TTFT.
    pub least_mean: f64,
    /// The tier-aware cost, mean TTFT.
    pub tier_mean: f64,
}

/// Tokens a tick a link of `gbps` moves.
pub fn tokens_per_tick(gbps: f64) -> u32 {
    libm::round(gbps * 1e9 / KV_BYTES_PER_TOKEN * f64::from(TICK_MS) / 1000.0) as u32
}

/// The sweep's requests: the lab's arrivals, each on one of `adapters`
/// documents of the lab's Zipf popularity, with no adapters.
pub fn workload(c: &Config) -> Workload {
    let d = Config {
        prompt: PROMPT,
        system: DOCUMENT,
        ..c.clone()
    };
    let mut w = super::sim::workload(&d);
    for r in &mut w.requests {
        r.adapter = 0;
    }
    w
}

/// A replica as a router sees it, with the shared store's part of a prompt
/// reported as its lowest tier.
struct Seen<'a> {
    replica: &'a Replica,
    shared: &'a PrefixCache,
    block_tokens: u32,
}

impl ReplicaState for Seen<'_> {
    fn outstanding(&self) -> u32 {
        self.replica.outstanding()
    }
    fn waiting(&self) -> u32 {
        self.replica.waiting()
    }
    fn kv_used(&self) -> u32 {
        self.replica.kv_used()
    }
    fn cached_tokens(&self, request: &Request, block_tokens: u32) -> u32 {
        self.replica.cached_tokens(request, block_tokens)
    }
    fn cached_tiers(&self, request: &Request, block_tokens: u32) -> Tiers {
        let device = self.replica.cached_tokens(request, block_tokens);
        let shared = self.shared.match_len(&request.blocks) as u32 * self.block_tokens;
        Tiers {
            device,
            host: 0,
            disk: shared.saturating_sub(device),
        }
    }
    fn prefill_backlog(&self) -> u64 {
        self.replica.prefill_backlog()
    }
    fn kv_capacity(&self) -> Option<u32> {
        self.replica.kv_capacity()
    }
}

/// Which rule routes a sweep run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Prefix,
    Least,
    Tier,
}

/// TTFTs (ms) of one run of `which` at a shared link of `link` tokens a tick.
fn simulate(c: &Config, w: &Workload, which: Which, link: u32) -> Vec<f64> {
    let spec = EngineSpec {
        slots: c.slots,
        kv_blocks: c.slots * (PROMPT + 8 * c.output).div_ceil(16),
        kv_block_tokens: 16,
        prefill_budget: PREFILL,
        cache_tokens: DEVICE_DOCUMENTS * DOCUMENT,
        cache_in_kv: false,
        host_cache_tokens: 0,
        host_tokens_per_tick: 0,
        shared_tokens_per_tick: link,
    };
    let mut replicas: Vec<Replica> = (0..c.replicas).map(|_| Replica::new(spec, BLOCK)).collect();
    // The store holds every document and then some.
    let mut store = PrefixCache::new(if link > 0 {
        (2 * c.adapters * PROMPT / BLOCK) as usize
    } else {
        0
    });
    let mut prefix = PrefixAware::new(PrefixAwareParams::default());
    let mut least = LeastOutstanding;
    let mut tier = tier_cost::router(PREFILL, 0, link);
    let mut rng = Rng::new(c.seed, stream::TIE_BREAKS + 50);
    let mut ttft = Vec::with_capacity(w.requests.len());
    let mut events = Vec::new();
    let mut next = 0;
    let end = c.ticks() + u64::from(super::sim::DRAIN_S) * 1000 / u64::from(TICK_MS);
    for t in 0..end {
        while next < w.requests.len() && w.requests[next].arrival.0 <= t {
            let req = &w.requests[next];
            let seen: Vec<Seen<'_>> = replicas
                .iter()
                .map(|r| Seen {
                    replica: r,
                    shared: &store,
                    block_tokens: BLOCK,
                })
                .collect();
            let ctx = RouteContext {
                now: Tick(t),
                request: req,
                block_tokens: BLOCK,
                kv_block_tokens: spec.kv_block_tokens,
                replicas: &seen,
            };
            let mut ch = Chooser::new(&mut rng, Ties::Random);
            let d = match which {
                Which::Prefix => prefix.select(&ctx, &mut ch),
                Which::Least => least.select(&ctx, &mut ch),
                Which::Tier => tier.select(&ctx, &mut ch),
            }
            .unwrap_or(Decision {
                replica: 0,
                reason: Reason::RoundRobin,
            });
            drop(seen);
            replicas[d.replica as usize].enqueue(next as u32, req.prompt_tokens);
            next += 1;
        }
        for r in replicas.iter_mut() {
            r.tick_shared(Tick(t), w, &mut events, &mut store);
            for e in events.drain(..) {
                if let EngineEvent::FirstToken { request, tick } = e {
                    let arrival = w.requests[request as usize].arrival.0;
                    ttft.push(((tick.0 + 1 - arrival) * u64::from(TICK_MS)) as f64);
                }
            }
        }
        if next >= w.requests.len() && replicas.iter().all(Replica::is_idle) {
            break;
        }
    }
    ttft.sort_by(f64::total_cmp);
    ttft
}

fn p95_mean(v: &[f64]) -> (f64, f64) {
    (percentile_sorted(v, 95.0), crate::stats::mean(v))
}

/// Every bandwidth of [`GBPS`] under the three rules, over the first
/// [`SECONDS`] of the lab's arrivals.
pub fn sweep(c: &Config) -> Vec<TierPoint> {
    let c = &Config {
        seconds: c.seconds.min(SECONDS),
        ..c.clone()
    };
    let w = workload(c);
    GBPS.iter()
        .map(|&gbps| {
            let link = if gbps > 0.0 {
                tokens_per_tick(gbps).max(1)
            } else {
                0
            };
            let (prefix_p95, prefix_mean) = p95_mean(&simulate(c, &w, Which::Prefix, link));
            let (least_p95, least_mean) = p95_mean(&simulate(c, &w, Which::Least, link));
            let (tier_p95, tier_mean) = p95_mean(&simulate(c, &w, Which::Tier, link));
            TierPoint {
                gbps,
                prefix_p95,
                least_p95,
                tier_p95,
                prefix_mean,
                least_mean,
                tier_mean,
            }
        })
        .collect()
}
