//! Figures read off a run's records: one arm's latency and cache figures,
//! the consecutive turns a design keeps together, and goodput over time.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::pool::{Assign, Fate, Rec, Run};
use crate::routing::RuleKind;
use crate::stats::percentile_sorted;

/// One arm of an experiment, over the requests it measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Arm {
    /// The rule it ran.
    pub rule: RuleKind,
    /// Requests measured.
    pub requests: u32,
    /// Of them, those still without a first token when the run stopped.
    pub unanswered: u32,
    /// Mean TTFT, in ticks.
    pub mean: f64,
    /// Standard deviation of TTFT, in ticks.
    pub sd: f64,
    /// Median TTFT.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// The slowest.
    pub max: f64,
    /// Prompt tokens found in a replica's prefix cache, as a share of
    /// prompt tokens.
    pub cache_share: f64,
    /// Of the turns after a conversation's first, the tokens past the
    /// system prompt (the conversation's own history) found cached, as a
    /// share of those tokens: what only a rule that keeps a conversation
    /// together can hit.
    pub history_share: f64,
    /// Share of requests whose first token met the objective.
    pub within: f64,
}

/// Whether `r` belongs to `arm` of a run with `assign`: in a shadow run
/// arm 1 is the copies, arm 0 the originals.
fn member(r: &Rec, arm: u8, assign: Assign) -> bool {
    if assign == Assign::Shadow {
        r.mirror == (arm == 1)
    } else {
        r.arm == arm && !r.mirror
    }
}

/// Whether `r` arrived in the run's measured window.
fn measured(r: &Rec, run: &Run) -> bool {
    (run.setup.from..run.setup.end).contains(&r.arrival)
}

/// [`arm`] over the requests arriving in `window` instead of the run's
/// measured window (the outage's ticks, say).
pub fn arm_over(run: &Run, window: core::ops::Range<u64>, slo: u32, stop: u64) -> Arm {
    arm_in(run, 0, slo, stop, window)
}

/// Arm `arm` of `run`, its first tokens judged against `slo` ticks. Unanswered
/// requests count as missing the objective and, in the percentiles, as
/// waiting until the run stopped at `stop`.
pub fn arm(run: &Run, arm: u8, slo: u32, stop: u64) -> Arm {
    arm_in(run, arm, slo, stop, run.setup.from..run.setup.end)
}

/// [`arm`] over the requests arriving in `window`.
fn arm_in(run: &Run, arm: u8, slo: u32, stop: u64, window: core::ops::Range<u64>) -> Arm {
    let mut ttft: Vec<f64> = Vec::new();
    let (mut prompt, mut cached, mut unanswered, mut within) = (0u64, 0u64, 0u32, 0u32);
    let (mut own, mut own_cached) = (0u64, 0u64);
    for r in run
        .recs
        .iter()
        .filter(|r| window.contains(&r.arrival) && member(r, arm, run.setup.assign))
    {
        if r.fate != Fate::Served {
            continue;
        }
        prompt += u64::from(r.prompt);
        cached += u64::from(r.cached);
        if r.turn > 0 {
            own += u64::from(r.prompt.saturating_sub(r.shared));
            own_cached += u64::from(r.cached.saturating_sub(r.shared));
        }
        let t = match r.ttft {
            Some(t) => t,
            None => {
                unanswered += 1;
                stop.saturating_sub(r.arrival)
            }
        };
        within += u32::from(r.ttft.is_some() && t <= u64::from(slo));
        ttft.push(t as f64);
    }
    ttft.sort_by(f64::total_cmp);
    let n = ttft.len().max(1) as f64;
    let mean = ttft.iter().sum::<f64>() / n;
    let var = ttft.iter().map(|t| (t - mean) * (t - mean)).sum::<f64>() / n;
    Arm {
        rule: run.setup.rules[usize::from(arm)],
        requests: ttft.len() as u32,
        unanswered,
        mean,
        sd: libm::sqrt(var),
        p50: percentile_sorted(&ttft, 50.0),
        p95: percentile_sorted(&ttft, 95.0),
        p99: percentile_sorted(&ttft, 99.0),
        max: ttft.last().copied().unwrap_or(0.0),
        cache_share: cached as f64 / prompt.max(1) as f64,
        history_share: own_cached as f64 / own.max(1) as f64,
        within: f64::from(within) / n,
    }
}

/// Consecutive turns of one conversation both measured: how many, in how
/// many both went to the canary arm, and in how many of those the second
/// found more than its shared prefix cached (its history).
pub fn pairs(run: &Run) -> (u32, u32, u32) {
    let convs = run
        .recs
        .iter()
        .map(|r| r.conv as usize + 1)
        .max()
        .unwrap_or(0);
    let mut last: Vec<Option<(u32, bool)>> = alloc::vec![None; convs];
    // In a shadow run a conversation is the canary's when it was copied.
    let mut copied = alloc::vec![false; convs];
    for r in run.recs.iter().filter(|r| r.mirror) {
        copied[r.conv as usize] = true;
    }
    let (mut pairs, mut both, mut kept) = (0, 0, 0);
    for r in run.recs.iter().filter(|r| !r.mirror) {
        let c = r.conv as usize;
        let canary = match run.setup.assign {
            Assign::Shadow => copied[c],
            _ => r.arm == 1,
        };
        if let Some((turn, was)) = last[c] {
            if turn + 1 == r.turn && measured(r, run) {
                pairs += 1;
                both += u32::from(was && canary);
                kept += u32::from(was && canary && history_hit(run, r));
            }
        }
        last[c] = Some((r.turn, canary));
    }
    (pairs, both, kept)
}

/// Whether `r`'s canary copy (its shadow's, in a shadow run) found more
/// than its shared prefix (the system prompt) cached.
fn history_hit(run: &Run, r: &Rec) -> bool {
    match r.copy {
        Some(i) => run.recs[i as usize].cached > r.shared,
        None => run.setup.assign != Assign::Shadow && r.cached > r.shared,
    }
}

/// Requests per tick that arrived in each window of `width` ticks from 0
/// to the run's end and were answered within `slo` ticks (a semantic
/// cache's right answers count; wrong ones and refusals do not).
pub fn goodput(run: &Run, width: u64, slo: u32) -> Vec<f64> {
    let n = run.setup.end.div_ceil(width) as usize;
    let mut good = alloc::vec![0u32; n];
    for r in run.recs.iter().filter(|r| !r.mirror) {
        let ok = match r.fate {
            Fate::Absorbed => true,
            Fate::Served => r.ttft.is_some_and(|t| t <= u64::from(slo)),
            Fate::Wrong | Fate::Refused => false,
        };
        if ok {
            if let Some(g) = good.get_mut((r.arrival / width) as usize) {
                *g += 1;
            }
        }
    }
    good.iter().map(|&g| f64::from(g) / width as f64).collect()
}

/// Per window of `width` ticks: requests per tick that arrived and reached
/// the pool, and those of them answered within `slo` ticks.
pub fn windows(run: &Run, width: u64, slo: u32) -> Vec<(f64, f64)> {
    let n = run.setup.end.div_ceil(width) as usize;
    let mut counts = alloc::vec![(0u32, 0u32); n];
    for r in run
        .recs
        .iter()
        .filter(|r| !r.mirror && r.fate == Fate::Served)
    {
        if let Some(c) = counts.get_mut((r.arrival / width) as usize) {
            c.0 += 1;
            c.1 += u32::from(r.ttft.is_some_and(|t| t <= u64::from(slo)));
        }
    }
    let w = width as f64;
    counts
        .iter()
        .map(|&(a, g)| (f64::from(a) / w, f64::from(g) / w))
        .collect()
}
