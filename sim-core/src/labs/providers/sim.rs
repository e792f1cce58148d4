//! One strategy's run: the conversations' calls through the router
//! ([`crate::providers::gateway`]) to the deployments ([`super::deploy`]),
//! as events in time order, with the client's retries, the provider's
//! cache, the bill and, on request, the player's ticks.

use alloc::collections::BinaryHeap;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Reverse;

use super::cache::Lookup;
use super::config::{CacheKey, Config, Strategy};
use super::deploy::{Deploy, Refusal};
use super::record::{DepSnap, Flow, Moment, MomentKind, Recorder};
use super::workload::{Conversation, Kind};
use crate::providers::gateway::{spillover, Declared, Gate, Rules, Why, WhyKind};
use crate::rng::keyed_unit;

/// Milliseconds a provider takes before any token: its front door and queue.
pub const BASE_MS: f64 = 200.0;
/// Round trip to the first region, ms.
pub const NEAR_MS: u64 = 40;
/// Seconds a run may drain after the last conversation starts.
pub const DRAIN_S: u64 = 3600;
/// Seconds between two points of the cost meter.
pub const METER_S: u64 = 10;

/// What happened to one call, for the totals.
#[derive(Clone, Debug, Default)]
pub(super) struct Totals {
    pub requests: u32,
    pub served: u32,
    pub failed: u32,
    pub deferred: u32,
    pub budget_stops: u32,
    pub metered_cost: f64,
    pub input: u64,
    pub cached: u64,
    pub output: u64,
    /// Tokens reserved capacity would be charged for the calls admitted
    /// while conversations still start, and how many calls those were.
    pub charged: u64,
    pub in_window: u32,
    pub spilled: u32,
    pub client_429: u32,
    pub ttft: Vec<f64>,
    pub per_deploy: Vec<u32>,
    /// (non-first fan-out children, of them found the document).
    pub children: (u32, u32),
    /// (follow-up turns, of them found their history).
    pub follow: (u32, u32),
    /// (turn pairs served, of them in another region).
    pub pairs: (u32, u32),
    /// (conversations with two served turns, of them in two regions).
    pub split: (u32, u32),
    pub meter: Vec<f32>,
}

/// A call in flight through the client, router and provider.
#[derive(Clone, Debug)]
struct Call {
    conv: u32,
    k: u32,
    history: u32,
    prompt: u32,
    output: u32,
    line: bool,
    first_send: u64,
    attempts: u32,
    tried: Vec<usize>,
    force: Option<(usize, Why)>,
    spilled_from: Option<(usize, u16)>,
    refusal: Option<(usize, Refusal)>,
    served_at: Option<usize>,
    sent_at: u64,
}

/// A conversation's progress.
#[derive(Clone, Debug, Default)]
struct Live {
    history: u32,
    spent: u64,
    regions: u8,
    last_region: Option<u8>,
    last_prompt: u32,
    served: u32,
    held_back: Vec<u32>,
}

/// Events, ordered by time then by when they were scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// Send (or resend) call `i`.
    Send(u32),
    /// A refusal of call `i` reaches the router.
    Answer(u32),
    /// Call `i`'s first token.
    First(u32),
    /// Call `i`'s last token.
    Done(u32),
    /// Conversation `c`'s next turn.
    Turn(u32),
}

/// The state of one run.
pub(super) struct Run<'a> {
    /// What the run has counted so far.
    c: &'a Config,
    convs: &'a [Conversation],
    gate: Gate,
    deps: Vec<Deploy>,
    calls: Vec<Call>,
    live: Vec<Live>,
    queue: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    pub totals: Totals,
    pub rec: Option<Recorder>,
    strategy: Strategy,
}

fn declared(c: &Config) -> Vec<Declared> {
    (0..c.deployments())
        .map(|d| {
            let reserved = c.is_reserved(d);
            Declared {
                reserved,
                tpm: u64::from(if reserved { c.ptu_tpm } else { c.quota_tpm }),
                rpm: (!reserved).then_some(c.quota_rpm),
                price: if reserved {
                    0.0
                } else {
                    (c.input_price + c.output_price) / 1e6
                },
            }
        })
        .collect()
}

impl<'a> Run<'a> {
    /// A run of `strategy` over `convs`, recording the player if `record`.
    pub fn new(c: &'a Config, convs: &'a [Conversation], strategy: Strategy, record: bool) -> Self {
        let rules = Rules {
            breaker_429: c.breaker_429,
            breaker_count: c.breaker_count,
            window_ms: u64::from(c.breaker_window) * 1000,
            trip_ms: u64::from(c.trip_s) * 1000,
            retry_after: c.retry_after,
        };
        let mut run = Run {
            c,
            convs,
            gate: Gate::new(strategy, declared(c), rules),
            deps: (0..c.deployments()).map(|d| Deploy::new(c, d)).collect(),
            calls: Vec::new(),
            live: vec![Live::default(); convs.len()],
            queue: BinaryHeap::new(),
            seq: 0,
            totals: Totals {
                per_deploy: vec![0; c.deployments()],
                ..Totals::default()
            },
            rec: record.then(|| Recorder::new(c)),
            strategy,
        };
        for conv in convs {
            run.at(conv.start, Ev::Turn(conv.id));
        }
        run
    }

    fn at(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, ev)));
    }

    /// Share of capacity the incident leaves deployment `d` at `now`, and
    /// the share of its calls it fails.
    fn incident(&self, d: usize, now: u64) -> (f64, f64) {
        let c = self.c;
        let start = u64::from(c.incident_at) * 1000;
        let end = start + u64::from(c.incident_s) * 1000;
        let hit = c.incident_region > 0
            && u32::from(self.deps[d].region) + 1 == c.incident_region
            && (start..end).contains(&now);
        if hit {
            (c.incident_quota.max(1e-3), c.incident_errors)
        } else {
            (1.0, 0.0)
        }
    }

    fn rtt(&self, d: usize) -> u64 {
        NEAR_MS
            + if self.deps[d].region > 0 {
                u64::from(self.c.far_ms)
            } else {
                0
            }
    }

    /// A draw fixed by the call, its attempt and a purpose.
    fn draw(&self, i: u32, what: u64) -> f64 {
        let call = &self.calls[i as usize];
        keyed_unit(
            self.c.seed ^ what,
            u64::from(i),
            u64::from(call.attempts) << 8 | call.tried.len() as u64,
        )
    }

    /// Run to the end; the totals and recording are in `self`.
    pub fn go(&mut self) {
        let mut pruned = 0;
        let stop = u64::from(self.c.seconds) * 1000 + DRAIN_S * 1000;
        while let Some(Reverse((t, _, ev))) = self.queue.pop() {
            if t > stop {
                break;
            }
            self.meter_to(t);
            self.record_to(t);
            if t / 60_000 > pruned {
                pruned = t / 60_000;
                self.deps.iter_mut().for_each(|d| d.cache.prune(t));
            }
            match ev {
                Ev::Turn(conv) => self.turn(conv, t),
                Ev::Send(i) => self.send(i, t),
                Ev::Answer(i) => self.answer(i, t),
                Ev::First(i) => self.first(i, t),
                Ev::Done(i) => self.done(i, t),
            }
        }
        let end = self.last_meter_end().min(stop);
        self.meter_to(end);
        self.record_to(u64::MAX);
    }

    /// Close every player tick that ends by `t`.
    fn record_to(&mut self, t: u64) {
        while let Some(b) = self.rec.as_ref().and_then(|r| r.due(t)) {
            let deps = self.snaps(b);
            let cost = self.cost_at(b) as f32;
            if let Some(r) = self.rec.as_mut() {
                r.push(deps, cost);
            }
        }
    }

    fn last_meter_end(&self) -> u64 {
        (self.totals.meter.len() as u64 + 1) * METER_S * 1000
    }

    /// The bill up to `t`: metered tokens so far and reserved hours pro rata.
    pub fn cost_at(&self, t: u64) -> f64 {
        let rented = t.min(u64::from(self.c.seconds) * 1000) as f64 / 3_600_000.0;
        self.totals.metered_cost + f64::from(self.c.reserved) * self.c.ptu_hourly * rented
    }

    fn meter_to(&mut self, t: u64) {
        while (self.totals.meter.len() as u64 + 1) * METER_S * 1000 <= t {
            let at = (self.totals.meter.len() as u64 + 1) * METER_S * 1000;
            let cost = self.cost_at(at) as f32;
            self.totals.meter.push(cost);
        }
    }

    fn snaps(&mut self, t: u64) -> Vec<DepSnap> {
        (0..self.deps.len())
            .map(|d| {
                let (scale, _) = self.incident(d, t);
                DepSnap {
                    in_flight: self.deps[d].in_flight.min(u32::from(u16::MAX)) as u16,
                    fill: self.deps[d].fill(t, scale) as f32,
                    out_ms: self.gate.out_until[d]
                        .saturating_sub(t)
                        .min(u64::from(u32::MAX)) as u32,
                    served: self.totals.per_deploy[d],
                }
            })
            .collect()
    }

    /// The next turn (or the fan-out, or the batch job) of `conv`.
    fn turn(&mut self, conv: u32, t: u64) {
        let c = self.c;
        let cv = &self.convs[conv as usize];
        let live = &mut self.live[conv as usize];
        let k = live.served.min(cv.calls);
        if c.budget > 0 && live.spent >= u64::from(c.budget) {
            self.totals.budget_stops += 1;
            return;
        }
        match cv.kind {
            Kind::Batch => {
                let prompt = c.system + c.user;
                let output = cv.output(c, 0);
                self.totals.requests += 1;
                if c.demote {
                    // The batch tier: half price on input and output, no
                    // cache discount, off the real-time quotas.
                    self.totals.deferred += 1;
                    self.totals.metered_cost += 0.5
                        * (f64::from(prompt) * c.input_price + f64::from(output) * c.output_price)
                        / 1e6;
                } else {
                    self.new_call(conv, 0, c.system, prompt, output, true, t);
                }
            }
            Kind::Fanout => {
                let history = c.system + c.context;
                let first_only = c.serialize;
                for child in 0..cv.calls {
                    let output = cv.output(c, child);
                    let i =
                        self.push_call(conv, child, history, history + c.user, output, false, t);
                    self.totals.requests += 1;
                    if child > 0 && first_only {
                        self.live[conv as usize].held_back.push(i);
                    } else {
                        self.at(t, Ev::Send(i));
                    }
                }
            }
            Kind::Chat => {
                if k == 0 {
                    live.history = c.system;
                }
                let history = live.history;
                let output = cv.output(c, k);
                self.totals.requests += 1;
                self.new_call(conv, k, history, history + c.user, output, true, t);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push_call(
        &mut self,
        conv: u32,
        k: u32,
        history: u32,
        prompt: u32,
        output: u32,
        line: bool,
        t: u64,
    ) -> u32 {
        self.calls.push(Call {
            conv,
            k,
            history,
            prompt,
            output,
            line,
            first_send: t,
            attempts: 0,
            tried: Vec::new(),
            force: None,
            spilled_from: None,
            refusal: None,
            served_at: None,
            sent_at: t,
        });
        (self.calls.len() - 1) as u32
    }

    #[allow(clippy::too_many_arguments)]
    fn new_call(
        &mut self,
        conv: u32,
        k: u32,
        history: u32,
        prompt: u32,
        output: u32,
        line: bool,
        t: u64,
    ) {
        let i = self.push_call(conv, k, history, prompt, output, line, t);
        self.at(t, Ev::Send(i));
    }

    /// The router picks, the deployment admits or refuses.
    fn send(&mut self, i: u32, t: u64) {
        let u = self.draw(i, 0x11);
        let call = &self.calls[i as usize];
        let (conv, tokens) = (call.conv, u64::from(call.prompt));
        let forced = call.force;
        let tried = call.tried.clone();
        let pick = match forced {
            Some(p) => {
                self.gate.in_flight[p.0] += 1;
                Some(p)
            }
            None => self.gate.pick(t, conv, tokens, &tried, u),
        };
        self.calls[i as usize].force = None;
        self.calls[i as usize].sent_at = t;
        let Some((d, why)) = pick else {
            // Nothing in service: the gateway answers itself.
            self.flow(i, None, 503, Why::of(WhyKind::Rotation));
            self.totals.client_429 += 1;
            // No Retry-After comes with it: the client backs off.
            self.retry_later(i, t);
            return;
        };
        match self.try_admit(i, d, t) {
            Ok(()) => self.admitted(i, d, why, t),
            Err(r) => {
                self.flow(i, Some(d), r.status, why);
                let back = self.rtt(d) + if r.status >= 500 { 500 } else { 20 };
                self.calls[i as usize].refusal = Some((d, r));
                self.at(t + back, Ev::Answer(i));
            }
        }
    }

    fn try_admit(&mut self, i: u32, d: usize, t: u64) -> Result<(), Refusal> {
        let call = &self.calls[i as usize];
        if self.deps[d].reserved && call.prompt > self.c.ptu_context {
            return Err(Refusal {
                status: 400,
                retry_after: None,
            });
        }
        let (scale, errors) = self.incident(d, t);
        if errors > 0.0 && self.draw(i, 0x22) < errors {
            return Err(Refusal {
                status: 500,
                retry_after: None,
            });
        }
        let tokens = f64::from(call.prompt + call.output);
        self.deps[d].admit(t, tokens, scale)
    }

    /// A refusal reached the router: spill, fail over, retry or give up.
    fn answer(&mut self, i: u32, t: u64) {
        let Some((d, r)) = self.calls[i as usize].refusal.take() else {
            return;
        };
        let out = self.gate.failed(d, r.status, r.retry_after, t);
        if out > 0 {
            self.moment(Moment {
                kind: MomentKind::Trip,
                from: d as u8,
                to: d as u8,
                figure: out.min(u64::from(u32::MAX)) as u32,
                conv: 0,
            });
        }
        let s = self.strategy;
        if s == Strategy::Spillover && self.deps[d].reserved && spillover::spills(r.status) {
            let regions = |x: usize| self.c.region(x);
            if let Some(to) = spillover::spill_to(&self.gate, d, &regions) {
                if self.calls[i as usize].spilled_from.is_none() {
                    self.calls[i as usize].spilled_from = Some((d, r.status));
                    self.calls[i as usize].force = Some((to, Why::spill(d as u8, r.status)));
                    self.moment(Moment {
                        kind: MomentKind::Spill,
                        from: d as u8,
                        to: to as u8,
                        figure: r.status.into(),
                        conv: 0,
                    });
                    self.at(t, Ev::Send(i));
                    return;
                }
            }
        }
        // What the router got back (for spillover, the reserved
        // deployment's own answer when the spill failed too).
        let status = match self.calls[i as usize].spilled_from.take() {
            Some((_, s)) => s,
            None => r.status,
        };
        let call = &mut self.calls[i as usize];
        call.attempts += 1;
        call.tried.push(d);
        if call.attempts > self.c.retries {
            if status == 429 {
                self.seen_429(d);
            }
            self.give_up(i);
            return;
        }
        // LiteLLM fails over to a deployment this call has not tried; an
        // APIM pool's retry policy (Microsoft's sample: at once, through
        // the pool again) goes wherever the pool sends it, which skips only
        // tripped backends. Either retries at once while it has somewhere
        // to go; otherwise the answer reaches the client, which waits.
        let tried = &self.calls[i as usize].tried;
        let open = |x: usize| self.gate.open(x, t);
        let at_once = (s.litellm() && (0..self.deps.len()).any(|x| open(x) && !tried.contains(&x)))
            || (s.pool() && (0..self.deps.len()).any(open));
        if at_once {
            self.at(t, Ev::Send(i));
            return;
        }
        if status == 429 {
            self.seen_429(d);
        }
        let wait = self.backoff(i, r.retry_after);
        self.calls[i as usize].tried.clear();
        self.at(t + wait, Ev::Send(i));
    }

    /// A 429 from deployment `d` reached the client.
    fn seen_429(&mut self, d: usize) {
        self.totals.client_429 += 1;
        self.moment(Moment {
            kind: MomentKind::Refused,
            from: d as u8,
            to: d as u8,
            figure: 429,
            conv: 0,
        });
    }

    /// The client's wait before a retry: Retry-After when it is honoured
    /// (and said), else 0.5 s doubling to at most 8 s, less up to a quarter
    /// of jitter (the OpenAI SDK's and LiteLLM's schedule).
    fn backoff(&self, i: u32, retry_after: Option<u64>) -> u64 {
        if let (true, Some(ra)) = (self.c.retry_after, retry_after) {
            return ra.min(60_000);
        }
        let n = self.calls[i as usize].attempts.saturating_sub(1).min(4);
        let base = (500u64 << n).min(8000) as f64;
        (base * (1.0 - 0.25 * self.draw(i, 0x33))) as u64
    }

    fn retry_later(&mut self, i: u32, t: u64) {
        let call = &mut self.calls[i as usize];
        call.attempts += 1;
        call.tried.clear();
        if call.attempts > self.c.retries {
            self.give_up(i);
            return;
        }
        let w = self.backoff(i, None);
        self.at(t + w, Ev::Send(i));
    }

    fn give_up(&mut self, i: u32) {
        self.totals.failed += 1;
        self.release_held(i, None);
    }

    /// A deployment took the call: the cache, the bill, the clock.
    fn admitted(&mut self, i: u32, d: usize, why: Why, t: u64) {
        let c = self.c;
        let call = self.calls[i as usize].clone();
        let key = self.cache_key(call.conv);
        let look = Lookup {
            key,
            conv: call.conv,
            system: c.system,
            shared: call.history,
            prompt: call.prompt,
            line: call.line,
        };
        let u = self.draw(i, 0x44);
        let visit = self.deps[d].cache.visit(&look, t, u);
        let cached = visit.cached;
        let uncached = call.prompt - cached;
        let compute = (f64::from(uncached) + 0.1 * f64::from(cached)) / c.prefill_tps * 1000.0;
        let jitter = 0.75 + 0.5 * self.draw(i, 0x55);
        let ttft = self.rtt(d) + ((BASE_MS + compute) * jitter) as u64;
        let stream = (f64::from(call.output) / c.decode_tps * 1000.0) as u64;
        self.deps[d].cache.write(&look, &visit, t, t + ttft);
        self.deps[d].charge(t, f64::from(uncached + call.output));
        self.deps[d].in_flight += 1;
        if !self.deps[d].reserved {
            let write = if call.prompt >= super::cache::MIN_HIT {
                c.write_x
            } else {
                1.0
            };
            self.totals.metered_cost += (f64::from(uncached) * c.input_price * write
                + f64::from(cached) * c.input_price * c.read_x
                + f64::from(call.output) * c.output_price)
                / 1e6;
        }
        self.totals.input += u64::from(call.prompt);
        self.totals.cached += u64::from(cached);
        self.totals.output += u64::from(call.output);
        if t < u64::from(c.seconds) * 1000 {
            self.totals.charged += u64::from(uncached + call.output);
            self.totals.in_window += 1;
        }
        self.totals.per_deploy[d] += 1;
        if self.c.reserved > 0 && !self.deps[d].reserved {
            self.totals.spilled += 1;
        }
        self.account(&call, d, cached);
        self.calls[i as usize].served_at = Some(d);
        self.flow_served(i, d, why, cached);
        self.at(t + ttft, Ev::First(i));
        self.at(t + ttft + stream, Ev::Done(i));
    }

    /// Per conversation: regions, history hits, fan-out hits.
    fn account(&mut self, call: &Call, d: usize, cached: u32) {
        let region = self.deps[d].region;
        let live = &mut self.live[call.conv as usize];
        live.spent += u64::from(call.prompt + call.output);
        let kind = self.convs[call.conv as usize].kind;
        // Found the latest of what this conversation wrote: the previous
        // turn's whole prompt, or the fan-out's document.
        let latest = match kind {
            Kind::Fanout => call.history,
            _ => live.last_prompt,
        };
        let found_prior = cached >= super::cache::granular(latest) && cached > 0;
        match kind {
            Kind::Chat if call.k > 0 => {
                self.totals.follow.0 += 1;
                if found_prior {
                    self.totals.follow.1 += 1;
                }
                if let Some(prev) = live.last_region {
                    self.totals.pairs.0 += 1;
                    if prev != region {
                        self.totals.pairs.1 += 1;
                        if !found_prior {
                            let lost = call.history.saturating_sub(cached);
                            let m = Moment {
                                kind: MomentKind::RegionMiss,
                                from: prev,
                                to: region,
                                figure: lost,
                                conv: call.conv,
                            };
                            self.moment(m);
                        }
                    }
                }
            }
            Kind::Fanout if call.k > 0 => {
                self.totals.children.0 += 1;
                if found_prior {
                    self.totals.children.1 += 1;
                }
            }
            _ => {}
        }
        let live = &mut self.live[call.conv as usize];
        let new_region = live.regions != 0 && live.regions & (1 << region) == 0;
        live.regions |= 1 << region;
        live.last_region = Some(region);
        if kind == Kind::Chat {
            live.history = call.prompt + call.output;
            live.last_prompt = call.prompt;
            if call.k == 1 {
                self.totals.split.0 += 1;
            }
            // Counted once, on the turn that first reaches a second region.
            if new_region {
                self.totals.split.1 += 1;
            }
        }
    }

    fn cache_key(&self, conv: u32) -> u64 {
        // The provider hashes about the first 256 tokens: a system prompt at
        // least that long makes them the same for every conversation.
        let first = if self.c.system >= 256 {
            0x5157_3E00
        } else {
            u64::from(conv) << 20
        };
        match self.c.cache_key {
            CacheKey::None => first,
            CacheKey::Session => first ^ (u64::from(conv) + 1) << 32,
            CacheKey::Sharded => first ^ (u64::from(conv % self.c.shards.max(1)) + 1) << 32,
        }
    }

    fn first(&mut self, i: u32, t: u64) {
        let call = &self.calls[i as usize];
        let Some(d) = call.served_at else { return };
        let ttft = t - call.sent_at;
        let tokens = u64::from(call.prompt + call.output);
        if self.convs[call.conv as usize].kind != Kind::Batch {
            self.totals.ttft.push((t - call.first_send) as f64);
        }
        self.gate.started(d, ttft, tokens, t);
        self.release_held(i, Some(t));
    }

    /// A serialised fan-out's other children go once the first one's first
    /// token is out (or once it has failed).
    fn release_held(&mut self, i: u32, t: Option<u64>) {
        let call = &self.calls[i as usize];
        if call.k != 0 || self.convs[call.conv as usize].kind != Kind::Fanout {
            return;
        }
        let held = core::mem::take(&mut self.live[call.conv as usize].held_back);
        let at = t.unwrap_or(call.sent_at);
        for j in held {
            self.calls[j as usize].first_send = at;
            self.at(at, Ev::Send(j));
        }
    }

    fn done(&mut self, i: u32, t: u64) {
        let call = self.calls[i as usize].clone();
        let Some(d) = call.served_at else { return };
        self.gate.finished(d);
        self.deps[d].in_flight = self.deps[d].in_flight.saturating_sub(1);
        self.totals.served += 1;
        let cv = &self.convs[call.conv as usize];
        let live = &mut self.live[call.conv as usize];
        live.served += 1;
        if cv.kind == Kind::Chat && call.k + 1 < cv.calls {
            let think = cv.think(self.c, call.k);
            self.at(t + think, Ev::Turn(call.conv));
        }
    }

    fn moment(&mut self, m: Moment) {
        if let Some(r) = self.rec.as_mut() {
            r.moment(m);
        }
    }

    fn flow(&mut self, i: u32, d: Option<usize>, status: u16, why: Why) {
        if let Some(r) = self.rec.as_mut() {
            let call = &self.calls[i as usize];
            r.flow(Flow {
                conv: call.conv,
                deployment: d.map_or(u8::MAX, |d| d as u8),
                status,
                cached: 0,
                prompt: call.prompt,
                why,
            });
        }
    }

    fn flow_served(&mut self, i: u32, d: usize, why: Why, cached: u32) {
        if let Some(r) = self.rec.as_mut() {
            let call = &self.calls[i as usize];
            r.flow(Flow {
                conv: call.conv,
                deployment: d as u8,
                status: 200,
                cached,
                prompt: call.prompt,
                why,
            });
        }
    }
}

/// Tokens one call charges a reserved deployment on average (prompt not
/// read from the cache, plus output), from a run of spillover with the
/// reserved capacity unbounded, as long as a sweep point.
pub(super) fn probe_tokens(c: &Config) -> f64 {
    let mut p = c.clone();
    p.ptu_tpm = u32::MAX / 2;
    let convs = super::workload::conversations(&p);
    let mut r = Run::new(&p, &convs, Strategy::Spillover, false);
    r.go();
    let t = &r.totals;
    t.charged as f64 / f64::from(t.in_window.max(1))
}
