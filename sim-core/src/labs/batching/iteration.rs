//! One mode's play of a trace, iteration by iteration, in named phases
//! (the semantics are in `mod.rs`): arrivals join the queue, free slots
//! admit from it, the mode plans which slots work, the slots work, and the
//! iteration is flagged and recorded. Each phase is a method of
//! [`BatchLoop`], which holds what the play carries from iteration to
//! iteration, so a phase can be read, and tested, on its own.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::config::{BatchRequest, Mode};
use super::sim::{BatchEvent, BatchMoment, IterationDetail, ModeRun, RequestStats, SlotState};

/// A sequence in a slot.
#[derive(Clone, Copy)]
pub(super) struct Seq {
    /// Its request's index in the trace.
    pub(super) req: usize,
    /// Prefill chunks still to compute.
    pub(super) prefill_left: u32,
    /// Output tokens emitted.
    pub(super) emitted: u32,
    /// Its place in admission order (1 for the first admitted).
    pub(super) admitted: u32,
}

/// What one mode's play carries from iteration to iteration.
pub(super) struct BatchLoop<'a> {
    pub(super) trace: &'a [BatchRequest],
    pub(super) chunk_budget: u32,
    pub(super) prefill_first: bool,
    pub(super) mode: Mode,
    pub(super) slot: Vec<Option<Seq>>,
    /// Arrived requests not yet admitted, in arrival order.
    pub(super) waiting: VecDeque<usize>,
    /// The next request of the trace to arrive.
    pub(super) next: usize,
    /// Requests admitted so far.
    pub(super) admitted: u32,
    /// Per request: iteration of its first and last token, and of the end
    /// of its prefill.
    pub(super) first: Vec<Option<u32>>,
    pub(super) last: Vec<u32>,
    pub(super) prefilled: Vec<u32>,
    /// Labels of finished requests, in finishing order.
    pub(super) completed: Vec<String>,
    pub(super) detail: Vec<IterationDetail>,
    /// Occupied slot-iterations, and iterations with no output.
    pub(super) occupied: u32,
    pub(super) zero: u32,
    /// The current iteration (0 before the first).
    pub(super) t: u32,
    /// The previous iteration's condition (flagged or not), for onsets.
    pub(super) previous: Option<BatchMoment>,
}

impl<'a> BatchLoop<'a> {
    /// The play before its first iteration: every slot free, no arrival.
    pub(super) fn new(
        trace: &'a [BatchRequest],
        slots: usize,
        chunk_budget: u32,
        prefill_first: bool,
        mode: Mode,
    ) -> Self {
        let n = trace.len();
        BatchLoop {
            trace,
            chunk_budget,
            prefill_first,
            mode,
            slot: vec![None; slots],
            waiting: VecDeque::new(),
            next: 0,
            admitted: 0,
            first: vec![None; n],
            last: vec![0; n],
            prefilled: vec![0; n],
            completed: Vec::new(),
            detail: Vec::new(),
            occupied: 0,
            zero: 0,
            t: 0,
            previous: None,
        }
    }

    /// Iterations the play may take: every request served alone, one after
    /// another, plus arrivals (a generous bound that only a bug reaches).
    pub(super) fn bound(&self) -> u32 {
        self.trace
            .iter()
            .map(|r| r.arrival + r.prefill + r.output)
            .sum::<u32>()
            + self.trace.len() as u32
            + 2
    }

    /// The next iteration, phase by phase.
    pub(super) fn iteration(&mut self) {
        self.t += 1;
        self.arrive();
        let mut events: Vec<BatchEvent> = Vec::new();
        self.admit(&mut events);
        let work = self.plan();
        let (states, out) = self.work(&work, &mut events);
        self.zero += u32::from(out == 0);
        let moment = self.flag(&states, out);
        let t = self.t;
        let trace = self.trace;
        self.detail.push(IterationDetail {
            iteration: t,
            slots: states,
            output_tokens: out,
            zero_output: out == 0,
            waiting: self
                .waiting
                .iter()
                .map(|&r| trace[r].label.clone())
                .collect(),
            completed: self.completed.clone(),
            events,
            moment,
        });
    }

    /// Requests that arrived before this iteration join the queue.
    fn arrive(&mut self) {
        while self.next < self.trace.len() && self.trace[self.next].arrival < self.t {
            self.waiting.push_back(self.next);
            self.next += 1;
        }
    }

    /// Free slots, lowest index first, take waiting requests first come
    /// first served; static batching admits only into an empty engine.
    fn admit(&mut self, events: &mut Vec<BatchEvent>) {
        let all_free = self.slot.iter().all(Option::is_none);
        if self.mode == Mode::Static && !all_free {
            return;
        }
        for (idx, s) in self.slot.iter_mut().enumerate() {
            if s.is_none() {
                if let Some(req) = self.waiting.pop_front() {
                    self.admitted += 1;
                    events.push(BatchEvent::Admitted {
                        label: self.trace[req].label.clone(),
                        slot: idx as u32,
                    });
                    *s = Some(Seq {
                        req,
                        prefill_left: self.trace[req].prefill.max(1),
                        emitted: 0,
                        admitted: self.admitted,
                    });
                }
            }
        }
    }

    /// Which slots work this iteration. Static and continuous batching: an
    /// iteration with any prefill is prefill-only. Chunked prefill: the
    /// budget's units go to decoders and prefills (in admission order), in
    /// the configured priority, one each while units remain.
    fn plan(&self) -> Vec<bool> {
        let mut work: Vec<bool> = vec![false; self.slot.len()];
        match self.mode {
            Mode::Static | Mode::Continuous => {
                let any_prefill = self.slot.iter().flatten().any(|s| s.prefill_left > 0);
                for (i, s) in self.slot.iter().enumerate() {
                    if let Some(s) = s {
                        work[i] = (s.prefill_left > 0) == any_prefill;
                    }
                }
            }
            Mode::Chunked => {
                let mut units = self.chunk_budget;
                let by_admission = |prefilling: bool| {
                    let mut v: Vec<(u32, usize)> = self
                        .slot
                        .iter()
                        .enumerate()
                        .filter_map(|(i, s)| {
                            s.filter(|s| (s.prefill_left > 0) == prefilling)
                                .map(|s| (s.admitted, i))
                        })
                        .collect();
                    v.sort();
                    v.into_iter().map(|p| p.1).collect::<Vec<usize>>()
                };
                let (pre, dec) = (by_admission(true), by_admission(false));
                let (first, second) = if self.prefill_first {
                    (pre, dec)
                } else {
                    (dec, pre)
                };
                for i in first.into_iter().chain(second) {
                    if units == 0 {
                        break;
                    }
                    work[i] = true;
                    units -= 1;
                }
            }
        }
        work
    }

    /// The slots work as planned: a working prefill computes one chunk, a
    /// working decoder emits one token (freeing its slot after its last);
    /// the rest stall. Returns each slot's state and the tokens emitted.
    fn work(&mut self, work: &[bool], events: &mut Vec<BatchEvent>) -> (Vec<SlotState>, u32) {
        let t = self.t;
        let trace = self.trace;
        let mut states: Vec<SlotState> = vec![SlotState::Idle; self.slot.len()];
        let mut out = 0u32;
        for (i, s) in self.slot.iter_mut().enumerate() {
            let Some(seq) = s else { continue };
            self.occupied += 1;
            let label = trace[seq.req].label.clone();
            if !work[i] {
                states[i] = SlotState::Stalled { label };
            } else if seq.prefill_left > 0 {
                seq.prefill_left -= 1;
                if seq.prefill_left == 0 {
                    self.prefilled[seq.req] = t;
                    events.push(BatchEvent::PrefillDone {
                        label: label.clone(),
                    });
                }
                states[i] = SlotState::Prefill { label };
            } else {
                seq.emitted += 1;
                out += 1;
                if self.first[seq.req].is_none() {
                    events.push(BatchEvent::FirstToken {
                        label: label.clone(),
                    });
                }
                self.first[seq.req].get_or_insert(t);
                self.last[seq.req] = t;
                states[i] = SlotState::Decode { label };
                if seq.emitted >= trace[seq.req].output.max(1) {
                    events.push(BatchEvent::Finished {
                        label: trace[seq.req].label.clone(),
                    });
                    self.completed.push(trace[seq.req].label.clone());
                    *s = None;
                }
            }
        }
        (states, out)
    }

    /// The iteration's condition (slots idle while requests wait, or no
    /// token from a busy engine), flagged where a stretch of it starts,
    /// not every iteration it lasts.
    fn flag(&mut self, states: &[SlotState], out: u32) -> Option<BatchMoment> {
        let idle = states.iter().filter(|s| **s == SlotState::Idle).count() as u32;
        let now = if idle > 0 && !self.waiting.is_empty() {
            Some(BatchMoment::IdleWhileWaiting {
                idle,
                waiting: self.waiting.len() as u32,
            })
        } else if out == 0 && idle < states.len() as u32 {
            Some(BatchMoment::ZeroOutput)
        } else {
            None
        };
        let continues = matches!((&now, &self.previous), (Some(a), Some(b))
            if core::mem::discriminant(a) == core::mem::discriminant(b));
        self.previous = now;
        if continues {
            None
        } else {
            now
        }
    }

    /// The mode's figures once the play is over.
    pub(super) fn finish(self) -> ModeRun {
        let t = self.t;
        let slots = self.slot.len();
        let requests: Vec<RequestStats> = self
            .trace
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let f = self.first[i].unwrap_or(0);
                let last = self.last[i];
                RequestStats {
                    label: r.label.clone(),
                    ttft: f.saturating_sub(r.arrival),
                    mean_gap: Some(
                        f64::from(last.saturating_sub(self.prefilled[i]))
                            / f64::from(r.output.max(1)),
                    ),
                    inter_token_gap: (r.output > 1)
                        .then(|| f64::from(last.saturating_sub(f)) / f64::from(r.output - 1)),
                    finished: last,
                }
            })
            .collect();
        let gaps: Vec<f64> = requests.iter().filter_map(|r| r.mean_gap).collect();
        ModeRun {
            mode: self.mode,
            iterations: t,
            zero_output_iterations: self.zero,
            slot_occupancy: if t == 0 {
                0.0
            } else {
                f64::from(self.occupied) / (slots as f64 * f64::from(t))
            },
            occupied_slot_iterations: self.occupied,
            mean_gap: if gaps.is_empty() {
                0.0
            } else {
                gaps.iter().sum::<f64>() / gaps.len() as f64
            },
            requests,
            iterations_detail: self.detail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(label: &str, arrival: u32) -> BatchRequest {
        BatchRequest {
            label: String::from(label),
            arrival,
            prefill: 2,
            output: 3,
        }
    }

    fn seq(req: usize, prefill_left: u32, admitted: u32) -> Option<Seq> {
        Some(Seq {
            req,
            prefill_left,
            emitted: 0,
            admitted,
        })
    }

    /// Two decoders and a prefill, a budget of two units: decode first
    /// gives both decoders a unit, prefill first gives the prefill one and
    /// then the earlier-admitted decoder the other. Continuous batching
    /// runs the prefill alone.
    #[test]
    fn the_plan_spends_the_budget_by_mode_and_priority() {
        let trace = [request("A", 0), request("B", 0), request("C", 0)];
        let planned = |mode: Mode, prefill_first: bool| {
            let mut play = BatchLoop::new(&trace, 3, 2, prefill_first, mode);
            play.slot = vec![seq(0, 0, 2), seq(1, 1, 1), seq(2, 0, 3)];
            play.plan()
        };
        assert_eq!(planned(Mode::Chunked, false), [true, false, true]);
        assert_eq!(planned(Mode::Chunked, true), [true, true, false]);
        assert_eq!(planned(Mode::Continuous, false), [false, true, false]);
    }

    /// Static batching admits only into an empty engine; continuous
    /// batching refills a free slot at once, with the lowest index first.
    #[test]
    fn static_batching_waits_for_the_whole_batch_to_drain() {
        // D is the sequence already running (it arrives after the others
        // only so that it is not queued again here).
        let trace = [
            request("A", 0),
            request("B", 0),
            request("C", 1),
            request("D", 5),
        ];
        for mode in [Mode::Static, Mode::Continuous] {
            let mut play = BatchLoop::new(&trace, 2, 2, false, mode);
            play.t = 2;
            play.arrive();
            play.slot = vec![None, seq(3, 0, 1)];
            let mut events = Vec::new();
            play.admit(&mut events);
            let admitted: Vec<Option<usize>> = play.slot.iter().map(|s| s.map(|s| s.req)).collect();
            if mode == Mode::Static {
                assert_eq!(admitted, [None, Some(3)]);
                assert!(events.is_empty());
                assert_eq!(play.waiting.len(), 3);
            } else {
                assert_eq!(admitted, [Some(0), Some(3)]);
                assert_eq!(
                    events,
                    [BatchEvent::Admitted {
                        label: String::from("A"),
                        slot: 0
                    }]
                );
                assert_eq!(play.waiting, [1, 2]);
            }
        }
    }
}
