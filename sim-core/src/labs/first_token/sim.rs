//! The first-token lab's loop, in steps of [`STEP_MS`]. Within a step the
//! order is fixed: attempts decided last step (retries, resumes) and the
//! turns that are due go to a replica each, requests past their hedge time
//! send a duplicate, then every replica in index order admits waiting
//! attempts into free slots (looking up its cache), prefills them first come
//! first served within its budget, and decodes one token per `tpot` ms for
//! each attempt past prefill (hidden reasoning tokens first, then the
//! visible answer). The first visible token commits the request: its other
//! attempts are cancelled, and from then on a failure is one the user sees.

use alloc::collections::{BinaryHeap, VecDeque};
use alloc::vec::Vec;
use core::cmp::Reverse;

use serde::{Deserialize, Serialize};

use super::config::{Config, HedgeUntil, Route};
use super::plan::{self, Conversation, NEW_TOKENS};
use super::player::{Moment, Recorder, Then, FRAME_MS};
use super::route;
use super::Recovery;
use crate::stats::percentile_sorted;

/// Milliseconds of one step.
pub const STEP_MS: u64 = 10;

/// Seconds the run may go on after conversations stop starting.
pub const DRAIN_S: u64 = 900;

/// Why an attempt was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Why {
    /// The request's first attempt.
    First,
    /// A failure before the first visible token, sent again elsewhere.
    Retry,
    /// A duplicate sent while the first had shown nothing.
    Hedge,
    /// After a mid-stream failure: the prompt and the text already shown,
    /// asked to go on.
    Resume,
}

/// One attempt at a request on one replica.
#[derive(Clone, Debug)]
pub(super) struct Attempt {
    pub req: u32,
    pub replica: u32,
    /// Why it was sent.
    pub why: Why,
    /// Where in the request's tokens (hidden, then visible) it starts: 0,
    /// or for a resume the request's hidden tokens and the text shown.
    pub base: u32,
    /// Tokens of its prompt (a resume's includes the answer so far).
    pub prompt: u32,
    /// Hidden tokens it reasons before answering (none for a resume).
    pub hidden: u32,
    /// Visible tokens it owes: the whole answer, or a resume's rest.
    pub visible: u32,
    /// Visible tokens already shown before it began (a resume's).
    pub shown_before: u32,
    /// Tokens produced so far (hidden, then visible).
    pub produced: u32,
    /// Prompt tokens still to prefill (set at admission).
    pub prefill_left: u32,
    /// Fraction of a token earned and not yet produced.
    pub credit: f64,
    /// Fails once it has produced this many tokens (see [`plan::failure`]).
    pub fail_at: Option<u32>,
    /// Whether it was admitted into a slot.
    pub admitted: bool,
    /// Whether it ended (finished, failed or cancelled).
    pub gone: bool,
}

impl Attempt {
    /// Hidden and visible tokens together.
    fn total(&self) -> u32 {
        self.hidden + self.visible
    }

    /// How far it has got, in its request's tokens.
    pub fn at(&self) -> u32 {
        self.base + self.produced
    }
}

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Fate {
    /// Still going when the run stopped.
    Open,
    /// Answered in full.
    Done,
    /// Failed before any visible token, with no attempt left: the user sees
    /// an error.
    Error,
    /// Failed after the user had seen part of the answer.
    Broken,
}

/// One turn of a conversation as the run sends it.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub conv: u32,
    pub turn: u32,
    pub arrival: u64,
    pub effort: u8,
    pub hidden: u32,
    pub visible: u32,
    pub prompt: u32,
    /// When the first visible token reached the user.
    pub committed: Option<u64>,
    /// Visible tokens shown so far.
    pub shown: u32,
    pub fate: Fate,
    /// Attempts made so far.
    pub tries: u32,
    /// Attempts in flight.
    pub live: Vec<u32>,
    /// Replicas it was sent to.
    pub used: Vec<u32>,
    pub hedged: bool,
    /// When to hedge if nothing visible came.
    pub hedge_at: u64,
    /// Failures it met before its first visible token.
    pub early_failures: u32,
    /// Whether it was resumed after a mid-stream failure.
    pub resumed: bool,
    /// Attempt failures it met, before or after its first visible token.
    pub failures: u32,
    /// When it ended (answered, error or broken).
    pub ended: Option<u64>,
}

/// What a strategy's run adds up to; [`super::RecoveryRun`] is built from it.
#[derive(Clone, Debug, Default)]
pub(super) struct Tallies {
    pub ttfvt: Vec<f64>,
    pub interactive: Vec<f64>,
    pub requests: u32,
    pub done: u32,
    pub errors: u32,
    pub broken: u32,
    pub resumed: u32,
    pub recovered: u32,
    pub failures_before: u32,
    pub failures_after: u32,
    pub hedges: u32,
    pub retries: u32,
    /// Tokens decoded by attempts whose work was thrown away (cancelled
    /// losers, failed attempts).
    pub wasted_tokens: u64,
    /// Tokens decoded by hedge losers, cancelled at the winner's first
    /// visible token.
    pub hedge_tokens: u64,
    /// Tokens decoded in all.
    pub tokens: u64,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
}

/// A replica's queue, batch and cache.
#[derive(Clone, Debug, Default)]
pub(super) struct Replica {
    pub waiting: VecDeque<u32>,
    pub running: Vec<u32>,
    /// (conversation, effort, prefix tokens, last use), least recent first
    /// out once full.
    pub cache: Vec<(u32, u8, u32, u64)>,
}

/// The whole state of one strategy's run.
pub(super) struct World<'a> {
    pub c: &'a Config,
    pub recovery: Recovery,
    pub convs: &'a [Conversation],
    pub now: u64,
    pub requests: Vec<Request>,
    pub attempts: Vec<Attempt>,
    pub replicas: Vec<Replica>,
    /// Per conversation: the replica its last answer came from.
    pub home: Vec<Option<u32>>,
    /// Per conversation: its prompt so far (the next turn's before its new
    /// message).
    pub context: Vec<u32>,
    /// Turns due: (ms, conversation, turn).
    pub due: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// Attempts to send at the start of the next step.
    pub pending: Vec<(u32, Why)>,
    /// Requests that may still hedge.
    pub watch: Vec<u32>,
    /// Rotating start for ties, so no replica is everyone's first choice.
    pub turn_of: u32,
    pub t: Tallies,
    /// The player's recording, on the run that makes one.
    pub rec: Option<Recorder>,
}

impl<'a> World<'a> {
    /// A fresh run of `recovery` over `convs`.
    pub fn new(c: &'a Config, recovery: Recovery, convs: &'a [Conversation]) -> World<'a> {
        let mut due = BinaryHeap::new();
        for (i, cv) in convs.iter().enumerate() {
            due.push(Reverse((cv.start_ms, i as u32, 0)));
        }
        World {
            c,
            recovery,
            convs,
            now: 0,
            requests: Vec::new(),
            attempts: Vec::new(),
            replicas: (0..c.replicas).map(|_| Replica::default()).collect(),
            home: alloc::vec![None; convs.len()],
            context: convs.iter().map(|_| c.prompt).collect(),
            due,
            pending: Vec::new(),
            watch: Vec::new(),
            turn_of: 0,
            t: Tallies::default(),
            rec: None,
        }
    }

    /// Run until every conversation is over or the drain runs out.
    pub fn run(&mut self) {
        let stop = (u64::from(self.c.seconds) + DRAIN_S) * 1000;
        while self.now < stop {
            if self.due.is_empty() && self.pending.is_empty() && self.idle() {
                break;
            }
            self.step();
            self.now += STEP_MS;
            if self.now % FRAME_MS == 0 {
                if let Some(mut rec) = self.rec.take() {
                    rec.frame(self);
                    self.rec = Some(rec);
                }
            }
        }
    }

    /// Nothing queued or running anywhere.
    fn idle(&self) -> bool {
        self.replicas
            .iter()
            .all(|r| r.waiting.is_empty() && r.running.is_empty())
    }

    /// One step: dispatches, hedges, then every replica.
    fn step(&mut self) {
        for (req, why) in core::mem::take(&mut self.pending) {
            self.send(req, why);
        }
        while let Some(&Reverse((at, conv, turn))) = self.due.peek() {
            if at > self.now {
                break;
            }
            self.due.pop();
            let req = self.open(conv, turn);
            self.send(req, Why::First);
        }
        self.hedge();
        for r in 0..self.replicas.len() {
            self.admit(r);
            self.prefill(r);
            self.decode(r);
        }
    }

    /// Turn `turn` of conversation `conv` becomes a request.
    fn open(&mut self, conv: u32, turn: u32) -> u32 {
        let plan = self.convs[conv as usize].turns[turn as usize];
        let effort = plan.effort;
        let id = self.requests.len() as u32;
        self.requests.push(Request {
            conv,
            turn,
            arrival: self.now,
            effort,
            hidden: self.c.hidden(effort),
            visible: plan.visible,
            prompt: self.context[conv as usize],
            committed: None,
            shown: 0,
            fate: Fate::Open,
            tries: 0,
            live: Vec::new(),
            used: Vec::new(),
            hedged: false,
            hedge_at: u64::MAX,
            early_failures: 0,
            resumed: false,
            failures: 0,
            ended: None,
        });
        self.t.requests += 1;
        if let Some(rec) = self.rec.as_mut() {
            rec.arrived(id);
        }
        if matches!(self.recovery, Recovery::Hedge | Recovery::Resume) {
            let r = &self.requests[id as usize];
            let expect = match self.c.hedge_until {
                HedgeUntil::FirstToken => route::expected_first_visible(self.c, r),
                HedgeUntil::End => route::expected_answer(self.c, r),
            };
            self.requests[id as usize].hedge_at =
                self.now + libm::ceil(expect * self.c.hedge_after) as u64;
            self.watch.push(id);
        }
        id
    }

    /// Send an attempt of `req` for `why` to the replica the route picks.
    fn send(&mut self, req: u32, why: Why) {
        let r = &self.requests[req as usize];
        if r.fate != Fate::Open || r.tries >= self.c.attempts {
            return;
        }
        let replica = route::pick(self, req);
        let r = &mut self.requests[req as usize];
        let (prompt, hidden, visible, shown_before) = if why == Why::Resume {
            (r.prompt + r.shown, 0, r.visible - r.shown, r.shown)
        } else {
            (r.prompt, r.hidden, r.visible, 0)
        };
        let base = if why == Why::Resume {
            r.hidden + r.shown
        } else {
            0
        };
        let fail_at = plan::failure(self.c, u64::from(req), r.tries, replica, hidden + visible);
        r.tries += 1;
        if !r.used.contains(&replica) {
            r.used.push(replica);
        }
        let id = self.attempts.len() as u32;
        r.live.push(id);
        if let (Why::Hedge, Some(rec)) = (why, self.rec.as_mut()) {
            rec.moment(Moment::Hedged {
                req,
                replica,
                waited_ms: self.now - r.arrival,
                shown: r.shown,
            });
        }
        match why {
            Why::Hedge => self.t.hedges += 1,
            Why::Retry => self.t.retries += 1,
            Why::Resume => r.resumed = true,
            Why::First => {}
        }
        self.attempts.push(Attempt {
            req,
            replica,
            why,
            base,
            prompt,
            hidden,
            visible,
            shown_before,
            produced: 0,
            prefill_left: 0,
            credit: 0.0,
            fail_at,
            admitted: false,
            gone: false,
        });
        self.replicas[replica as usize].waiting.push_back(id);
    }

    /// Requests whose hedge time passed send a duplicate: with nothing shown
    /// yet, or (hedging to the end) with the answer not finished.
    fn hedge(&mut self) {
        let now = self.now;
        let to_end = self.c.hedge_until == HedgeUntil::End;
        let mut keep = Vec::new();
        for req in core::mem::take(&mut self.watch) {
            let r = &self.requests[req as usize];
            if r.fate != Fate::Open || (r.committed.is_some() && !to_end) || r.hedged {
                continue;
            }
            if now >= r.hedge_at && r.live.len() == 1 && r.tries < self.c.attempts {
                self.requests[req as usize].hedged = true;
                self.send(req, Why::Hedge);
            } else {
                keep.push(req);
            }
        }
        self.watch = keep;
    }

    /// Replica `r` fills its free slots from its queue, looking each prompt
    /// up in its cache.
    fn admit(&mut self, r: usize) {
        while self.replicas[r].running.len() < self.c.slots as usize {
            let Some(a) = self.replicas[r].waiting.pop_front() else {
                break;
            };
            let (conv, effort) = {
                let q = &self.requests[self.attempts[a as usize].req as usize];
                (q.conv, self.effort_key(q.effort))
            };
            let now = self.now;
            let prompt = self.attempts[a as usize].prompt;
            let cache = &mut self.replicas[r].cache;
            let cached = cache
                .iter_mut()
                .find(|e| e.0 == conv && e.1 == effort)
                .map_or(0, |e| {
                    e.3 = now;
                    e.2.min(prompt)
                });
            self.t.prompt_tokens += u64::from(prompt);
            self.t.cached_tokens += u64::from(cached);
            let at = &mut self.attempts[a as usize];
            at.admitted = true;
            at.prefill_left = prompt - cached;
            self.replicas[r].running.push(a);
        }
    }

    /// The cache key's effort: the effort is rendered into the prompt of a
    /// reasoning model, so it is part of the prefix; a plain model has none.
    fn effort_key(&self, effort: u8) -> u8 {
        if self.c.reasoning {
            effort
        } else {
            0
        }
    }

    /// Replica `r` prefills its admitted attempts first come first served.
    fn prefill(&mut self, r: usize) {
        let mut budget = (self.c.prefill * STEP_MS as f64 / 1000.0) as u32;
        let running = self.replicas[r].running.clone();
        for a in running {
            if budget == 0 {
                break;
            }
            let at = &mut self.attempts[a as usize];
            let take = at.prefill_left.min(budget);
            at.prefill_left -= take;
            budget -= take;
        }
    }

    /// Replica `r` decodes every attempt past prefill; what ends leaves.
    fn decode(&mut self, r: usize) {
        let pace = STEP_MS as f64 / (self.c.tpot * if r == 1 { self.c.slow } else { 1.0 });
        let running = self.replicas[r].running.clone();
        for a in running {
            let at = &self.attempts[a as usize];
            if at.gone || at.prefill_left > 0 {
                continue;
            }
            if at.fail_at == Some(0) && at.produced == 0 {
                self.fail(a);
                continue;
            }
            self.attempts[a as usize].credit += pace;
            while self.attempts[a as usize].credit >= 1.0 && !self.attempts[a as usize].gone {
                self.attempts[a as usize].credit -= 1.0;
                self.token(a);
            }
        }
        let attempts = &self.attempts;
        self.replicas[r]
            .running
            .retain(|&a| !attempts[a as usize].gone);
    }

    /// Attempt `a` produces one token.
    fn token(&mut self, a: u32) {
        let now = self.now + STEP_MS;
        let at = &mut self.attempts[a as usize];
        at.produced += 1;
        self.t.tokens += 1;
        if at.fail_at == Some(at.produced) {
            self.fail(a);
            return;
        }
        if at.produced <= at.hidden {
            return;
        }
        let (req, shown) = (at.req, at.shown_before + at.produced - at.hidden);
        let done = at.produced >= at.total();
        let r = &mut self.requests[req as usize];
        r.shown = r.shown.max(shown);
        if r.committed.is_none() {
            r.committed = Some(now);
            let wait = (now - r.arrival) as f64;
            self.t.ttfvt.push(wait);
            if r.effort == 0 || !self.c.reasoning {
                self.t.interactive.push(wait);
            }
            if r.early_failures > 0 {
                self.t.recovered += 1;
            }
            let won = self.attempts[a as usize].why == Why::Hedge;
            if let (true, Some(rec)) = (won, self.rec.as_mut()) {
                let wasted = r
                    .live
                    .iter()
                    .filter(|&&x| x != a)
                    .map(|&x| self.attempts[x as usize].produced)
                    .sum();
                let replica = self.attempts[a as usize].replica;
                rec.moment(Moment::HedgeWon {
                    req,
                    replica,
                    wasted,
                });
            }
            // The race is won: every other attempt is cancelled, its work
            // thrown away (hedging to the end, they decode on as backups).
            if self.c.hedge_until == HedgeUntil::FirstToken {
                self.cancel_others(req, a);
            }
        }
        if done {
            self.cancel_others(req, a);
            self.finish(a);
        }
    }

    /// Cancel every attempt of `req` but `a`: the losers of a hedge, whose
    /// tokens were decoded for nothing.
    fn cancel_others(&mut self, req: u32, a: u32) {
        let losers: Vec<u32> = self.requests[req as usize]
            .live
            .iter()
            .copied()
            .filter(|&x| x != a)
            .collect();
        for l in losers {
            let wasted = u64::from(self.attempts[l as usize].produced);
            self.t.hedge_tokens += wasted;
            self.end(l, wasted);
        }
    }

    /// Attempt `a` leaves its replica; `wasted` tokens of it were for nothing.
    fn end(&mut self, a: u32, wasted: u64) {
        let at = &mut self.attempts[a as usize];
        at.gone = true;
        self.t.wasted_tokens += wasted;
        let (req, replica) = (at.req, at.replica as usize);
        self.requests[req as usize].live.retain(|&x| x != a);
        // A queued attempt leaves the queue.
        self.replicas[replica].waiting.retain(|&x| x != a);
        // A running one leaves its slot now (a replica later in the step
        // must not see it busy; one decoding now drops it at its end too).
        if self.attempts[a as usize].admitted {
            self.replicas[replica].running.retain(|&x| x != a);
        }
    }

    /// Attempt `a` delivered the rest of the answer.
    fn finish(&mut self, a: u32) {
        let (req, replica) = {
            let at = &self.attempts[a as usize];
            (at.req, at.replica)
        };
        self.end(a, 0);
        let now = self.now + STEP_MS;
        let c = self.c;
        let r = &mut self.requests[req as usize];
        r.fate = Fate::Done;
        r.ended = Some(now);
        self.t.done += 1;
        let (conv, turn, effort) = (r.conv, r.turn, r.effort);
        let held = r.prompt + r.visible;
        self.context[conv as usize] = held + NEW_TOKENS;
        self.home[conv as usize] = Some(replica);
        // The replica now holds this conversation's prefix (the prompt and
        // its answer) under this turn's effort.
        let key = self.effort_key(effort);
        let cache = &mut self.replicas[replica as usize].cache;
        if let Some(e) = cache.iter_mut().find(|e| e.0 == conv && e.1 == key) {
            e.2 = held;
            e.3 = now;
        } else if c.cache > 0 {
            if cache.len() >= c.cache as usize {
                let oldest = (0..cache.len()).min_by_key(|&i| cache[i].3).unwrap_or(0);
                cache.swap_remove(oldest);
            }
            cache.push((conv, key, held, now));
        }
        let turns = &self.convs[conv as usize].turns;
        if let Some(next) = turns.get(turn as usize + 1) {
            self.due
                .push(Reverse((now + next.think_ms, conv, turn + 1)));
        }
    }

    /// Attempt `a` failed.
    fn fail(&mut self, a: u32) {
        let (req, produced, at, hidden) = {
            let at = &self.attempts[a as usize];
            (at.req, at.produced, at.at(), at.hidden)
        };
        self.end(a, u64::from(produced));
        let shown = self.requests[req as usize].shown;
        let then = self.after_failure(req);
        if let (Some(then), Some(rec)) = (then, self.rec.as_mut()) {
            rec.scar(req, at);
            rec.moment(Moment::Failed {
                req,
                replica: self.attempts[a as usize].replica,
                hidden: produced.min(hidden),
                shown,
                then,
            });
        }
    }

    /// What a failure of one of `req`'s attempts leads to (`None`: the
    /// request had already ended).
    fn after_failure(&mut self, req: u32) -> Option<Then> {
        let (recovery, now) = (self.recovery, self.now + STEP_MS);
        let r = &mut self.requests[req as usize];
        if r.fate != Fate::Open {
            return None;
        }
        r.failures += 1;
        let left = recovery != Recovery::None && r.tries < self.c.attempts;
        if r.committed.is_none() {
            self.t.failures_before += 1;
            r.early_failures += 1;
            if !r.live.is_empty() {
                // The hedge twin is still running: nothing to do.
                return Some(Then::Twin);
            }
            if left {
                self.pending.push((req, Why::Retry));
                return Some(Then::Retry);
            }
            // The conversation ends here: no answer to go on from.
            r.fate = Fate::Error;
            r.ended = Some(now);
            self.t.errors += 1;
            return Some(Then::Error);
        }
        self.t.failures_after += 1;
        if !r.live.is_empty() {
            // Hedging to the end: the other copy decodes on, and the user
            // reads it from where the text stands.
            return Some(Then::Twin);
        }
        if recovery == Recovery::Resume && r.tries < self.c.attempts {
            self.t.resumed += u32::from(!r.resumed);
            self.pending.push((req, Why::Resume));
            return Some(Then::Resume);
        }
        r.fate = Fate::Broken;
        r.ended = Some(now);
        self.t.broken += 1;
        Some(Then::Broken)
    }

    /// The run's requests still open at its end.
    pub fn open_requests(&self) -> u32 {
        self.requests
            .iter()
            .filter(|r| r.fate == Fate::Open)
            .count() as u32
    }

    /// Whether the route sends `req` to the high-effort pool.
    pub(super) fn high(&self, req: u32) -> bool {
        self.c.route == Route::Pool && self.requests[req as usize].effort == 2 && self.c.reasoning
    }
}

/// Percentile `p` of `xs` (sorted here), 0 when empty.
pub(super) fn pct(xs: &mut [f64], p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    percentile_sorted(xs, p)
}
