//! The autoscaling lab's second-by-second loop: one gateway, a pool whose
//! size a control loop sets, one scaler per run.
//!
//! Within a second the order is fixed: replicas whose cold start ends become
//! ready, decodes end, the second's arrivals are routed (each to one
//! replica's queue), each replica admits waiting requests into free slots
//! and prefills them one at a time (one second of prefill work per second),
//! emptied draining replicas leave, and at the end of each control period the
//! scaler reads its signal and orders or drains replicas.

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::config::{Config, Router, Scaler};
use super::Outcome;
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::stats::percentile_sorted;

/// Seconds after it becomes ready during which a new replica counts as
/// fresh (its share of arrivals and its requests' TTFT are reported).
pub const FRESH: u32 = 60;

/// Seconds per bucket of [`ScalerRun::ttft_windows`].
pub const WINDOW: u32 = 30;

/// Seconds before the control loop first acts: the pool starts empty, and
/// the first minute is its warm-up.
pub const WARM_UP: u32 = 60;

/// Kubernetes' autoscaler leaves the count alone while the signal is within
/// 10% of its target (`--horizontal-pod-autoscaler-tolerance`).
const TOLERANCE: f64 = 0.1;

/// A request as every scaler sees it.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    tick: u32,
    /// Which shared prefix it starts with.
    group: u32,
    /// Decode seconds (at least 1).
    decode: u32,
}

/// Where a replica is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Life {
    /// No replica in this place.
    Off,
    /// Ordered, still in its cold start.
    Starting,
    /// Taking requests.
    Ready,
    /// Taking no new requests, finishing the ones it holds.
    Draining,
}

/// One place of the pool after one second (what the player draws).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spot {
    /// Its state.
    pub life: Life,
    /// Requests waiting for a slot.
    pub waiting: u32,
    /// Requests in slots (prefilling or decoding).
    pub running: u32,
    /// Requests routed to it this second.
    pub sent: u32,
    /// Whether it became ready less than [`FRESH`] seconds ago (a replica
    /// the run started with is never fresh).
    pub fresh: bool,
    /// Seconds of cold start left (0 unless starting).
    pub ready_in: u32,
}

/// The pool after one second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// One entry per place a replica has held so far, in place order.
    pub pool: Vec<Spot>,
    /// Requests that arrived this second.
    pub arrivals: u32,
    /// The scaler's last reading, in its own unit (a share, requests per
    /// replica or seconds; the forecast's replica count for the predictive
    /// scaler).
    pub reading: f64,
    /// The replica count the scaler last asked for.
    pub desired: u32,
    /// What makes this second worth stopping at, if anything.
    pub moment: Option<Moment>,
}

impl Snapshot {
    /// Replicas in `life`.
    pub fn count(&self, life: Life) -> u32 {
        self.pool.iter().filter(|s| s.life == life).count() as u32
    }
}

/// A second the player stops at.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Moment {
    /// The busy-fraction scaler orders a replica while the slots in use
    /// are a small share: its signal reads near full at any load.
    Pinned {
        /// Its reading (share of time anything ran).
        busy: f64,
        /// Share of slots in use over the same period.
        kv: f64,
    },
    /// The scaler's first order for the surge.
    Ordered {
        /// Replicas ordered.
        count: u32,
        /// Second they will be ready.
        ready_at: u32,
    },
    /// The first replica ordered for the surge takes requests.
    Ready {
        /// Its place, 0-based.
        replica: u32,
        /// Second it was ordered.
        ordered: u32,
    },
    /// A fresh replica took a full batch within seconds of becoming ready.
    Flooded {
        /// Its place, 0-based.
        replica: u32,
        /// Requests it took since it became ready.
        took: u32,
        /// Seconds since it became ready.
        after: u32,
    },
    /// A fresh replica took under a quarter of a fair share over its first
    /// [`FRESH`] seconds.
    Ignored {
        /// Its place, 0-based.
        replica: u32,
        /// Requests it took.
        took: u32,
        /// Its fair share over those seconds.
        fair: f64,
    },
    /// The surge ended with replicas still starting.
    SurgeOver {
        /// Replicas still in their cold start.
        starting: u32,
    },
    /// The pool shrinks for the first time after the surge.
    ScaleIn {
        /// Replicas drained.
        count: u32,
    },
}

/// One scaler's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalerRun {
    /// The scaler.
    pub scaler: Scaler,
    /// Requests that arrived.
    pub arrived: u32,
    /// Requests that finished decoding.
    pub finished: u32,
    /// Requests still waiting or running at the end.
    pub unfinished: u32,
    /// Median TTFT of requests whose first token came, seconds.
    pub ttft_p50: f64,
    /// 95th percentile TTFT, seconds.
    pub ttft_p95: f64,
    /// 95th percentile TTFT of requests that arrived during the surge.
    pub surge_p95: f64,
    /// Share of arrivals whose first token came within the SLO.
    pub slo_met: f64,
    /// Replica time paid for (starting, ready and draining), minutes.
    pub replica_minutes: f64,
    /// Most replicas at once (starting ones included).
    pub peak: u32,
    /// Replicas ordered during the surge that became ready after it ended.
    pub late: u32,
    /// Seconds from the surge's start to the scaler's first order at or
    /// after it; `None` if it ordered none.
    pub reaction: Option<u32>,
    /// Arrivals fresh replicas took against their fair share (1: fair;
    /// above: flooded; below: passed over); `None` if none was fresh.
    pub fresh_load: Option<f64>,
    /// 95th percentile TTFT of requests sent to fresh replicas.
    pub fresh_p95: Option<f64>,
    /// Mean busy fraction of ready replicas before the surge.
    pub steady_busy: f64,
    /// Mean share of slots in use before the surge.
    pub steady_kv: f64,
    /// TTFT P95 per [`WINDOW`] seconds of first tokens (0 with none).
    pub ttft_windows: Vec<f64>,
    /// The run second by second.
    pub timeline: Vec<Snapshot>,
}

/// The requests of a run, drawn once for every scaler.
fn arrivals(config: &Config) -> Vec<Arrival> {
    let mut arrive = Rng::new(config.seed, stream::ARRIVALS);
    let mut decode = Rng::new(config.seed, stream::OUTPUTS);
    let mut prefix = Rng::new(config.seed, stream::PREFIXES);
    let mut out = Vec::new();
    for t in 0..config.ticks {
        for _ in 0..arrive.poisson(config.rate_at(t)) {
            let d = libm::round(decode.exponential(config.decode)).max(1.0);
            out.push(Arrival {
                tick: t,
                group: prefix.below(config.prefixes),
                decode: d as u32,
            });
        }
    }
    out
}

/// One replica.
struct Replica {
    life: Life,
    /// Second it became (or will become) ready.
    ready_at: u32,
    /// Second it was ordered (0 for the starting pool).
    ordered: u32,
    /// Whether it was ordered by the scaler (not one of the starting pool).
    new: bool,
    waiting: VecDeque<usize>,
    /// Admitted requests still prefilling, with their prefill left, seconds.
    prefilling: VecDeque<(usize, f64)>,
    /// Seconds at which decoding requests end.
    decoding: Vec<u32>,
    /// Cached prefixes, least recently used first.
    cache: Vec<u32>,
    /// Requests taken since ready, and the fair share of them.
    took: u32,
    fair: f64,
    /// This period's busy seconds, slot-seconds and seconds counted.
    busy: u32,
    slots_used: u64,
    counted: u32,
}

impl Replica {
    fn new(life: Life, ready_at: u32, ordered: u32, new: bool) -> Replica {
        Replica {
            life,
            ready_at,
            ordered,
            new,
            waiting: VecDeque::new(),
            prefilling: VecDeque::new(),
            decoding: Vec::new(),
            cache: Vec::new(),
            took: 0,
            fair: 0.0,
            busy: 0,
            slots_used: 0,
            counted: 0,
        }
    }

    fn running(&self) -> u32 {
        (self.prefilling.len() + self.decoding.len()) as u32
    }

    fn outstanding(&self) -> u32 {
        self.running() + self.waiting.len() as u32
    }

    fn holds(&self, group: u32) -> bool {
        self.cache.contains(&group)
    }

    fn fresh(&self, t: u32) -> bool {
        self.new && self.life == Life::Ready && t - self.ready_at < FRESH
    }

    /// Still ramping up under slow start.
    fn ramping(&self, t: u32, slow_start: u32) -> bool {
        self.new && self.life == Life::Ready && t - self.ready_at < slow_start
    }
}

/// The replica `rule` picks among `places` (never empty).
fn pick(config: &Config, pool: &[Option<Replica>], places: &[usize], group: u32) -> usize {
    let load = |p: usize| pool[p].as_ref().map_or(u32::MAX, Replica::outstanding);
    let least = places
        .iter()
        .copied()
        .min_by_key(|&p| (load(p), p))
        .unwrap_or(0);
    if config.router == Router::LeastOutstanding {
        return least;
    }
    // Prefix-aware (SGLang's cache-aware rule in one line): the least busy
    // replica holding the prefix, unless it is `balance` requests busier
    // than the least busy replica of all.
    let holder = places
        .iter()
        .copied()
        .filter(|&p| pool[p].as_ref().is_some_and(|r| r.holds(group)))
        .min_by_key(|&p| (load(p), p));
    match holder {
        Some(h) if load(h) <= load(least) + config.balance => h,
        _ => least,
    }
}

/// The scaler's reading over the ready replicas, the count it asks for, and
/// the share of slots in use over the period (what the busy-fraction key
/// moment compares its reading with).
fn decide(
    config: &Config,
    scaler: Scaler,
    pool: &[Option<Replica>],
    t: u32,
    ttfts: &mut Vec<f64>,
) -> (f64, u32, f64) {
    let ready: Vec<&Replica> = pool
        .iter()
        .flatten()
        .filter(|r| r.life == Life::Ready)
        .collect();
    let n = ready.len().max(1) as f64;
    let share = |f: &dyn Fn(&Replica) -> f64| ready.iter().map(|r| f(r)).sum::<f64>() / n;
    let kv =
        share(&|r| r.slots_used as f64 / (f64::from(r.counted.max(1)) * f64::from(config.slots)));
    let (reading, ratio) = match scaler {
        Scaler::Fixed => return (0.0, config.start(false), kv),
        Scaler::Busy => {
            let b = share(&|r| f64::from(r.busy) / f64::from(r.counted.max(1)));
            (b, b / config.busy_target)
        }
        Scaler::Kv | Scaler::Predictive => (kv, kv / config.kv_target),
        Scaler::Queue => {
            let q = share(&|r| f64::from(r.outstanding()));
            (q, q / config.queue_target)
        }
        Scaler::Ttft => {
            ttfts.sort_by(f64::total_cmp);
            let p = if ttfts.is_empty() {
                config.ttft_target
            } else {
                percentile_sorted(ttfts, 95.0)
            };
            (p, p / config.ttft_target)
        }
    };
    ttfts.clear();
    // Kubernetes' rule: desired = ceil(current × reading ÷ target), left
    // alone within the tolerance.
    let mut desired = if (ratio - 1.0).abs() <= TOLERANCE {
        ready.len() as u32
    } else {
        libm::ceil(n * ratio) as u32
    };
    let mut reading = reading;
    if scaler == Scaler::Predictive {
        // The forecast one cold start and one period ahead, sized at the
        // KV target: the count that will be needed when an order placed now
        // is ready.
        let ahead = config.rate_at(t + config.cold + config.period);
        let need = libm::ceil(ahead / (config.replica_rate() * config.kv_target)) as u32;
        reading = f64::from(need);
        desired = desired.max(need);
    }
    (reading, desired.clamp(config.min, config.max), kv)
}

/// Run `scaler` over `reqs`, recording each second when `record`.
fn run_scaler(config: &Config, scaler: Scaler, reqs: &[Arrival], record: bool) -> ScalerRun {
    let start = config.start(scaler != Scaler::Fixed);
    let mut pool: Vec<Option<Replica>> = (0..start)
        .map(|_| Some(Replica::new(Life::Ready, 0, 0, false)))
        .collect();
    let mut tie = Rng::new(config.seed, stream::TIE_BREAKS);
    let surge_end = config.surge_at.saturating_add(config.surge_for);
    let mut ttft: Vec<Option<f64>> = alloc::vec![None; reqs.len()];
    let mut fresh_ttft: Vec<f64> = Vec::new();
    let mut to_fresh = alloc::vec![false; reqs.len()];
    let mut period_ttfts: Vec<f64> = Vec::new();
    let mut window: Vec<f64> = Vec::new();
    let mut windows: Vec<f64> = Vec::new();
    // The starting count counts as asked for at second 0, so the pool does
    // not shrink before a scale-in window has passed.
    let mut asked: VecDeque<(u32, u32)> = VecDeque::from([(0, start)]);
    let (mut reading, mut desired) = (0.0, start);
    let (mut finished, mut late, mut peak) = (0u32, 0u32, start);
    let mut replica_seconds = 0u64;
    let (mut fresh_took, mut fresh_fair) = (0.0f64, 0.0f64);
    let (mut steady_busy, mut steady_kv, mut steady_n) = (0.0f64, 0.0f64, 0u32);
    let mut seen = [false; 7];
    let mut reaction = None;
    let mut timeline = Vec::with_capacity(if record { config.ticks as usize } else { 0 });
    let mut next = 0usize;
    // Orders count as being for the surge from the surge's start, or for
    // the predictive scaler from one cold start and one period before it.
    let lead = if scaler == Scaler::Predictive {
        config.cold + config.period
    } else {
        0
    };
    for t in 0..config.ticks {
        let mut moment: Option<Moment> = None;
        let mut note = |m: Moment, kind: usize, seen: &mut [bool; 7]| {
            if !seen[kind] && moment.is_none() {
                seen[kind] = true;
                moment = Some(m);
            }
        };
        // Cold starts end; decodes end.
        for (p, r) in pool.iter_mut().enumerate() {
            let Some(r) = r else { continue };
            if r.life == Life::Starting && r.ready_at <= t {
                r.life = Life::Ready;
                if r.new && r.ordered + lead >= config.surge_at {
                    note(
                        Moment::Ready {
                            replica: p as u32,
                            ordered: r.ordered,
                        },
                        2,
                        &mut seen,
                    );
                }
                if r.ordered >= config.surge_at && r.ordered < surge_end && t >= surge_end {
                    late += 1;
                }
            }
            let before = r.decoding.len();
            r.decoding.retain(|&e| e > t);
            finished += (before - r.decoding.len()) as u32;
        }
        // Arrivals, each to one replica.
        let places: Vec<usize> = (0..pool.len())
            .filter(|&p| pool[p].as_ref().is_some_and(|r| r.life == Life::Ready))
            .collect();
        let mut sent = alloc::vec![0u32; pool.len()];
        let first = next;
        // Which replicas are fresh or ramping, and the rest, stay the same
        // through the second: worked out once, not per arrival.
        let n = places.len().max(1) as f64;
        let fresh: Vec<usize> = places
            .iter()
            .copied()
            .filter(|&p| pool[p].as_ref().is_some_and(|r| r.fresh(t)))
            .collect();
        // Slow start (Envoy's, reduced to a lottery): a ramping replica
        // takes the request with probability (age ÷ window) ÷ replicas,
        // and is otherwise left out of the rule's choice, so its share
        // climbs from nothing to a fair one over the window.
        let ramping: Vec<usize> = places
            .iter()
            .copied()
            .filter(|&p| {
                pool[p]
                    .as_ref()
                    .is_some_and(|r| r.ramping(t, config.slow_start))
            })
            .collect();
        let steady: Vec<usize> = places
            .iter()
            .copied()
            .filter(|p| !ramping.contains(p))
            .collect();
        let candidates = if steady.is_empty() { &places } else { &steady };
        while next < reqs.len() && reqs[next].tick == t {
            let req = reqs[next];
            let mut chosen = None;
            if !ramping.is_empty() {
                let mut u = tie.unit();
                for &p in &ramping {
                    let age = pool[p].as_ref().map_or(0, |r| t - r.ready_at);
                    let w = f64::from(age.max(1)) / f64::from(config.slow_start) / n;
                    if u < w {
                        chosen = Some(p);
                        break;
                    }
                    u -= w;
                }
            }
            let p = chosen.unwrap_or_else(|| pick(config, &pool, candidates, req.group));
            if !fresh.is_empty() {
                fresh_fair += fresh.len() as f64 / n;
                if fresh.contains(&p) {
                    fresh_took += 1.0;
                    to_fresh[next] = true;
                }
            }
            for &q in &fresh {
                if let Some(r) = pool[q].as_mut() {
                    r.fair += 1.0 / n;
                }
            }
            if let Some(r) = pool.get_mut(p).and_then(Option::as_mut) {
                r.waiting.push_back(next);
                r.took += 1;
            }
            if let Some(s) = sent.get_mut(p) {
                *s += 1;
            }
            next += 1;
        }
        let arrived_now = (next - first) as u32;
        // Admission and prefill, one request at a time per replica.
        for r in pool.iter_mut().flatten() {
            while r.running() < config.slots {
                let Some(i) = r.waiting.pop_front() else {
                    break;
                };
                let g = reqs[i].group;
                let hit = r.holds(g);
                r.cache.retain(|&x| x != g);
                r.cache.push(g);
                if r.cache.len() > config.cache as usize {
                    r.cache.remove(0);
                }
                let work = if hit {
                    config.prefill * config.hit_cost
                } else {
                    config.prefill
                };
                r.prefilling.push_back((i, work));
            }
            let mut budget = 1.0;
            while budget > 0.0 {
                let Some(front) = r.prefilling.front_mut() else {
                    break;
                };
                if front.1 > budget {
                    front.1 -= budget;
                    break;
                }
                budget -= front.1;
                let i = front.0;
                r.prefilling.pop_front();
                let at = f64::from(t - reqs[i].tick) + (1.0 - budget);
                ttft[i] = Some(at);
                period_ttfts.push(at);
                window.push(at);
                if to_fresh[i] {
                    fresh_ttft.push(at);
                }
                r.decoding.push(t + 1 + reqs[i].decode);
            }
        }
        // Signals accumulate over ready replicas.
        let (mut b, mut k, mut n) = (0.0, 0.0, 0u32);
        for r in pool.iter_mut().flatten() {
            if r.life == Life::Ready {
                let running = r.running();
                r.busy += u32::from(running > 0);
                r.slots_used += u64::from(running);
                r.counted += 1;
                b += f64::from(u32::from(running > 0));
                k += f64::from(running) / f64::from(config.slots);
                n += 1;
            }
        }
        if t < config.surge_at && n > 0 {
            steady_busy += b / f64::from(n);
            steady_kv += k / f64::from(n);
            steady_n += 1;
        }
        // Flooded or passed over: judged on each fresh replica.
        for (p, r) in pool.iter().enumerate() {
            let Some(r) = r else { continue };
            if !r.new || r.life != Life::Ready {
                continue;
            }
            let age = t - r.ready_at;
            if age < 10 && r.took >= config.slots {
                note(
                    Moment::Flooded {
                        replica: p as u32,
                        took: r.took,
                        after: age + 1,
                    },
                    3,
                    &mut seen,
                );
            }
            if age + 1 == FRESH && f64::from(r.took) < r.fair / 4.0 {
                note(
                    Moment::Ignored {
                        replica: p as u32,
                        took: r.took,
                        fair: r.fair,
                    },
                    4,
                    &mut seen,
                );
            }
        }
        // Drained replicas leave once empty.
        for r in pool.iter_mut() {
            if r.as_ref()
                .is_some_and(|r| r.life == Life::Draining && r.outstanding() == 0)
            {
                *r = None;
            }
        }
        if config.surge > 0.0 && t == surge_end {
            let starting = pool
                .iter()
                .flatten()
                .filter(|r| r.life == Life::Starting)
                .count() as u32;
            if starting > 0 {
                note(Moment::SurgeOver { starting }, 5, &mut seen);
            }
        }
        // The control loop.
        if scaler != Scaler::Fixed && t + 1 >= WARM_UP && (t + 1) % config.period == 0 {
            let kv_now;
            (reading, desired, kv_now) = decide(config, scaler, &pool, t, &mut period_ttfts);
            for r in pool.iter_mut().flatten() {
                (r.busy, r.slots_used, r.counted) = (0, 0, 0);
            }
            asked.push_back((t, desired));
            while asked.front().is_some_and(|&(s, _)| s + config.cooldown < t) {
                asked.pop_front();
            }
            let current = pool
                .iter()
                .flatten()
                .filter(|r| r.life != Life::Draining)
                .count() as u32;
            if desired > current {
                // Kubernetes' default scale-up policy: at most 4 replicas
                // or 100% more per period, whichever is more.
                let count = (desired - current).min(current.max(4));
                let ready_at = t + 1 + config.cold;
                for _ in 0..count {
                    let r = Replica::new(Life::Starting, ready_at, t, true);
                    match pool.iter().position(Option::is_none) {
                        Some(p) => pool[p] = Some(r),
                        None => pool.push(Some(r)),
                    }
                }
                if config.surge > 0.0 && t >= config.surge_at && reaction.is_none() {
                    reaction = Some(t - config.surge_at);
                }
                if scaler == Scaler::Busy && kv_now < 0.5 {
                    note(
                        Moment::Pinned {
                            busy: reading,
                            kv: kv_now,
                        },
                        0,
                        &mut seen,
                    );
                }
                if t + lead >= config.surge_at {
                    note(Moment::Ordered { count, ready_at }, 1, &mut seen);
                }
            } else {
                // Shrink only to the most asked for over the window.
                let keep = asked.iter().map(|&(_, d)| d).max().unwrap_or(desired);
                if keep < current {
                    let count = drain(&mut pool, current - keep);
                    if t >= surge_end && count > 0 {
                        note(Moment::ScaleIn { count }, 6, &mut seen);
                    }
                }
            }
        }
        let live = pool.iter().flatten().count() as u32;
        peak = peak.max(live);
        replica_seconds += u64::from(live);
        if (t + 1) % WINDOW == 0 || t + 1 == config.ticks {
            window.sort_by(f64::total_cmp);
            windows.push(if window.is_empty() {
                0.0
            } else {
                percentile_sorted(&window, 95.0)
            });
            window.clear();
        }
        if record {
            let pool_now = pool
                .iter()
                .enumerate()
                .map(|(p, r)| match r {
                    None => Spot {
                        life: Life::Off,
                        waiting: 0,
                        running: 0,
                        sent: 0,
                        fresh: false,
                        ready_in: 0,
                    },
                    Some(r) => Spot {
                        life: r.life,
                        waiting: r.waiting.len() as u32,
                        running: r.running(),
                        sent: sent.get(p).copied().unwrap_or(0),
                        fresh: r.fresh(t),
                        ready_in: r.ready_at.saturating_sub(t),
                    },
                })
                .collect();
            timeline.push(Snapshot {
                pool: pool_now,
                arrivals: arrived_now,
                reading,
                desired,
                moment,
            });
        }
    }
    let mut all: Vec<f64> = ttft.iter().flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    let mut surge: Vec<f64> = reqs
        .iter()
        .zip(&ttft)
        .filter(|(r, _)| config.surging(r.tick))
        .filter_map(|(_, x)| *x)
        .collect();
    surge.sort_by(f64::total_cmp);
    fresh_ttft.sort_by(f64::total_cmp);
    let met = ttft.iter().flatten().filter(|&&x| x <= config.slo).count();
    let arrived = reqs.len() as u32;
    let p = |v: &[f64], q: f64| {
        if v.is_empty() {
            0.0
        } else {
            percentile_sorted(v, q)
        }
    };
    let steady = f64::from(steady_n.max(1));
    ScalerRun {
        scaler,
        arrived,
        finished,
        unfinished: arrived - finished,
        ttft_p50: p(&all, 50.0),
        ttft_p95: p(&all, 95.0),
        surge_p95: p(&surge, 95.0),
        slo_met: if arrived == 0 {
            1.0
        } else {
            met as f64 / f64::from(arrived)
        },
        replica_minutes: replica_seconds as f64 / 60.0,
        peak,
        late,
        reaction,
        fresh_load: (fresh_fair > 0.0).then(|| fresh_took / fresh_fair),
        fresh_p95: (!fresh_ttft.is_empty()).then(|| percentile_sorted(&fresh_ttft, 95.0)),
        steady_busy: steady_busy / steady,
        steady_kv: steady_kv / steady,
        ttft_windows: windows,
        timeline,
    }
}

/// Drain `count` replicas: starting ones first (cancelled at once), then
/// the most recently ready. Returns how many were drained or cancelled.
fn drain(pool: &mut [Option<Replica>], count: u32) -> u32 {
    let mut done = 0;
    while done < count {
        let starting = pool
            .iter()
            .rposition(|r| r.as_ref().is_some_and(|r| r.life == Life::Starting));
        if let Some(p) = starting {
            pool[p] = None;
            done += 1;
            continue;
        }
        let newest = (0..pool.len())
            .filter(|&p| pool[p].as_ref().is_some_and(|r| r.life == Life::Ready))
            .max_by_key(|&p| (pool[p].as_ref().map_or(0, |r| r.ready_at), p));
        let ready = pool
            .iter()
            .flatten()
            .filter(|r| r.life == Life::Ready)
            .count();
        match newest {
            Some(p) if ready > 1 => {
                if let Some(r) = pool[p].as_mut() {
                    r.life = Life::Draining;
                }
                done += 1;
            }
            _ => break,
        }
    }
    done
}

/// Run every scaler on the same requests without recording (what the
/// claims over many seeds need).
pub fn run_scalers(config: &Config, scalers: &[Scaler]) -> Result<Vec<ScalerRun>, ParamError> {
    config.validate()?;
    let reqs = arrivals(config);
    Ok(scalers
        .iter()
        .map(|&s| run_scaler(config, s, &reqs, false))
        .collect())
}

/// Run `scalers` on the same requests, recording each second by second.
pub fn run(config: &Config, scalers: &[Scaler]) -> Result<Outcome, ParamError> {
    config.validate()?;
    let reqs = arrivals(config);
    Ok(Outcome {
        config: config.clone(),
        runs: scalers
            .iter()
            .map(|&s| run_scaler(config, s, &reqs, true))
            .collect(),
    })
}
