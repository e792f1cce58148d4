//! The LoRA lab's run: one stream of requests, each rule routing it over
//! engines with adapter slots ([`crate::engine::adapters`]).

use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, Rule, TICK_MS};
use crate::choice::Choice;
use crate::engine::{AdapterView, EngineEvent, EngineSpec, Replica};
use crate::rng::{stream, Rng};
use crate::routing::aibrix_placement::AibrixPlacement;
use crate::routing::llmd::{Llmd, LlmdWeights};
use crate::routing::lora_residency::LoraResidency;
use crate::routing::{
    Chooser, Decision, LeastOutstanding, PrefixAware, PrefixAwareParams, Reason, ReplicaState,
    RoundRobin, RouteContext, Router, Ties,
};
use crate::stats::percentile_sorted;
use crate::time::Tick;
use crate::workload::{Request, Workload};

/// Tokens per hash block of the lab's prompts.
pub const BLOCK: u32 = 64;

/// Ticks of the run the player records.
pub const PLAYER_TICKS: usize = 480;

/// How many more waiting requests than the least busy replica make a hot spot.
pub const HOT_GAP: u32 = 10;

/// Seconds a run may drain after its last arrival before it stops.
pub const DRAIN_S: u32 = 120;

/// One replica at one tick, as the player draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicaSnap {
    /// Adapters in its slots, least recently used first.
    pub resident: Vec<u16>,
    /// The adapter it is loading, if it is stalled on a load.
    pub loading: Option<u16>,
    /// Sequences running.
    pub running: u32,
    /// Requests waiting.
    pub waiting: u32,
}

/// One request routed in a tick.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Routed {
    /// Its adapter.
    pub adapter: u16,
    /// Where it went, and why.
    pub decision: Decision,
}

/// A key moment of the player.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// The first cold load of an adapter that another replica already
    /// holds in a slot: the price of spreading an adapter.
    ColdCopy {
        /// Replica (0-based) loading it.
        replica: u32,
        /// The adapter.
        adapter: u16,
        /// A replica (0-based) that holds it already.
        holder: u32,
    },
    /// The first time a replica's queue is [`HOT_GAP`] requests longer
    /// than the least busy replica's.
    HotSpot {
        /// Replica (0-based).
        replica: u32,
        /// Requests waiting there.
        waiting: u32,
        /// Requests waiting on the least busy replica.
        least: u32,
    },
    /// The first adapter pushed out of a slot for another.
    Swap {
        /// Replica (0-based).
        replica: u32,
    },
}

/// What the player shows at one tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Every replica.
    pub replicas: Vec<ReplicaSnap>,
    /// Requests routed in this tick.
    pub routed: Vec<Routed>,
    /// Cold loads so far, over the pool.
    pub cold_loads: u32,
    /// A key moment in this tick.
    pub moment: Option<Moment>,
}

/// One rule's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleRun {
    /// The rule.
    #[serde(with = "crate::choice")]
    pub rule: Rule,
    /// Time to first token, median, ms.
    pub ttft_p50: f64,
    /// Time to first token, 95th percentile, ms.
    pub ttft_p95: f64,
    /// Loads from disk or a remote store, over the pool.
    pub cold_loads: u32,
    /// Loads from host memory, over the pool.
    pub host_loads: u32,
    /// Adapters pushed out of a slot per minute, over the pool.
    pub swaps_per_min: f64,
    /// Share of requests the busiest replica received.
    pub hottest_share: f64,
    /// Share of replica time spent loading adapters.
    pub loading_share: f64,
    /// Requests a second whose first token came within the objective.
    pub goodput: f64,
    /// Requests that arrived.
    pub arrived: u32,
    /// Requests that finished.
    pub finished: u32,
    /// Requests still queued or running when the run stopped.
    pub unfinished: u32,
    /// The longest replica queue in each second of the arrivals.
    pub queue: Vec<u32>,
    /// The player's ticks (the rule in focus only; the page's message
    /// carries it, JSON does not).
    #[serde(serialize_with = "crate::labs::page_only")]
    pub timeline: Option<Vec<Snapshot>>,
}

/// The same popularity on prompt prefixes instead of adapters: no
/// adapters, prefix-aware routing (the contrast of article §6.3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrefixTwin {
    /// Share of requests the busiest replica received.
    pub hottest_share: f64,
    /// Time to first token, 95th percentile, ms.
    pub ttft_p95: f64,
}

/// The requests of a run: Poisson arrivals, a Zipf adapter each, a prompt
/// of the adapter's system prompt then blocks of its own.
pub fn workload(c: &Config) -> Workload {
    let mut arrivals = Rng::new(c.seed, stream::ARRIVALS);
    let mut picks = Rng::new(c.seed, stream::PREFIXES);
    let mut outputs = Rng::new(c.seed, stream::OUTPUTS);
    let weights: Vec<f64> = (1..=c.adapters)
        .map(|k| libm::pow(f64::from(k), -c.zipf))
        .collect();
    let total: f64 = weights.iter().sum();
    let mut cumulative = Vec::with_capacity(weights.len());
    let mut acc = 0.0;
    for w in &weights {
        acc += w / total;
        cumulative.push(acc);
    }
    let system_blocks = c.system / BLOCK;
    let own_blocks = c
        .prompt
        .div_ceil(BLOCK)
        .saturating_sub(system_blocks)
        .max(1);
    let per_tick = c.rate * f64::from(TICK_MS) / 1000.0;
    let mut next_block = 1_000_000u32;
    let mut requests = Vec::new();
    for t in 0..c.ticks() {
        for _ in 0..arrivals.poisson(per_tick) {
            let u = picks.unit();
            let k = cumulative
                .partition_point(|&x| x < u)
                .min(weights.len() - 1);
            let adapter = (k + 1) as u16;
            let mut blocks: Vec<u32> = (0..system_blocks)
                .map(|b| u32::from(adapter) * 1000 + b)
                .collect();
            for _ in 0..own_blocks {
                blocks.push(next_block);
                next_block += 1;
            }
            let output = libm::ceil(outputs.exponential(f64::from(c.output))).max(1.0) as u32;
            requests.push(Request {
                adapter,
                arrival: Tick(t),
                prompt_tokens: c.prompt,
                output_tokens: output,
                blocks,
                long: false,
            });
        }
    }
    Workload {
        block_tokens: BLOCK,
        requests,
    }
}

/// The engine of every replica.
fn engine(c: &Config) -> EngineSpec {
    EngineSpec {
        slots: c.slots,
        kv_blocks: c.slots * (c.prompt + 8 * c.output).div_ceil(16),
        kv_block_tokens: 16,
        prefill_budget: c.prefill,
        // Every adapter's system prompt, twice over.
        cache_tokens: (2 * c.adapters * c.system).max(BLOCK),
        cache_in_kv: false,
        host_cache_tokens: 0,
        host_tokens_per_tick: 0,
        shared_tokens_per_tick: 0,
    }
}

/// A replica as a router sees it: its engine, and where its adapters are
/// (read once a tick from the engine and kept up to date as requests are
/// routed to it: scanning every queue for every request grew with the
/// square of the backlog).
struct Seen<'a> {
    replica: &'a Replica,
    view: Option<&'a AdapterView>,
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
    fn prefill_backlog(&self) -> u64 {
        self.replica.prefill_backlog()
    }
    fn kv_capacity(&self) -> Option<u32> {
        self.replica.kv_capacity()
    }
    fn adapters(&self) -> Option<AdapterView> {
        self.view.cloned()
    }
}

/// The routers the lab compares, dispatched without boxing.
enum Picker {
    RoundRobin(RoundRobin),
    LeastLoad(LeastOutstanding),
    Residency(LoraResidency),
    Llmd(Llmd),
    Placement(AibrixPlacement),
    Prefix(PrefixAware),
}

impl Picker {
    fn of(rule: Rule, c: &Config) -> Picker {
        match rule {
            Rule::RoundRobin => Picker::RoundRobin(RoundRobin::default()),
            Rule::LeastLoad => Picker::LeastLoad(LeastOutstanding),
            Rule::Residency => Picker::Residency(LoraResidency),
            // The default profile plus the LoRA scorer at the loader's
            // default weight (1).
            Rule::Llmd => Picker::Llmd(Llmd::new(LlmdWeights {
                lora: 1.0,
                ..LlmdWeights::default()
            })),
            Rule::Placement => Picker::Placement(AibrixPlacement::new(c.copies)),
        }
    }

    fn select(
        &mut self,
        ctx: &RouteContext<'_, Seen<'_>>,
        ch: &mut Chooser<'_>,
    ) -> Option<Decision> {
        match self {
            Picker::RoundRobin(r) => r.select(ctx, ch),
            Picker::LeastLoad(r) => r.select(ctx, ch),
            Picker::Residency(r) => r.select(ctx, ch),
            Picker::Llmd(r) => r.select(ctx, ch),
            Picker::Placement(r) => r.select(ctx, ch),
            Picker::Prefix(r) => r.select(ctx, ch),
        }
    }
}

/// What one run counted, before it is summarised.
struct Counts {
    ttft_ms: Vec<f64>,
    assigned: Vec<u32>,
    finished: u32,
    queue: Vec<u32>,
    timeline: Option<Vec<Snapshot>>,
}

/// Run `picker` over `w` on replicas of `spec` (with adapters when
/// `adapters`), recording the player's ticks when `record`.
fn simulate(
    c: &Config,
    w: &Workload,
    mut picker: Picker,
    adapters: bool,
    record: bool,
    tie_stream: u64,
) -> (Counts, Vec<Replica>) {
    let spec = engine(c);
    let ad = if adapters {
        c.adapter_spec()
    } else {
        Default::default()
    };
    let mut replicas: Vec<Replica> = (0..c.replicas)
        .map(|_| Replica::new(spec, BLOCK).with_adapters(ad))
        .collect();
    let mut rng = Rng::new(c.seed, stream::TIE_BREAKS + tie_stream);
    let mut counts = Counts {
        ttft_ms: Vec::with_capacity(w.requests.len()),
        assigned: vec![0; replicas.len()],
        finished: 0,
        queue: Vec::new(),
        timeline: record.then(Vec::new),
    };
    let mut events = Vec::new();
    let mut next = 0usize;
    let end = c.ticks() + u64::from(DRAIN_S) * 1000 / u64::from(TICK_MS);
    let mut moments = Moments::default();
    let per_second = u64::from(1000 / TICK_MS);
    let mut longest = 0;
    for t in 0..end {
        let mut routed = Vec::new();
        let arriving = next < w.requests.len() && w.requests[next].arrival.0 <= t;
        let mut views: Vec<AdapterView> = if arriving {
            replicas.iter().filter_map(|r| r.adapter_view(w)).collect()
        } else {
            Vec::new()
        };
        while next < w.requests.len() && w.requests[next].arrival.0 <= t {
            let req = &w.requests[next];
            let seen: Vec<Seen<'_>> = replicas
                .iter()
                .enumerate()
                .map(|(i, r)| Seen {
                    replica: r,
                    view: views.get(i),
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
            let d = picker.select(&ctx, &mut ch).unwrap_or(Decision {
                replica: 0,
                reason: Reason::RoundRobin,
            });
            drop(seen);
            replicas[d.replica as usize].enqueue(next as u32, req.prompt_tokens);
            if let Some(v) = views.get_mut(d.replica as usize) {
                if req.adapter != 0 && !v.waiting.contains(&req.adapter) {
                    v.waiting.push(req.adapter);
                }
            }
            counts.assigned[d.replica as usize] += 1;
            routed.push(Routed {
                adapter: req.adapter,
                decision: d,
            });
            next += 1;
        }
        for r in replicas.iter_mut() {
            r.tick(Tick(t), w, &mut events);
            for e in events.drain(..) {
                match e {
                    EngineEvent::FirstToken { request, tick } => {
                        let arrival = w.requests[request as usize].arrival.0;
                        counts
                            .ttft_ms
                            .push(((tick.0 + 1 - arrival) * u64::from(TICK_MS)) as f64);
                    }
                    EngineEvent::Finished { .. } => counts.finished += 1,
                    _ => {}
                }
            }
        }
        longest = replicas
            .iter()
            .map(Replica::waiting)
            .fold(longest, u32::max);
        if t % per_second == per_second - 1 && t < c.ticks() {
            counts.queue.push(core::mem::take(&mut longest));
        }
        if let Some(tl) = counts
            .timeline
            .as_mut()
            .filter(|tl| tl.len() < PLAYER_TICKS)
        {
            tl.push(snapshot(&replicas, w, routed, &mut moments));
        }
        if next >= w.requests.len() && replicas.iter().all(Replica::is_idle) {
            break;
        }
    }
    (counts, replicas)
}

/// Which key moments have happened already (each is shown once).
#[derive(Default)]
struct Moments {
    /// Cold loads per replica at the last tick.
    cold: Vec<u32>,
    copy: bool,
    hot: bool,
    swap: bool,
}

fn snapshot(
    replicas: &[Replica],
    w: &Workload,
    routed: Vec<Routed>,
    seen: &mut Moments,
) -> Snapshot {
    let views: Vec<AdapterView> = replicas
        .iter()
        .map(|r| r.adapter_view(w).unwrap_or_default())
        .collect();
    let colds: Vec<u32> = replicas
        .iter()
        .map(|r| r.adapters().map_or(0, |a| a.stats().cold_loads))
        .collect();
    let evicted = replicas
        .iter()
        .position(|r| r.adapters().is_some_and(|a| a.stats().evictions > 0));
    let least = replicas.iter().map(Replica::waiting).min().unwrap_or(0);
    let mut moment = None;
    if !seen.copy {
        // A replica that began a cold load this tick, of an adapter another holds.
        let copy = views.iter().enumerate().find_map(|(i, v)| {
            let adapter = v.loading?;
            let fresh = colds[i] > seen.cold.get(i).copied().unwrap_or(0);
            let holder = views
                .iter()
                .enumerate()
                .position(|(j, o)| j != i && o.resident.contains(&adapter))?;
            fresh.then_some(Moment::ColdCopy {
                replica: i as u32,
                adapter,
                holder: holder as u32,
            })
        });
        seen.copy = copy.is_some();
        moment = copy;
    }
    if moment.is_none() && !seen.swap {
        if let Some(i) = evicted {
            seen.swap = true;
            moment = Some(Moment::Swap { replica: i as u32 });
        }
    }
    if moment.is_none() && !seen.hot {
        if let Some(i) = replicas.iter().position(|r| r.waiting() >= least + HOT_GAP) {
            seen.hot = true;
            moment = Some(Moment::HotSpot {
                replica: i as u32,
                waiting: replicas[i].waiting(),
                least,
            });
        }
    }
    seen.cold = colds;
    let cold_loads = seen.cold.iter().sum();
    let snaps = replicas
        .iter()
        .zip(views)
        .map(|(r, v)| ReplicaSnap {
            resident: v.resident,
            loading: v.loading,
            running: r.running(),
            waiting: r.waiting(),
        })
        .collect();
    Snapshot {
        replicas: snaps,
        routed,
        cold_loads,
        moment,
    }
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn hottest(assigned: &[u32]) -> f64 {
    let total: u32 = assigned.iter().sum();
    f64::from(assigned.iter().copied().max().unwrap_or(0)) / f64::from(total.max(1))
}

/// Run `rule` on the lab's requests (recording the player when `record`).
pub fn run_rule(c: &Config, w: &Workload, rule: Rule, record: bool) -> RuleRun {
    let (counts, replicas) = simulate(c, w, Picker::of(rule, c), true, record, rule.index() as u64);
    let arrived = w.requests.len() as u32;
    let mut cold = 0;
    let mut host = 0;
    let mut evictions = 0;
    let mut load_ticks = 0u64;
    let mut busy = 0u64;
    for r in &replicas {
        let s = r.adapters().map(|a| a.stats()).unwrap_or_default();
        cold += s.cold_loads;
        host += s.host_loads;
        evictions += s.evictions;
        load_ticks += s.load_ticks;
        busy += r.stats().busy_ticks;
    }
    let slo = f64::from(c.slo_ms);
    let good = counts.ttft_ms.iter().filter(|&&x| x <= slo).count();
    let ttft = sorted(counts.ttft_ms);
    RuleRun {
        rule,
        ttft_p50: percentile_sorted(&ttft, 50.0),
        ttft_p95: percentile_sorted(&ttft, 95.0),
        cold_loads: cold,
        host_loads: host,
        swaps_per_min: f64::from(evictions) * 60.0 / f64::from(c.seconds),
        hottest_share: hottest(&counts.assigned),
        loading_share: load_ticks as f64 / busy.max(1) as f64,
        goodput: good as f64 / f64::from(c.seconds),
        arrived,
        finished: counts.finished,
        unfinished: arrived - counts.finished,
        queue: counts.queue,
        timeline: counts.timeline,
    }
}

/// The same requests with the adapters' popularity on their prompts'
/// prefixes alone: no adapters, SGLang-style prefix-aware routing.
pub fn prefix_twin(c: &Config, w: &Workload) -> PrefixTwin {
    let mut base = w.clone();
    for r in &mut base.requests {
        r.adapter = 0;
    }
    let picker = Picker::Prefix(PrefixAware::new(PrefixAwareParams::default()));
    let (counts, _) = simulate(c, &base, picker, false, false, Rule::ALL.len() as u64);
    let ttft = sorted(counts.ttft_ms);
    PrefixTwin {
        hottest_share: hottest(&counts.assigned),
        ttft_p95: percentile_sorted(&ttft, 95.0),
    }
}
