//! The tick loop's engine phase: every replica, in index order, steps one
//! tick, or (outside a recording) runs the whole stretch up to the next
//! arrival in one call; the engines' events are accounted as they come,
//! and the queue series is sampled.

use super::tick::TickLoop;
use super::work;
use crate::engine::{EngineEvent, Replica};
use crate::time::Tick;

impl TickLoop<'_> {
    /// Where this pass's step ends (exclusive). Outside a recording,
    /// replicas are coupled only by routing, so until the next arrival (or
    /// the pool growing) each runs all its ticks in one call; the queue
    /// series is rebuilt from the finish ticks. What comes out is what
    /// ticking through would give, in far fewer passes of the loop. (Not
    /// with closed-loop clients: a finish in the stretch would send a
    /// request into it.)
    fn stretch_end(&self) -> u64 {
        let config = self.config;
        let now = self.now;
        if now.0 >= self.skip_from && !self.arrivals.closed() {
            let mut to = self.arrivals.next_at().unwrap_or(config.max_ticks);
            if config.scale_up_at > now.0 {
                to = to.min(config.scale_up_at);
            }
            to.min(config.max_ticks).max(now.0 + 1)
        } else {
            now.0 + 1
        }
    }

    /// Step every replica for one tick or one stretch, accounting their
    /// events, and move the clock past it. Returns false when the meter
    /// stopped the run inside a stretch (the clock then stays put).
    pub(super) fn step(&mut self) -> bool {
        let now = self.now;
        let until = self.stretch_end();
        let batch = until > now.0 + 1;
        // Asked before the stretch: its answers can open the next stage.
        let draining = self.arrivals.waiting_on_answers();
        self.counts.clear();
        self.finishes.clear();
        self.idle_from.clear();
        let mut stopped = now.0 + 1;
        if batch {
            self.counts
                .extend(self.replicas.iter().map(Replica::outstanding));
        }
        for index in 0..self.replicas.len() {
            self.events.clear();
            let replica = &mut self.replicas[index];
            if batch {
                let s = replica
                    .advance(now, Tick(until), self.workload, &mut self.events)
                    .0;
                self.idle_from.push(s);
                stopped = stopped.max(s);
            } else {
                replica.tick(now, self.workload, &mut self.events);
            }
            if self.watching {
                self.events_now
                    .extend(self.events.iter().map(|&e| (index as u32, e)));
            }
            self.account(index, batch);
        }
        if batch {
            self.close_stretch(until, stopped, draining)
        } else {
            self.sampler.push(&self.replicas);
            self.now = now.next();
            true
        }
    }

    /// Account replica `index`'s events of this step: cache hits at
    /// admission, first tokens, finishes (and, in a stretch, their ticks
    /// for the queue series), and preemptions charged to the meter.
    fn account(&mut self, index: usize, batch: bool) {
        let reqs = &self.workload.requests;
        for ev in &self.events {
            match *ev {
                EngineEvent::Admitted {
                    request,
                    cached_tokens,
                } => {
                    self.cached[request as usize].get_or_insert(cached_tokens);
                }
                EngineEvent::FirstToken { request, tick } => {
                    let at = self.arrivals.arrival(request as usize);
                    self.ttft[request as usize].get_or_insert(tick.next().since(at));
                }
                EngineEvent::Finished {
                    request,
                    tick,
                    chunks,
                } => {
                    let r = &reqs[request as usize];
                    self.e2e[request as usize] =
                        Some(tick.next().since(self.arrivals.arrival(request as usize)));
                    self.finished_at[request as usize] = Some(tick.next().0);
                    self.chunks[request as usize] = chunks;
                    self.arrivals.finished(request as usize, tick);
                    self.output_done += u64::from(r.output_tokens);
                    self.completed += 1;
                    self.last_finish =
                        Some(self.last_finish.map_or(tick.0, |l: u64| l.max(tick.0)));
                    if batch {
                        self.finishes.push((tick.0, index));
                    }
                }
                EngineEvent::Preempted { request } => {
                    let blocks = reqs[request as usize].blocks.len() as f64;
                    self.meter
                        .preemption(work::PREEMPT_NS + work::BLOCK_NS * blocks);
                }
            }
        }
    }

    /// Close a stretch the replicas ran to `until` (the last of them fell
    /// idle at `stopped`): bring their speed credit to where ticking
    /// through would leave it, charge the meter for those ticks, rebuild
    /// the queue series from the finishes and move the clock to the
    /// stretch's end. Returns false when the meter stops the run.
    fn close_stretch(&mut self, until: u64, stopped: u64, draining: bool) -> bool {
        let now = self.now;
        // With no arrival left, the run ends when the last replica falls
        // idle, as it would tick by tick.
        let end = if draining && self.config.scale_up_at <= now.0 {
            stopped.min(until)
        } else {
            until
        };
        if !self.config.timing.in_ms() {
            // Ticks mode, as the tick-by-tick loop has it: every replica
            // ticks (idle ones only move their speed credit) until the whole
            // pool is idle, each of those ticks charged to the meter; then
            // the jump to the next arrival below.
            let all_idle = stopped.min(until);
            for (replica, &s) in self.replicas.iter_mut().zip(&self.idle_from) {
                replica.idle_ticks(all_idle - s);
                if end > all_idle {
                    replica.idle_for(end - all_idle);
                }
            }
            // The first of these ticks was charged at the loop's top.
            if (now.0 + 1..all_idle).any(|_| !self.meter.tick(self.tick_ns)) {
                return false;
            }
        }
        // By tick; the order within a tick does not matter.
        self.finishes.sort_unstable_by_key(|f| f.0);
        let mut t = now.0;
        for &(f, i) in &self.finishes {
            if f > t {
                self.sampler.push_counts(&self.counts, f - t);
                t = f;
            }
            self.counts[i] -= 1;
        }
        self.sampler.push_counts(&self.counts, end - t);
        self.now = Tick(end);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::routing::Config;
    use crate::labs::work::Meter;
    use crate::routing::RuleKind;
    use crate::workload::generator;

    /// A lone request on an idle pool: one stretch runs it to the end and
    /// stops the clock where the pool falls idle, with the very figures
    /// ticking through gives.
    #[test]
    fn a_stretch_ends_where_ticking_through_ends() {
        let config = Config {
            requests: 1,
            ..Config::default()
        };
        let workload = generator::generate(&config.generator(), config.seed);
        let meter = Meter::unlimited();
        let rule = RuleKind::RoundRobin;
        let run_to_idle = |stepwise: bool| {
            let mut run = TickLoop::new(&config, &workload, rule, &meter, false, stepwise);
            run.now = workload.requests[0].arrival;
            run.route();
            let mut passes = 0;
            while !run.replicas.iter().all(Replica::is_idle) {
                assert!(run.step());
                passes += 1;
            }
            (passes, run.now, run.ttft[0], run.e2e[0], run.completed)
        };
        let (passes, now, ttft, e2e, completed) = run_to_idle(false);
        let ticked = run_to_idle(true);
        assert_eq!(passes, 1, "one stretch");
        assert!(ticked.0 > 1, "tick by tick");
        assert_eq!(
            (now, ttft, e2e, completed),
            (ticked.1, ticked.2, ticked.3, ticked.4)
        );
        assert_eq!(completed, 1);
        assert!(ttft.is_some_and(|t| t > 0) && e2e > ttft);
    }
}
