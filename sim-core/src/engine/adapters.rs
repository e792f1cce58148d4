//! LoRA adapters in the engine (article §6.3): a replica holds a few
//! adapters in accelerator slots, keeps more in host memory, and must load
//! the one a request names before that request can run.
//!
//! The model follows vLLM's multi-LoRA serving:
//!
//! - **Slots.** [`AdapterSpec::slots`] adapters live in accelerator memory
//!   (vLLM's `max_loras`); the one used longest ago makes room for a newcomer
//!   (`LRUCacheWorkerLoRAManager`). The same number caps the distinct
//!   adapters one batch may hold: vLLM's scheduler skips a waiting request
//!   whose adapter would be one too many and looks at the next one
//!   (`vllm/v1/core/sched/scheduler.py`, the `max_loras` check), so an
//!   adapter request does not block the queue behind it the way a request
//!   too large for free KV does.
//! - **Host cache.** [`AdapterSpec::host`] adapters stay in host memory
//!   (vLLM's `max_cpu_loras`, LRU). Loading from there takes
//!   [`AdapterSpec::load_host_ticks`]; an adapter in neither place comes from
//!   disk or a remote store in [`AdapterSpec::load_cold_ticks`].
//! - **A load stalls the replica.** vLLM activates a batch's adapters
//!   before the forward pass, in the step itself, so every sequence on the
//!   replica waits while one loads: the step that admits an adapter not in a
//!   slot spends its time loading, and the batch runs after.
//! - **Step factor.** A batch of several adapters runs one low-rank kernel
//!   over segments (Punica's SGMV, Chen et al., MLSys 2024), slower than a
//!   batch of one adapter by a few percent per extra adapter in their
//!   measurements. [`AdapterSpec::step_permille`] adds that much of a step
//!   for every distinct adapter beyond the first; the lab's default is a
//!   stated choice of that order, not a measured constant.
//!
//! Everything here is off unless [`AdapterSpec::slots`] is above 0, and
//! adapter 0 is the base model, which needs no slot.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The adapter settings of every replica of a run (off when `slots` is 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterSpec {
    /// Adapters held in accelerator memory at once, which is also the most
    /// distinct adapters one batch may hold (vLLM's `max_loras`).
    pub slots: u32,
    /// Adapters kept in host memory (vLLM's `max_cpu_loras`; 0: none).
    pub host: u32,
    /// Ticks to move an adapter from host memory into a slot.
    pub load_host_ticks: u32,
    /// Ticks to fetch an adapter in neither place (disk or a remote store).
    pub load_cold_ticks: u32,
    /// Extra step time for each distinct adapter beyond the first in a
    /// batch, in thousandths of a step.
    pub step_permille: u32,
}

impl AdapterSpec {
    /// Whether the engine models adapters at all.
    pub fn on(&self) -> bool {
        self.slots > 0
    }
}

/// Counters of one replica's adapter traffic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdapterStats {
    /// Loads from host memory.
    pub host_loads: u32,
    /// Loads from disk or a remote store (cold).
    pub cold_loads: u32,
    /// Adapters pushed out of a slot to make room (swaps).
    pub evictions: u32,
    /// Ticks spent loading.
    pub load_ticks: u64,
    /// Times a waiting request was passed over because its adapter would
    /// have been one too many in the batch.
    pub skipped: u32,
}

/// Where an adapter is on one replica, as a router may read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdapterView {
    /// Adapters in accelerator slots, least recently used first.
    pub resident: Vec<u16>,
    /// Adapters of sequences in the running batch (vLLM's
    /// `running_lora_adapters`), without repeats.
    pub running: Vec<u16>,
    /// Adapters of queued requests (`waiting_lora_adapters`), without repeats.
    pub waiting: Vec<u16>,
    /// Slots in all (`max_lora`).
    pub slots: u32,
    /// The adapter being loaded now, if the replica is stalled on a load.
    pub loading: Option<u16>,
}

/// One replica's adapters: what sits where, and the load under way.
#[derive(Clone, Debug, Default)]
pub struct Adapters {
    spec: AdapterSpec,
    /// Accelerator slots, least recently used first.
    gpu: Vec<u16>,
    /// Host memory, least recently used first.
    host: Vec<u16>,
    /// Ticks of loading (and of mixed-batch overhead) charged and not yet
    /// served.
    stall: u32,
    /// Mixed-batch overhead below a whole step, in thousandths of a step.
    extra: u32,
    /// The adapter the stall loads.
    loading: Option<u16>,
    stats: AdapterStats,
}

impl Adapters {
    /// An empty replica's adapters.
    pub fn new(spec: AdapterSpec) -> Adapters {
        Adapters {
            spec,
            ..Adapters::default()
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> AdapterStats {
        self.stats
    }

    /// Adapters in slots, least recently used first.
    pub fn resident(&self) -> &[u16] {
        &self.gpu
    }

    /// The adapter being loaded, while the replica waits for it.
    pub fn loading(&self) -> Option<u16> {
        self.loading
    }

    /// Whether a request on `adapter` may join a batch already holding
    /// the distinct adapters `batch` (the `max_loras` rule).
    pub fn fits(&self, adapter: u16, batch: &[u16]) -> bool {
        adapter == 0 || batch.contains(&adapter) || (batch.len() as u32) < self.spec.slots
    }

    /// Bring `adapter` into a slot for a request about to be admitted,
    /// evicting the least recently used adapter the batch `batch` does not
    /// hold; charges the load, if any, as a stall.
    pub fn activate(&mut self, adapter: u16, batch: &[u16]) {
        if adapter == 0 {
            return;
        }
        if let Some(at) = self.gpu.iter().position(|&a| a == adapter) {
            let a = self.gpu.remove(at);
            self.gpu.push(a);
            return;
        }
        if self.gpu.len() as u32 >= self.spec.slots {
            if let Some(at) = self.gpu.iter().position(|a| !batch.contains(a)) {
                self.gpu.remove(at);
                self.stats.evictions += 1;
            }
        }
        self.gpu.push(adapter);
        let ticks = if let Some(at) = self.host.iter().position(|&a| a == adapter) {
            self.host.remove(at);
            self.stats.host_loads += 1;
            self.spec.load_host_ticks
        } else {
            self.stats.cold_loads += 1;
            self.spec.load_cold_ticks
        };
        // The host cache keeps what it loaded, most recent last.
        if self.spec.host > 0 {
            if self.host.len() as u32 >= self.spec.host {
                self.host.remove(0);
            }
            self.host.push(adapter);
        }
        self.stats.load_ticks += u64::from(ticks);
        self.stall += ticks;
        if ticks > 0 {
            self.loading = Some(adapter);
        }
    }

    /// Take one tick of the load under way: whether the replica spends
    /// this step loading instead of running its batch.
    pub fn serve_stall(&mut self) -> bool {
        if self.stall == 0 {
            self.loading = None;
            return false;
        }
        self.stall -= 1;
        true
    }

    /// Ticks of loading still to serve.
    pub fn stall(&self) -> u32 {
        self.stall
    }

    /// Take every tick of stall charged (milliseconds mode adds them to
    /// the next iteration's length).
    pub fn take_stall(&mut self) -> u32 {
        self.loading = None;
        core::mem::take(&mut self.stall)
    }

    /// Charge a step run with `distinct` adapters in its batch: its extra
    /// time builds up in thousandths and becomes a stalled step each time
    /// it reaches a whole one.
    pub fn charge_mixed(&mut self, distinct: usize) {
        self.extra += self.extra_permille(distinct);
        while self.extra >= 1000 {
            self.extra -= 1000;
            self.stall += 1;
        }
    }

    /// Count a waiting request passed over for the `max_loras` rule.
    pub fn skipped(&mut self) {
        self.stats.skipped += 1;
    }

    /// The extra part of a step for a batch of `distinct` adapters, in
    /// thousandths of a step.
    pub fn extra_permille(&self, distinct: usize) -> u32 {
        self.spec.step_permille * (distinct.saturating_sub(1) as u32)
    }

    /// The slots in all.
    pub fn slots(&self) -> u32 {
        self.spec.slots
    }
}

/// The distinct non-base adapters among `adapters`, in first-seen order.
pub fn distinct(adapters: impl Iterator<Item = u16>) -> Vec<u16> {
    let mut out: Vec<u16> = Vec::new();
    for a in adapters {
        if a != 0 && !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

impl super::Replica {
    /// Admission with adapters: first come first served as without them,
    /// except that a request whose adapter would be one too many for the
    /// batch is passed over for the next one (vLLM's `max_loras` check);
    /// a request whose KV does not fit still blocks the queue.
    pub(super) fn admit_adapters(
        &mut self,
        workload: &crate::workload::Workload,
        events: &mut Vec<super::EngineEvent>,
    ) {
        let adapter_of = |i: u32| workload.requests[i as usize].adapter;
        let mut batch = distinct(self.running.iter().map(|s| adapter_of(s.request)));
        let mut at = 0;
        while (self.running.len() as u32) < self.spec.slots {
            let Some(&index) = self.waiting.get(at) else {
                break;
            };
            let adapter = adapter_of(index);
            let Some(a) = self.adapters.as_deref_mut() else {
                return;
            };
            if !a.fits(adapter, &batch) {
                a.skipped();
                at += 1;
                continue;
            }
            if !self.try_admit(at, index, workload, events) {
                break;
            }
            if let Some(a) = self.adapters.as_deref_mut() {
                a.activate(adapter, &batch);
            }
            if adapter != 0 && !batch.contains(&adapter) {
                batch.push(adapter);
            }
        }
    }

    /// With adapters, after admission: whether this step goes to loading
    /// an adapter (or to the extra time a mixed batch costs) instead of
    /// running the batch. Charges the mixed batch's extra time as it runs.
    pub(super) fn adapter_stall(&mut self, workload: &crate::workload::Workload) -> bool {
        let Some(a) = self.adapters.as_deref_mut() else {
            return false;
        };
        if a.serve_stall() {
            self.stats.busy_ticks += 1;
            return true;
        }
        let n = self.batch_adapters(workload);
        if let Some(a) = self.adapters.as_deref_mut() {
            a.charge_mixed(n);
        }
        false
    }

    /// Milliseconds mode: the µs an iteration of `us` gains from adapters:
    /// any load charged at admission, and a mixed batch's extra share.
    pub(super) fn adapter_us(&mut self, workload: &crate::workload::Workload, us: u64) -> u64 {
        let n = self.batch_adapters(workload);
        let tick_us = self.tick_us;
        let Some(a) = self.adapters.as_deref_mut() else {
            return 0;
        };
        u64::from(a.take_stall()) * tick_us + us * u64::from(a.extra_permille(n)) / 1000
    }

    /// Distinct adapters in the running batch.
    fn batch_adapters(&self, workload: &crate::workload::Workload) -> usize {
        distinct(
            self.running
                .iter()
                .map(|s| workload.requests[s.request as usize].adapter),
        )
        .len()
    }

    /// What a router may read of this replica's adapters (`None` without
    /// them): what sits in its slots, what its batch and queue run on.
    pub fn adapter_view(&self, workload: &crate::workload::Workload) -> Option<AdapterView> {
        let a = self.adapters.as_deref()?;
        let adapter_of = |i: u32| workload.requests[i as usize].adapter;
        Some(AdapterView {
            resident: a.resident().to_vec(),
            running: distinct(self.running.iter().map(|s| adapter_of(s.request))),
            waiting: distinct(self.waiting.iter().map(|&i| adapter_of(i))),
            slots: a.slots(),
            loading: a.loading(),
        })
    }
}
