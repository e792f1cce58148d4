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
            // From a bucket's start, each whole stride is a bucket whose
            // maximum is the count itself: as many as fit before the series
            // halves go in at once (a long stretch of milliseconds with a
            // fine stride was one pass of this loop per bucket).
            if self.filled == 0 && ticks >= self.stride {
                let len = self.series.first().map_or(0, Vec::len);
                let room = (2 * QUEUE_POINTS).saturating_sub(len).max(1) as u64;
                let k = (ticks / self.stride).min(room);
                for (i, (s, t)) in self.series.iter_mut().zip(&mut self.totals).enumerate() {
                    let n = counts.get(i).copied().unwrap_or(0);
                    s.resize(s.len() + k as usize, n);
                    *t += u64::from(n) * self.stride * k;
                }
                self.samples += self.stride * k;
                ticks -= self.stride * k;
                self.halve_if_full();
                continue;
            }
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
            // In place, each pair's maximum (a long milliseconds run halves
            // often, so no second buffer is allocated for it).
            for s in self.series.iter_mut() {
                let v = s.as_mut_slice();
                let half = v.len().div_ceil(2);
                for j in 0..half {
                    let a = v[2 * j];
                    v[j] = if 2 * j + 1 < v.len() {
                        a.max(v[2 * j + 1])
                    } else {
                        a
                    };
                }
                s.truncate(half);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Long stretches put in at once give the series, the means and the
    /// stride that the same ticks put in one at a time give, across many
    /// halvings and with buckets left part-filled between stretches.
    #[test]
    fn a_stretch_at_once_is_its_ticks_one_by_one() {
        let mut rng = Rng::new(5, 0);
        let (mut bulk, mut single) = (QueueSampler::new(3), QueueSampler::new(3));
        for _ in 0..400 {
            let counts: Vec<u32> = (0..3).map(|_| rng.next_u32() % 9).collect();
            let ticks = u64::from(rng.next_u32() % 700);
            bulk.push_counts(&counts, ticks);
            for _ in 0..ticks {
                single.push_counts(&counts, 1);
            }
        }
        assert!(
            bulk.stride >= 64,
            "the series halved {} times",
            bulk.stride.trailing_zeros()
        );
        for i in 0..3 {
            assert_eq!(bulk.mean(i, 0).to_bits(), single.mean(i, 0).to_bits());
        }
        assert_eq!(bulk.finish(), single.finish());
    }
}
