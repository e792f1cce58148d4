//! Ticks mode: running a replica through a stretch of ticks in which
//! nothing is routed to it (until the pool's next arrival), faster than a
//! call of [`Replica::tick`] per tick but with exactly the same result.
//!
//! The saving is the decode stretch: once every running sequence is past
//! its prefill and no waiting request can be admitted, each tick only emits
//! one token per sequence, so `k` such ticks are one pass over the batch
//! (each sequence's KV growth over `k` tokens has a closed form). Ticks
//! that prefill, admit, finish a sequence or could overflow the KV cache
//! still run one at a time.

use alloc::vec::Vec;

use super::{EngineEvent, Replica};
use crate::time::Tick;
use crate::workload::Workload;

/// KV blocks a sequence with `room` free token places in its last block
/// takes on over its next `k` tokens, at `block` tokens a block: the first
/// at token `room + 1`, then one every `block` tokens (as [`Replica::emit`]
/// grows it one token at a time).
#[inline]
fn growth(room: u32, k: u64, block: u32) -> u64 {
    let room = u64::from(room);
    if k <= room {
        0
    } else {
        1 + (k - room - 1) / u64::from(block)
    }
}

impl Replica {
    /// Run ticks `from` up to (not including) `to`, as that many calls of
    /// [`Replica::tick`] would, for a stretch in which nothing is routed
    /// here. Stops at the first tick at which the replica is idle (it stays
    /// idle: nothing arrives) and returns it, or `to`. In ticks mode the
    /// caller owes the idle ticks from there ([`Replica::idle_ticks`]); in
    /// milliseconds mode an idle replica banks no time, so none are owed.
    pub fn advance(
        &mut self,
        from: Tick,
        to: Tick,
        workload: &Workload,
        events: &mut Vec<EngineEvent>,
    ) -> Tick {
        if self.cost.is_some() {
            return self.advance_ms(from, to, workload, events);
        }
        let mut t = from.0;
        while t < to.0 {
            if self.is_idle() {
                return Tick(t);
            }
            self.tick(Tick(t), workload, events);
            t += 1;
            if t < to.0 {
                t += self.skip_decode(to.0 - t);
            }
        }
        to
    }

    /// Ticks mode: `ticks` idle ticks, each exactly what [`Replica::tick`]
    /// does to an idle replica (it moves the speed credit), however many.
    pub fn idle_ticks(&mut self, ticks: u64) {
        for _ in 0..ticks {
            self.credit += self.speed;
            while self.credit >= 1.0 {
                self.credit -= 1.0;
            }
        }
    }

    /// Run at most `max` of the coming ticks at once when each would be a
    /// decode step and nothing else: no sequence prefilling, none finishing,
    /// no admission possible, no KV overflow. Returns how many ran (0 when
    /// the next tick must run on its own). Only at speed 1 with no credit
    /// carried, where a tick is exactly one step, and not with the cache in
    /// free KV (it resizes every step).
    fn skip_decode(&mut self, max: u64) -> u64 {
        #[allow(clippy::float_cmp)] // exact: credit is 0.0 + 1.0 − 1.0 at speed 1
        let one_step_a_tick = self.speed == 1.0 && self.credit == 0.0;
        if !one_step_a_tick
            || self.cost.is_some()
            || self.spec.cache_in_kv
            || self.prefilling > 0
            || self.running.is_empty()
            // Admission could take the head of the queue (a KV-blocked head
            // is left to the tick-by-tick path, which retries it).
            || (!self.waiting.is_empty() && (self.running.len() as u32) < self.spec.slots)
        {
            return 0;
        }
        let Some(min_left) = self.running.iter().map(|s| s.left).min() else {
            return 0;
        };
        // The tick in which a sequence finishes runs on its own.
        let mut k = u64::from(min_left.saturating_sub(1)).min(max);
        if k == 0 {
            return 0;
        }
        let block = self.spec.kv_block_tokens.max(1);
        let free = u64::from(self.spec.kv_blocks.saturating_sub(self.kv_used));
        let grown = |k: u64| -> u64 { self.running.iter().map(|s| growth(s.room, k, block)).sum() };
        if grown(k) > free {
            // The longest stretch whose growth still fits (growth only rises
            // with k, and k = 0 grows nothing).
            let (mut lo, mut hi) = (0, k);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if grown(mid) <= free {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            k = lo;
            if k == 0 {
                return 0;
            }
        }
        let mut total = 0u32;
        let k32 = k as u32;
        for s in self.running.iter_mut() {
            let g = growth(s.room, k, block) as u32;
            s.room = if g == 0 {
                s.room - k32
            } else {
                block - 1 - ((k32 - s.room - 1) % block)
            };
            s.kv += g;
            total += g;
            s.left -= k32;
            s.ctx += k32;
            s.chunks += k32;
        }
        self.kv_used += total;
        self.stats.busy_ticks += k;
        k
    }
}

#[cfg(test)]
mod tests {
    use super::growth;

    /// The closed form against emitting token by token as `Replica::emit`
    /// does.
    #[test]
    fn growth_matches_token_by_token() {
        for block in 1..6u32 {
            for room0 in 0..block + 3 {
                let (mut room, mut grown) = (room0, 0u64);
                for k in 1..40u64 {
                    let g = u32::from(room == 0);
                    grown += u64::from(g);
                    room = room.wrapping_sub(1).wrapping_add(g * block);
                    assert_eq!(
                        growth(room0, k, block),
                        grown,
                        "block {block} room {room0} k {k}"
                    );
                    let closed = if grown == 0 {
                        room0 - k as u32
                    } else {
                        block - 1 - ((k as u32 - room0 - 1) % block)
                    };
                    assert_eq!(closed, room, "block {block} room {room0} k {k}");
                }
            }
        }
    }
}
