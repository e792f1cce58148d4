//! The Routing Lab's run as the simulation worker makes it (the registry's
//! erased entry point, the page's default rules recorded for the player),
//! timed from its start to the end of the simulation as the page's
//! `lblab_last_compute_ms` is (modes 0–2), as the worker's whole call with
//! the outcome's encoding (mode 3), and the page's reading of it (mode 4).

use core::cell::Cell;
use sim_core::labs::entry::RunRequest;

extern "C" {
    /// `performance.now()`, passed in by run.mjs.
    fn now() -> f64;
}

/// Milliseconds of one run at the Routing Lab's defaults. `mode` 0: ticks,
/// nothing recorded; 1: ticks with the player's two rules recorded (the
/// page as it opens); 2: as 1 in milliseconds mode (H100, Llama 3.1 8B);
/// 3: as 1, but the whole of the worker's call: the simulation, the
/// outcome's encoding and its drop; 4: reading mode 1's bytes back into
/// the outcome and dropping it, as the page does on each reply.
#[no_mangle]
pub extern "C" fn bench(mode: u32) -> f64 {
    if mode == 4 {
        return decode();
    }
    let record: &[&str] = if mode >= 1 {
        &["least-outstanding", "round-robin"]
    } else {
        &[]
    };
    let pairs: &[(&str, &str)] = if mode == 2 {
        &[("gpu", "h100"), ("model", "llama-3.1-8b")]
    } else {
        &[]
    };
    let lab = sim_core::labs::runner("routing").expect("the Routing Lab is registered");
    // SAFETY: an import without arguments or preconditions.
    let clock = || unsafe { now() };
    let end = Cell::new(f64::NAN);
    let computed = || end.set(clock());
    let request = RunRequest {
        pairs,
        only: &[],
        trace: None,
        record,
        progress: None,
        computed: Some(&computed),
    };
    let start = clock();
    let out = (lab.run)(&request);
    assert!(out.is_ok(), "the run at the defaults succeeds");
    drop(out);
    if mode == 3 {
        return clock() - start;
    }
    end.get() - start
}

/// Milliseconds to decode (and drop) the outcome of mode 1's run.
fn decode() -> f64 {
    let lab = sim_core::labs::runner("routing").expect("the Routing Lab is registered");
    let request = RunRequest {
        pairs: &[],
        only: &[],
        trace: None,
        record: &["least-outstanding", "round-robin"],
        progress: None,
        computed: None,
    };
    let bytes = (lab.run)(&request).expect("the run at the defaults succeeds").bytes;
    // SAFETY: an import without arguments or preconditions.
    let start = unsafe { now() };
    let outcome = sim_core::labs::decode::<sim_core::labs::routing::Outcome>(&bytes);
    assert!(outcome.is_ok(), "the bytes read back");
    drop(outcome);
    // SAFETY: as above.
    unsafe { now() - start }
}
