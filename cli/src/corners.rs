//! The corner sweep of `lblab bench`: every lab at the corners of its
//! parameter space ([`sim_core::labs::corners`]), each run once and timed
//! beside its work estimate, so the slowest configuration the bound lets
//! through is printed with the estimate that let it through.

use std::time::Instant;

use sim_core::labs::corners::corners;
use sim_core::labs::{RunError, RunRequest, LABS, TEXTS};

/// What the sweep found.
pub struct Sweep {
    /// Corners that ran.
    pub ran: usize,
    /// Corners refused as too much work before they ran.
    pub refused: usize,
    /// Corners stopped as they ran, their work meter spent.
    pub stopped: usize,
    /// Corners refused as a combination the lab cannot use.
    pub unusable: usize,
    /// The slowest corner that ran: the command, its time and its estimate.
    pub slowest: (String, f64, f64),
    /// The slowest refusal before running (it must come at once).
    pub slowest_refusal: (String, f64),
    /// The slowest run stopped by its meter.
    pub slowest_stop: (String, f64, f64),
}

/// Run every corner of every lab once.
pub fn sweep() -> Sweep {
    let mut s = Sweep {
        ran: 0,
        refused: 0,
        stopped: 0,
        unusable: 0,
        slowest: (String::new(), 0.0, 0.0),
        slowest_refusal: (String::new(), 0.0),
        slowest_stop: (String::new(), 0.0, 0.0),
    };
    for (lab, text) in LABS.iter().zip(TEXTS) {
        for corner in corners(&(lab.params)()) {
            let pairs = corner.borrowed();
            let request = RunRequest::of(&pairs);
            let work = (text.work)(&request).ok();
            let estimate = work.as_ref().map_or(f64::NAN, |w| w.ns / 1e6);
            let fits = work.is_some_and(|w| w.fits());
            let started = Instant::now();
            let result = (text.check)(&request);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            let command = format!("lblab {} {} ({})", lab.info.id, corner.flags(), corner.name);
            match result {
                Ok(_) => {
                    s.ran += 1;
                    if ms > s.slowest.1 {
                        s.slowest = (command, ms, estimate);
                    }
                }
                // Estimated to fit, but its meter ran out as it ran.
                Err(RunError::TooMuch(_)) if fits => {
                    s.stopped += 1;
                    if ms > s.slowest_stop.1 {
                        s.slowest_stop = (command, ms, estimate);
                    }
                }
                Err(e) => {
                    if matches!(e, RunError::TooMuch(_)) {
                        s.refused += 1;
                    } else {
                        s.unusable += 1;
                    }
                    if ms > s.slowest_refusal.1 {
                        s.slowest_refusal = (command, ms);
                    }
                }
            }
        }
    }
    s
}
