//! When each request reaches the gateway. Open loop (the default), at its
//! time in the trace. With `clients = N`, N clients send the trace's
//! requests in order: a request leaves at its trace time or, if every client
//! is waiting on an answer then, as soon as one is free again, a think time
//! after its last response. With a high rate that is a closed loop of N
//! users; with a think time of 0 it is a load generator's concurrency cap
//! (`vllm bench serve --max-concurrency N` sends its Poisson arrivals this
//! way, as KubeAI's prefix-cache benchmark does with 1,600). TTFT counts from
//! when a request is sent.
//!
//! With load stages (`stages`), a stage's first request waits until every
//! request of the earlier stages has its answer, then leaves a pause after
//! the last answer (a second, or a tick), the stage's requests keeping their
//! gaps: inference-perf's `run_stage` waits for a stage's requests before it
//! starts the next. Under overload each stage then begins on an empty pool
//! instead of on the backlog of the ones before.
//!
//! Think times are drawn once per request from their own stream before the
//! run, so every rule's clients pause alike; only the finishes differ.

use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::Config;
use crate::rng::{stream, Rng};
use crate::time::Tick;
use crate::workload::Workload;

/// The release schedule of one rule's run.
pub(super) struct Arrivals {
    /// When each request arrived: its trace time until it is sent, then
    /// the tick it was sent.
    at: Vec<Tick>,
    /// Whether clients gate the requests.
    closed: bool,
    /// The pause after each request's response, in ticks (closed only).
    think: Vec<u64>,
    /// The next request in trace order.
    next: usize,
    /// When each client is free again, earliest first (closed only; a
    /// client waiting on an answer is not in the heap).
    free: BinaryHeap<Reverse<u64>>,
    /// The first request of each stage after the first, in order.
    barriers: Vec<usize>,
    /// How many of `barriers` have been passed.
    passed: usize,
    /// Requests sent and not yet answered.
    in_flight: usize,
    /// The pause from a stage's last answer to the next stage, in ticks.
    pause: u64,
    /// The latest answer so far (the tick after its last token): a
    /// batched run reports replicas' finishes one replica after another,
    /// not in time order.
    latest: u64,
}

impl Arrivals {
    /// The schedule `config` asks for over `workload`'s requests.
    pub fn new(config: &Config, workload: &Workload) -> Arrivals {
        let n = workload.requests.len();
        let clients = (config.clients as usize).min(n);
        let mut rng = Rng::new(config.seed, stream::THINK);
        let think = if clients > 0 && config.think > 0.0 {
            (0..n)
                .map(|_| libm::floor(rng.exponential(config.think)) as u64)
                .collect()
        } else {
            alloc::vec![0; if clients > 0 { n } else { 0 }]
        };
        Arrivals {
            at: workload.requests.iter().map(|r| r.arrival).collect(),
            closed: clients > 0,
            think,
            next: 0,
            free: (0..clients).map(|_| Reverse(0)).collect(),
            barriers: config.stage_starts(n),
            passed: 0,
            in_flight: 0,
            pause: if config.timing.in_ms() { 1000 } else { 1 },
            latest: 0,
        }
    }

    /// Whether the next request waits on the answers of an earlier stage.
    fn held(&self) -> bool {
        self.barriers.get(self.passed) == Some(&self.next)
    }

    /// The request due at `now` that comes next, if any (it stays due until
    /// [`Arrivals::take`]).
    pub fn due(&self, now: Tick) -> Option<usize> {
        let arrived = self.next < self.at.len() && self.at[self.next] <= now && !self.held();
        let client = !self.closed || self.free.peek().is_some_and(|Reverse(t)| *t <= now.0);
        (arrived && client).then_some(self.next)
    }

    /// The request [`Arrivals::due`] named was sent at `now` and routed.
    pub fn take(&mut self, now: Tick) {
        if self.closed {
            self.free.pop();
            self.at[self.next] = now;
        }
        self.next += 1;
        self.in_flight += 1;
    }

    /// Request `k`'s last token came out at tick `tick`: its client is free
    /// a think time after the response.
    pub fn finished(&mut self, k: usize, tick: Tick) {
        if self.closed {
            self.free.push(Reverse(tick.next().0 + self.think[k]));
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        self.latest = self.latest.max(tick.next().0);
        if self.in_flight == 0 && self.held() {
            // The stage's last answer: the next stage starts a pause later.
            // Every later request moves with it (later stages move again
            // when their turn comes), so the gaps stay the trace's.
            let first = self.next;
            let origin = self.at[first - 1].0;
            let start = self.latest + self.pause;
            for t in &mut self.at[first..] {
                *t = Tick(start + t.0.saturating_sub(origin));
            }
            self.passed += 1;
        }
    }

    /// Whether no request can be sent before an answer comes: every one
    /// has been, or the next waits on its stage's predecessors.
    pub fn waiting_on_answers(&self) -> bool {
        self.all_routed() || self.held()
    }

    /// When the next request is due, if that is known now (with every
    /// client waiting on an answer it is not).
    pub fn next_at(&self) -> Option<u64> {
        if self.held() {
            return None;
        }
        let at = self.at.get(self.next)?.0;
        if self.closed {
            self.free.peek().map(|Reverse(t)| at.max(*t))
        } else {
            Some(at)
        }
    }

    /// Whether every request has been sent.
    pub fn all_routed(&self) -> bool {
        self.next == self.at.len()
    }

    /// Whether clients gate the requests (a finish can make one due).
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// When request `k` arrived (its trace time until it is sent).
    pub fn arrival(&self, k: usize) -> Tick {
        self.at[k]
    }

    /// When each request arrived, in ticks: its trace time, or when it was
    /// sent if clients or a stage held it.
    pub fn times(&self) -> Vec<u64> {
        self.at.iter().map(|t| t.0).collect()
    }

    /// The latest arrival.
    pub fn last(&self) -> u64 {
        self.at.iter().map(|t| t.0).max().unwrap_or(0)
    }
}
