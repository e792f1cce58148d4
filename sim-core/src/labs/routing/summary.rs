//! What one rule's run gives, read off the tick loop's state once the run
//! is over: latency and SLO figures, cache hits, balance, throughput, each
//! replica's use, the decisions' reasons, and the offered load.

use alloc::string::String;
use alloc::vec::Vec;

use super::outcome::{ReasonCount, ReplicaOutcome, RuleOutcome};
use super::tick::TickLoop;
use super::Config;
use crate::engine::{Replica, ReplicaStats};
use crate::routing::Decision;
use crate::stats::percentile_sorted;
use crate::workload::Workload;

impl TickLoop<'_> {
    /// The rule's figures. The run's length is up to the last finish (or
    /// where the loop stopped, when nothing finished).
    pub(super) fn finish(self) -> RuleOutcome {
        let config = self.config;
        let reqs = &self.workload.requests;
        let ticks = self.last_finish.map_or(self.now.0, |t| t + 1).max(1);
        let mut ttfts: Vec<f64> = self.ttft.iter().flatten().map(|&t| t as f64).collect();
        ttfts.sort_by(f64::total_cmp);
        let mut e2es: Vec<f64> = self.e2e.iter().flatten().map(|&t| t as f64).collect();
        e2es.sort_by(f64::total_cmp);
        let met = self
            .ttft
            .iter()
            .flatten()
            .filter(|&&t| t <= config.slo_ticks())
            .count();
        let stats: Vec<_> = self.replicas.iter().map(Replica::stats).collect();
        let assigned = stats.iter().map(|s| s.assigned);
        let gap = assigned.clone().max().unwrap_or(0) - assigned.min().unwrap_or(0);
        let replicas = self.replica_outcomes(ticks, &stats);
        let decode = self.decode_figures();
        RuleOutcome {
            rule: self.rule,
            ttft_p50: percentile_sorted(&ttfts, 50.0),
            ttft_p95: percentile_sorted(&ttfts, 95.0),
            e2e_p95: percentile_sorted(&e2es, 95.0),
            tpot_mean: decode.tpot_mean,
            tpot_p95: decode.tpot_p95,
            itl_mean: decode.itl_mean,
            tokens_per_chunk: decode.tokens_per_chunk,
            slo_attainment: met as f64 / reqs.len().max(1) as f64,
            cache_hit_share: self.cache_hit_share(),
            assignment_gap: gap,
            output_throughput: self.output_done as f64 / ticks as f64,
            completed: self.completed,
            outstanding: reqs.len() as u32 - self.completed,
            ticks,
            preemptions: stats.iter().map(|s| s.preemptions).sum(),
            offered_load: offered_load(
                config,
                self.workload,
                &self.cached,
                &self.replicas,
                self.arrivals.last(),
            ),
            replicas,
            reasons: reason_counts(&self.decisions),
            queue: self.sampler.finish(),
            decisions: self.decisions,
            ttfts,
            finished_at: self.finished_at,
            ttft_by_request: self.ttft,
            sent_at: self.arrivals.times(),
            counterfactuals: self.counterfactuals,
        }
    }

    /// TPOT and ITL as `vllm bench serve` defines them
    /// (docs/benchmarking/cli.md): per finished request with at least two
    /// tokens, its decoding time (last token less first) over its tokens
    /// after the first, and over its chunks after the first for the gaps.
    fn decode_figures(&self) -> DecodeFigures {
        let reqs = &self.workload.requests;
        let mut tpots = Vec::new();
        let (mut time, mut tokens, mut gaps) = (0u64, 0u64, 0u64);
        for (i, r) in reqs.iter().enumerate() {
            let (Some(ttft), Some(e2e)) = (self.ttft[i], self.e2e[i]) else {
                continue;
            };
            if r.output_tokens < 2 {
                continue;
            }
            let decoding = e2e.saturating_sub(ttft);
            tpots.push(decoding as f64 / f64::from(r.output_tokens - 1));
            time += decoding;
            tokens += u64::from(r.output_tokens - 1);
            gaps += u64::from(self.chunks[i].saturating_sub(1));
        }
        tpots.sort_by(f64::total_cmp);
        let mean = if tpots.is_empty() {
            0.0
        } else {
            tpots.iter().sum::<f64>() / tpots.len() as f64
        };
        DecodeFigures {
            tpot_mean: mean,
            tpot_p95: percentile_sorted(&tpots, 95.0),
            itl_mean: if gaps == 0 {
                0.0
            } else {
                time as f64 / gaps as f64
            },
            tokens_per_chunk: if gaps == 0 {
                1.0
            } else {
                tokens as f64 / gaps as f64
            },
        }
    }

    /// Of the prompt tokens of admitted requests, the share their admission
    /// found cached.
    fn cache_hit_share(&self) -> f64 {
        let (mut hit_tokens, mut prompt_tokens) = (0u64, 0u64);
        for (c, r) in self.cached.iter().zip(&self.workload.requests) {
            if let Some(c) = c {
                hit_tokens += u64::from(*c);
                prompt_tokens += u64::from(r.prompt_tokens);
            }
        }
        if prompt_tokens == 0 {
            0.0
        } else {
            hit_tokens as f64 / prompt_tokens as f64
        }
    }

    /// Each replica's share of its capacity spent busy and on prefill, and
    /// its mean queue, over a run of `ticks`.
    fn replica_outcomes(&self, ticks: u64, stats: &[ReplicaStats]) -> Vec<ReplicaOutcome> {
        let in_ms = self.config.timing.in_ms();
        self.replicas
            .iter()
            .zip(stats)
            .enumerate()
            .map(|(i, (r, s))| {
                // Capacity: iterations it could have run since it joined.
                let alive = ticks.saturating_sub(r.joined_at().0).max(1) as f64;
                let capacity = alive * r.speed();
                // In milliseconds mode a tick is a millisecond of the
                // replica's time, and iterations are counted in microseconds.
                let (busy, prefill) = if in_ms {
                    (s.busy_us as f64 / 1000.0, s.prefill_us as f64 / 1000.0)
                } else {
                    (s.busy_ticks as f64, s.prefill_ticks as f64)
                };
                ReplicaOutcome {
                    assigned: s.assigned,
                    completed: s.completed,
                    utilization: busy / capacity,
                    prefill_share: prefill / capacity,
                    mean_outstanding: self.sampler.mean(i, r.joined_at().0),
                    speed: r.speed(),
                    joined_at: r.joined_at().0,
                }
            })
            .collect()
    }
}

/// A run's decode figures (see [`RuleOutcome`]'s fields of these names).
struct DecodeFigures {
    tpot_mean: f64,
    tpot_p95: f64,
    itl_mean: f64,
    tokens_per_chunk: f64,
}

/// How many decisions gave each reason, in order of first use.
fn reason_counts(decisions: &[Decision]) -> Vec<ReasonCount> {
    let mut reasons: Vec<ReasonCount> = Vec::new();
    for d in decisions {
        let name = d.reason.name();
        match reasons.iter_mut().find(|r| r.reason == name) {
            Some(r) => r.count += 1,
            None => reasons.push(ReasonCount {
                reason: String::from(name),
                count: 1,
            }),
        }
    }
    reasons
}

/// The work the run's requests brought, per tick of the arrival window
/// (ticks 0 to the last arrival), over what the pool can do in that window.
/// A request's work at full efficiency is its uncached prompt in whole
/// prefill steps plus its output at a full batch (`slots` tokens per decode
/// step); a replica runs `speed` steps per tick from when it joined. This is
/// the least work the requests need, so offered load above 1 means the pool
/// cannot keep up whatever the rule does.
fn offered_load(
    config: &Config,
    workload: &Workload,
    cached: &[Option<u32>],
    replicas: &[Replica],
    last_arrival: u64,
) -> f64 {
    let reqs = &workload.requests;
    let window = last_arrival + 1;
    let budget = config.prefill_budget.max(1);
    let slots = f64::from(config.slots.max(1));
    let cost = config.step_cost();
    let work: f64 = reqs
        .iter()
        .zip(cached)
        .map(|(r, c)| {
            let cached = r.prompt_tokens.saturating_sub(1).min(c.unwrap_or(0));
            let uncached = r.prompt_tokens - cached;
            match &cost {
                None => f64::from(uncached.div_ceil(budget)) + f64::from(r.output_tokens) / slots,
                // Milliseconds: the request's prefill chunks alone, and its
                // share of full-batch decode steps whose sequences have
                // contexts like its own (at mid-output).
                Some(cost) => {
                    let mut ms = 0.0;
                    let mut done = cached;
                    while done < r.prompt_tokens {
                        let take = (r.prompt_tokens - done).min(budget);
                        ms += cost.prefill_s(f64::from(take), f64::from(done)) * 1000.0;
                        done += take;
                    }
                    let context = f64::from(r.prompt_tokens) + f64::from(r.output_tokens) / 2.0;
                    let step = cost.decode_s(slots, slots * context) * 1000.0;
                    ms + f64::from(r.output_tokens) * step / slots
                }
            }
        })
        .sum();
    let capacity: f64 = replicas
        .iter()
        .map(|r| r.speed() * window.saturating_sub(r.joined_at().0).max(1) as f64)
        .sum();
    if capacity <= 0.0 {
        0.0
    } else {
        work / capacity
    }
}
