//! A trace's own statistics: what a replayed file (or a generated workload)
//! actually contains, as opposed to the generator settings that produced it.
//!
//! Conventions follow the usual trace summaries: CV is the population standard
//! deviation over the mean; the arrival rate is (N − 1) / (last − first arrival);
//! percentiles interpolate like NumPy's default ([`crate::stats::percentile`]).
//! The reuse bound is the share of prompt blocks whose hash id appeared in an
//! earlier request: what an infinite prefix cache shared by every replica could
//! serve at best, so no routing rule's cache share can exceed it.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::Workload;
use crate::stats::percentile_sorted;
use hashbrown::HashSet;
use rustc_hash::FxBuildHasher;

/// Distribution of one length (prompt or output), in tokens.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LengthStats {
    /// Mean.
    pub mean: f64,
    /// Coefficient of variation (population).
    pub cv: f64,
    /// Smallest.
    pub min: u32,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: u32,
}

impl LengthStats {
    /// Statistics of `values` (all zero when empty).
    pub fn of(values: impl Iterator<Item = u32>) -> LengthStats {
        let mut v: Vec<f64> = values.map(f64::from).collect();
        if v.is_empty() {
            return LengthStats::default();
        }
        v.sort_by(f64::total_cmp);
        let (mean, cv) = mean_cv(&v);
        LengthStats {
            mean,
            cv,
            min: v[0] as u32,
            p50: percentile_sorted(&v, 50.0),
            p99: percentile_sorted(&v, 99.0),
            max: v[v.len() - 1] as u32,
        }
    }
}

/// Mean and population CV of `v` (0, 0 when empty or the mean is 0).
fn mean_cv(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    let cv = if mean > 0.0 {
        libm::sqrt(var) / mean
    } else {
        0.0
    };
    (mean, cv)
}

/// What a workload contains.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceStats {
    /// Requests.
    pub requests: u32,
    /// Tick of the first arrival.
    pub first_arrival: u64,
    /// Tick of the last arrival.
    pub last_arrival: u64,
    /// Arrivals per tick: (N − 1) / (last − first); 0 when the span is 0.
    pub rate: f64,
    /// CV of the gaps between consecutive arrivals.
    pub interarrival_cv: f64,
    /// Prompt lengths.
    pub prompt: LengthStats,
    /// Output lengths.
    pub output: LengthStats,
    /// Tokens per prefix hash block.
    pub block_tokens: u32,
    /// Share of prompt blocks seen in an earlier request (0–1): the most an
    /// infinite shared prefix cache could reuse.
    pub reuse_bound: f64,
}

impl Workload {
    /// The workload's own statistics.
    pub fn stats(&self) -> TraceStats {
        let reqs = &self.requests;
        let first = reqs.first().map_or(0, |r| r.arrival.0);
        let last = reqs.last().map_or(0, |r| r.arrival.0);
        let span = last.saturating_sub(first);
        let gaps: Vec<f64> = reqs
            .windows(2)
            .map(|w| w[1].arrival.0.saturating_sub(w[0].arrival.0) as f64)
            .collect();
        // Every block id seen so far.
        let mut seen: HashSet<u32, FxBuildHasher> = HashSet::default();
        let (mut blocks, mut repeats) = (0u64, 0u64);
        for r in reqs {
            for &b in &r.blocks {
                blocks += 1;
                if !seen.insert(b) {
                    repeats += 1;
                }
            }
        }
        TraceStats {
            requests: reqs.len() as u32,
            first_arrival: first,
            last_arrival: last,
            rate: if span == 0 || reqs.len() < 2 {
                0.0
            } else {
                (reqs.len() - 1) as f64 / span as f64
            },
            interarrival_cv: mean_cv(&gaps).1,
            prompt: LengthStats::of(reqs.iter().map(|r| r.prompt_tokens)),
            output: LengthStats::of(reqs.iter().map(|r| r.output_tokens)),
            block_tokens: self.block_tokens,
            reuse_bound: if blocks == 0 {
                0.0
            } else {
                repeats as f64 / blocks as f64
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Tick;
    use crate::workload::{BlockId, Request};
    use alloc::vec;

    fn req(arrival: u64, prompt: u32, output: u32, blocks: Vec<BlockId>) -> Request {
        Request {
            adapter: 0,
            arrival: Tick(arrival),
            prompt_tokens: prompt,
            output_tokens: output,
            blocks,
            long: false,
        }
    }

    #[test]
    fn counts_rate_spread_and_reuse() {
        let w = Workload {
            block_tokens: 10,
            requests: vec![
                req(0, 20, 5, vec![1, 2]),
                req(2, 30, 5, vec![1, 2, 3]),
                req(4, 10, 5, vec![9]),
            ],
        };
        let s = w.stats();
        assert_eq!(s.requests, 3);
        assert_eq!(s.rate, 0.5);
        assert_eq!(s.interarrival_cv, 0.0);
        assert_eq!((s.prompt.min, s.prompt.max), (10, 30));
        assert_eq!(s.prompt.mean, 20.0);
        assert_eq!(s.output.cv, 0.0);
        // 6 blocks, of which 1 and 2 repeat.
        assert!((s.reuse_bound - 2.0 / 6.0).abs() < 1e-12);
    }
}
