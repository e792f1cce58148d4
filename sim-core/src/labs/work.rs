//! How much work a run is, known before it runs, so that no setting in range
//! can freeze a page or a terminal: every lab estimates its run's cost from
//! its configuration ([`super::Lab::work`]); a run estimated above
//! [`WORK_LIMIT_NS`] is refused with one line that names what drives the cost
//! and, for each numeric parameter that drives it, the largest value that
//! fits (found by searching the parameter's range with the same estimate).
//!
//! Estimates are in nanoseconds of a native release build on the project's
//! reference machine (two cores), from cost models each lab calibrates
//! against measured runs (`lblab bench` prints the slowest configuration of
//! the corner sweep, estimate beside the time it took). The page's wasm runs
//! about two to four times slower, so a run at the limit takes about a second
//! natively and a few in the page's worker.

use alloc::format;
use alloc::string::String;

/// The most work a run may be, in estimated native nanoseconds (one second).
pub const WORK_LIMIT_NS: f64 = 1.0e9;

/// A run's estimated cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Work {
    /// Estimated native run time, in nanoseconds.
    pub ns: f64,
    /// What the work is, in a phrase ("10 rules × 200,000 requests").
    pub what: String,
    /// The parameters that drive it, most effective first; numeric ones get
    /// the largest value that fits in a refusal (the smallest, for a key
    /// written `+key`: raising it lowers the work), switches a "turn off".
    pub drivers: &'static [&'static str],
}

impl Work {
    /// Work too small to matter (every setting in range is quick).
    pub fn light(what: &str) -> Work {
        Work {
            ns: 0.0,
            what: String::from(what),
            drivers: &[],
        }
    }

    /// Whether the run fits.
    pub fn fits(&self) -> bool {
        self.ns.is_finite() && self.ns <= WORK_LIMIT_NS
    }
}

pub use crate::params::thousands;

/// The refusal's words.
pub fn refusal(work: &Work, fixes: &[String]) -> String {
    let times = work.ns / WORK_LIMIT_NS;
    let mut s = format!(
        "this run is too big to finish in seconds: {} is about {} times the work a run may take",
        work.what,
        if times >= 10.0 {
            thousands(libm::round(times) as u64)
        } else {
            format!("{:.1}", times)
        }
    );
    if !fixes.is_empty() {
        s.push_str("; to fit, set ");
        s.push_str(&fixes.join(", or "));
    }
    s
}

/// How far past the limit a metered run may go before it is stopped.
pub const METER_LIMIT: f64 = 1.25;

/// A run's allowance for the work its estimate cannot foresee, spent as the
/// run goes. The Routing Lab's engines can thrash (a KV pool too small for
/// the outputs preempts and recomputes the same sequences again and again),
/// and how often is not knowable from the settings without running them: the
/// tick loop charges each tick and each preemption here, and stops the run
/// once the allowance is gone, so even a badly estimated run ends within
/// about [`METER_LIMIT`] times [`WORK_LIMIT_NS`].
#[derive(Debug)]
pub struct Meter {
    allowance: f64,
    left: core::cell::Cell<f64>,
    ticks: core::cell::Cell<u64>,
    preemptions: core::cell::Cell<u64>,
    /// Nanoseconds charged for preemptions (the rest went to ticks).
    preempt_ns: core::cell::Cell<f64>,
}

impl Meter {
    /// An allowance of `ns` estimated nanoseconds.
    pub fn new(ns: f64) -> Meter {
        Meter {
            allowance: ns,
            left: core::cell::Cell::new(ns),
            ticks: core::cell::Cell::new(0),
            preemptions: core::cell::Cell::new(0),
            preempt_ns: core::cell::Cell::new(0.0),
        }
    }

    /// What a run whose foreseeable part is estimated at `fixed_ns` may
    /// spend on the rest: up to [`METER_LIMIT`] times the limit in all, and a
    /// quarter of the limit at least.
    pub fn after(fixed_ns: f64) -> Meter {
        Meter::new((METER_LIMIT * WORK_LIMIT_NS - fixed_ns).max(0.25 * WORK_LIMIT_NS))
    }

    /// No limit (library calls and tests, which choose their own sizes).
    pub fn unlimited() -> Meter {
        Meter::new(f64::INFINITY)
    }

    /// Charge one tick costing `ns`; false once the allowance is spent.
    #[inline]
    pub fn tick(&self, ns: f64) -> bool {
        self.ticks.set(self.ticks.get() + 1);
        self.charge(ns)
    }

    /// Charge one preemption costing `ns`.
    #[inline]
    pub fn preemption(&self, ns: f64) {
        self.preemptions.set(self.preemptions.get() + 1);
        self.preempt_ns.set(self.preempt_ns.get() + ns);
        self.charge(ns);
    }

    fn charge(&self, ns: f64) -> bool {
        let left = self.left.get() - ns;
        self.left.set(left);
        left >= 0.0
    }

    /// Whether the allowance ran out.
    pub fn spent(&self) -> bool {
        self.left.get() < 0.0
    }

    /// Why the run stopped, with what to change: `drivers` are the settings
    /// that make ticks and preemptions (tick-bound runs) and the KV settings
    /// (thrashing ones).
    pub fn refusal(&self) -> String {
        let (ticks, pre) = (self.ticks.get(), self.preemptions.get());
        let spent = self.allowance - self.left.get();
        if self.preempt_ns.get() > spent / 2.0 {
            format!(
                "this run is too big to finish in seconds: the engines preempted and recomputed {} sequences in {} ticks as their KV filled, and it was stopped; raise kv-blocks or kv-block-tokens, or lower short-output-mean, long-output-mean, slots or requests",
                thousands(pre),
                thousands(ticks)
            )
        } else {
            format!(
                "this run is too big to finish in seconds: it was stopped after {} ticks with requests still waiting; lower requests, short-output-mean or long-output-mean, or raise replicas, slots or prefill-budget",
                thousands(ticks)
            )
        }
    }
}
