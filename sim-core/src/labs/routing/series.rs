//! The queue-evolution series: outstanding requests per replica over time,
//! down-sampled so a long run stays a few hundred points per replica.

use alloc::vec;
use alloc::vec::Vec;

use super::outcome::QueueSeries;
use crate::engine::Replica;

/// Points kept per replica before the queue series halves its resolution.
const QUEUE_POINTS: usize = 600;

/// Down-sampler for the queue-evolution series (bucket maxima).
pub(super) struct QueueSampler {
    stride: u64,
    filled: u64,
    current: Vec<u32>,
    series: Vec<Vec<u32>>,
    /// Ticks sampled so far.
    samples: u64,
    /// Per replica, outstanding requests summed over every sampled tick.
    totals: Vec<u64>,
}

impl QueueSampler {
    pub(super) fn new(replicas: usize) -> Self {
        QueueSampler {
            stride: 1,
            filled: 0,
            current: vec![0; replicas],
            series: vec![Vec::new(); replicas],
            samples: 0,
            totals: vec![0; replicas],
        }
    }

    /// A replica joined the pool: its series starts with zeros up to now.
    pub(super) fn add_replica(&mut self) {
        let len = self.series.first().map_or(0, Vec::len);
        self.series.push(vec![0; len]);
        self.current.push(0);
        self.totals.push(0);
    }

    /// Time-averaged outstanding requests of replica `i` over the ticks since
    /// it joined at `joined`.
    pub(super) fn mean(&self, i: usize, joined: u64) -> f64 {
        let ticks = self.samples.saturating_sub(joined).max(1);
        self.totals.get(i).map_or(0.0, |&t| t as f64 / ticks as f64)
    }

    pub(super) fn push(&mut self, replicas: &[Replica]) {
        for ((c, t), r) in self.current.iter_mut().zip(&mut self.totals).zip(replicas) {
            *c = (*c).max(r.outstanding());
            *t += u64::from(r.outstanding());
        }
        self.samples += 1;
        self.filled += 1;
        if self.filled == self.stride {
            self.flush();
            self.halve_if_full();
        }
    }

    /// `ticks` ticks in which every replica had nothing outstanding (an idle
    /// stretch the tick loop jumps over): the same series as that many
    /// [`QueueSampler::push`]es of an idle pool, in a few steps per stride.
    pub(super) fn push_idle(&mut self, mut ticks: u64) {
        while ticks > 0 {
            let take = ticks.min(self.stride - self.filled);
            self.samples += take;
            self.filled += take;
            ticks -= take;
            if self.filled == self.stride {
                self.flush();
                self.halve_if_full();
            }
        }
    }

    /// `ticks` ticks in which replica `i` had `counts[i]` outstanding (a
    /// stretch of milliseconds the tick loop runs in one go): the same
    /// series as that many [`QueueSampler::push`]es, in a few steps per
    /// stride.
    pub(super) fn push_counts(&mut self, counts: &[u32], mut ticks: u64) {
        while ticks > 0 {
            let take = ticks.min(self.stride - self.filled);
            for ((c, t), &n) in self.current.iter_mut().zip(&mut self.totals).zip(counts) {
                *c = (*c).max(n);
                *t += u64::from(n) * take;
            }
            self.samples += take;
            self.filled += take;
            ticks -= take;
            if self.filled == self.stride {
                self.flush();
                self.halve_if_full();
            }
        }
    }

    /// Halve the resolution once the series holds twice its points.
    fn halve_if_full(&mut self) {
        if self.series.first().map_or(0, Vec::len) >= 2 * QUEUE_POINTS {
            for s in self.series.iter_mut() {
                let halved: Vec<u32> = s
                    .chunks(2)
                    .map(|p| p.iter().copied().max().unwrap_or(0))
                    .collect();
                *s = halved;
            }
            self.stride *= 2;
        }
    }

    fn flush(&mut self) {
        if self.filled == 0 {
            return;
        }
        for (s, c) in self.series.iter_mut().zip(self.current.iter_mut()) {
            s.push(*c);
            *c = 0;
        }
        self.filled = 0;
    }

    pub(super) fn finish(mut self) -> QueueSeries {
        self.flush();
        QueueSeries {
            stride: self.stride,
            series: self.series,
        }
    }
}
