//! The refusal of a run too big to finish in seconds: [`check`] asks the
//! lab's estimate ([`super::Lab::work`]) and, when the run does not fit,
//! searches each driving parameter's range with the same estimate for the
//! value that would fit, so the one-line refusal can name it.

use alloc::string::String;
use alloc::vec::Vec;

use super::lab::{Input, Lab, RunError};
use super::work::{refusal, Work};
use crate::params::AnyConfig;

/// Refuse `work` unless it fits: the refusal names the work, its size
/// against the limit, and for each driver of `config` what would fit.
pub fn check<L: Lab>(config: &L::Config, input: &Input<'_, L::Item>) -> Result<(), RunError> {
    let work = L::work(config, input);
    if work.fits() {
        return Ok(());
    }
    // The search is not generic: compiled once for every lab.
    let fits = |c: &dyn AnyConfig| {
        c.as_any()
            .downcast_ref::<L::Config>()
            .is_some_and(|c| L::work(c, input).fits())
    };
    Err(refuse(&work, config, &fits))
}

/// The refusal of `work`, naming for each of its drivers the value of
/// `config` that would make `fits` hold.
fn refuse(work: &Work, config: &dyn AnyConfig, fits: &dyn Fn(&dyn AnyConfig) -> bool) -> RunError {
    let mut fixes: Vec<(bool, String)> = work
        .drivers
        .iter()
        .filter_map(|driver| {
            // `+key`: a parameter that lowers the work as it rises.
            let (key, raise) = match driver.strip_prefix('+') {
                Some(k) => (k, true),
                None => (*driver, false),
            };
            crate::params::fix(config, fits, key, raise)
        })
        .collect();
    // A value at the end of its range (no incident at all, one request) is
    // named only when nothing else would do.
    if fixes.iter().any(|(edge, _)| !edge) {
        fixes.retain(|(edge, _)| !edge);
    }
    let fixes: Vec<String> = fixes.into_iter().map(|(_, f)| f).collect();
    RunError::TooMuch(refusal(work, &fixes))
}
