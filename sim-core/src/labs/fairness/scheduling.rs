//! The fairness lab's scheduler phases: under strict priority an
//! interactive request may evict a batch sequence, then free slots are
//! filled by the scheduler's key, each admission looking its tenant's
//! shared prefix up in the cache and charging the tenant's counters.

use alloc::collections::VecDeque;

use super::config::{Scheduler, Shape};
use super::outcome::Moment;
use super::scheduler_loop::SchedulerLoop;
use super::sim::{prefill_of, release, Request, Running};

impl SchedulerLoop<'_> {
    /// Strict priority: an interactive request with every slot busy evicts
    /// the newest batch sequence, which starts over at the head of its
    /// tenant's queue. The player stops at the first eviction that throws
    /// computed work away (an earlier victim may not have had a prompt
    /// chunk yet).
    pub(super) fn preempt(&mut self, now: u32) {
        let shapes = self.shapes;
        let n = shapes.len();
        if self.scheduler != Scheduler::Priority || !self.slots.iter().all(Option::is_some) {
            return;
        }
        let waiting = (0..n).any(|t| shapes[t].interactive && !self.queues[t].is_empty());
        let victim = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|s| (i, s)))
            .filter(|(_, s)| !shapes[s.req.tenant].interactive)
            .max_by_key(|(_, s)| s.admitted)
            .map(|(i, _)| i);
        let (true, Some(i)) = (waiting, victim) else {
            return;
        };
        let Some(run) = self.slots[i].take() else {
            return;
        };
        release(&mut self.cache, &run);
        self.preempted[run.req.tenant] += 1;
        self.first_preemption.get_or_insert(now);
        self.evicted = Some(run.req.tenant as u32);
        let lost = prefill_of(&run, shapes) - run.prefill_left + run.made;
        if lost > 0 && !self.lost_work {
            self.lost_work = true;
            let by = (0..n).find(|&t| shapes[t].interactive && !self.queues[t].is_empty());
            self.moment = Some(Moment::Preemption {
                victim: run.req.tenant as u32,
                by: by.unwrap_or(0) as u32,
                lost,
            });
        }
        self.queues[run.req.tenant].push_front(run.req);
    }

    /// Fill free slots in slot order, each with the head request of the
    /// tenant the scheduler's key picks, until no tenant waits. The player
    /// stops at the first request admitted ahead of an older one.
    pub(super) fn fill(&mut self, now: u32) {
        let n = self.shapes.len();
        for i in 0..self.slots.len() {
            if self.slots[i].is_some() {
                continue;
            }
            let Some(t) = pick(
                self.scheduler,
                self.shapes,
                &self.queues,
                &self.window_tokens,
                &self.admitted_log,
                &self.vtc,
            ) else {
                break;
            };
            // The oldest head request another tenant had waiting.
            let oldest_other = (0..n)
                .filter(|&u| u != t)
                .filter_map(|u| self.queues[u].front().map(|r| (u, r.arrived)))
                .min_by_key(|&(_, at)| at);
            let Some(req) = self.queues[t].pop_front() else {
                break;
            };
            if let Some((u, at)) = oldest_other {
                if at < req.arrived && !self.overtook && self.moment.is_none() {
                    self.overtook = true;
                    self.moment = Some(Moment::Overtake {
                        picked: t as u32,
                        passed: u as u32,
                        older: req.arrived - at,
                    });
                }
            }
            self.slots[i] = Some(self.admit(t, req, now));
        }
    }

    /// Admit `req` of tenant `t`: its shared prefix is looked up in the
    /// cache (flagging the first miss after a hit), its own prompt cached,
    /// and the tenant charged for the input tokens by every scheduler's
    /// measure. Returns the running sequence, with the prompt left to
    /// compute.
    fn admit(&mut self, t: usize, req: Request, now: u32) -> Running {
        let config = self.config;
        self.admitted_now.push(t as u32);
        let s = &self.shapes[t];
        let hit = s.prefix > 0 && self.cache.touch(t as u64, s.prefix.into(), now);
        if s.prefix > 0 {
            if hit {
                self.last_hit = Some(now);
            } else if let (Some(at), false, None) = (self.last_hit, self.missed, &self.moment) {
                self.missed = true;
                self.moment = Some(Moment::PrefixMiss {
                    since: now - at,
                    tokens: s.prefix,
                });
            }
        }
        let private_key = self.next_key;
        self.next_key += 1;
        self.cache.touch(private_key, req.prompt.into(), now);
        let cached = if hit { s.prefix } else { 0 };
        self.prompt_tokens[t] += u64::from(req.prompt + s.prefix);
        self.cached_tokens[t] += u64::from(cached);
        self.admitted_log[t].push_back(now);
        let input = f64::from(req.prompt + s.prefix);
        // TPM counts the whole prompt when it is admitted; VTC charges
        // input tokens too (cached ones included, as the paper does).
        self.log[t].push_back((now, input));
        self.window_tokens[t] += input;
        self.vtc[t] += config.w_in * input;
        self.service[t] += config.w_in * input;
        Running {
            req,
            admitted: now,
            prefill_left: req.prompt + s.prefix - cached,
            made: 0,
            prefix_key: (s.prefix > 0).then_some(t as u64),
            private_key,
            cached: hit,
        }
    }
}

/// Tenant `t`'s key under `scheduler` (lowest goes first).
pub(super) fn key(
    scheduler: Scheduler,
    shapes: &[Shape],
    t: usize,
    window_tokens: &[f64],
    admitted: &[VecDeque<u32>],
    vtc: &[f64],
) -> f64 {
    match scheduler {
        Scheduler::Fcfs => 0.0,
        Scheduler::Rpm => admitted[t].len() as f64,
        Scheduler::Tpm => window_tokens[t],
        Scheduler::Vtc => vtc[t],
        Scheduler::Priority => {
            if shapes[t].interactive {
                0.0
            } else {
                1.0
            }
        }
    }
}

/// The tenant whose head request goes next, by `scheduler`'s key (lowest
/// wins; ties to the oldest head request, then the lowest tenant).
fn pick(
    scheduler: Scheduler,
    shapes: &[Shape],
    queues: &[VecDeque<Request>],
    window_tokens: &[f64],
    admitted: &[VecDeque<u32>],
    vtc: &[f64],
) -> Option<usize> {
    (0..queues.len())
        .filter_map(|t| {
            queues[t].front().map(|r| {
                (
                    t,
                    key(scheduler, shapes, t, window_tokens, admitted, vtc),
                    r.arrived,
                )
            })
        })
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)))
        .map(|(t, _, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::fairness::Config;

    /// Two batch sequences fill both slots; a chat request arrives. Strict
    /// priority evicts the newer one back to the head of its queue (no
    /// work lost, so no key moment); VTC evicts nothing.
    #[test]
    fn strict_priority_evicts_the_newest_batch_sequence() {
        let config = Config {
            tenants: 3,
            slots: 2,
            ..Config::default()
        };
        for scheduler in [Scheduler::Priority, Scheduler::Vtc] {
            let mut run = SchedulerLoop::new(&config, scheduler, false);
            run.fill(0);
            run.slots[1] = None;
            run.fill(5);
            let newest = run.slots[1].expect("refilled").req;
            assert_eq!(run.slots[1].map(|s| s.admitted), Some(5));
            let queued = run.queues[newest.tenant].len();
            let chat = run.request(2, 6);
            run.queues[2].push_back(chat);
            run.preempt(6);
            if scheduler == Scheduler::Vtc {
                assert!(run.slots.iter().all(Option::is_some));
                assert_eq!(run.evicted, None);
                continue;
            }
            assert!(run.slots[0].is_some() && run.slots[1].is_none());
            assert_eq!(run.queues[newest.tenant].len(), queued + 1);
            let head = run.queues[newest.tenant].front().copied();
            assert_eq!(
                head.map(|r| (r.arrived, r.prompt)),
                Some((0, newest.prompt))
            );
            assert_eq!(run.preempted[newest.tenant], 1);
            assert_eq!(run.first_preemption, Some(6));
            assert_eq!(run.evicted, Some(newest.tenant as u32));
            assert_eq!(run.moment, None);
        }
    }
}
