//! The refusal of a run too big to finish in seconds: [`check`] asks the
//! lab's estimate ([`super::Lab::work`]) and, when the run does not fit,
//! searches each driving parameter's range with the same estimate for the
//! value that would fit, so the one-line refusal can name it.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::lab::{Input, Lab, RunError};
use super::work::{refusal, thousands};
use crate::params::{number_text, Configurable, Kind};

/// Refuse `work` unless it fits: the refusal names the work, its size
/// against the limit, and for each driver of `config` what would fit.
pub fn check<L: Lab>(config: &L::Config, input: &Input<'_, L::Item>) -> Result<(), RunError> {
    let work = L::work(config, input);
    if work.fits() {
        return Ok(());
    }
    let mut fixes: Vec<(bool, String)> = work
        .drivers
        .iter()
        .filter_map(|key| fix::<L>(config, input, key))
        .collect();
    // A value at the end of its range (no incident at all, one request) is
    // named only when nothing else would do.
    if fixes.iter().any(|(edge, _)| !edge) {
        fixes.retain(|(edge, _)| !edge);
    }
    let fixes: Vec<String> = fixes.into_iter().map(|(_, f)| f).collect();
    Err(RunError::TooMuch(refusal(&work, &fixes)))
}

/// What value of `driver` would make the run fit, holding the rest: the
/// largest whole or real value in range that fits (the smallest, for a
/// `+key` that lowers the work as it rises), or turning a switch off.
/// Returns whether the value is at the end of the range, and the words.
fn fix<L: Lab>(
    config: &L::Config,
    input: &Input<'_, L::Item>,
    driver: &str,
) -> Option<(bool, String)> {
    let (key, raise) = match driver.strip_prefix('+') {
        Some(k) => (k, true),
        None => (driver, false),
    };
    let p = L::Config::param(key)?;
    let fits = |c: &L::Config| L::work(c, input).fits();
    let mut trial = config.clone();
    let less = if raise { "or more" } else { "or less" };
    match p.kind {
        Kind::Whole {
            min, max, get, set, ..
        } => {
            // `good` fits, `bad` does not; bisect between them.
            let end = if raise { max } else { min };
            let (mut good, mut bad) = (end, get(config));
            set(&mut trial, good);
            if !fits(&trial) {
                return None;
            }
            while good.abs_diff(bad) > 1 {
                let mid = good.min(bad) + good.abs_diff(bad) / 2;
                set(&mut trial, mid);
                if fits(&trial) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
            Some((good == end, format!("{key} to {} {less}", thousands(good))))
        }
        Kind::Real {
            min,
            max,
            step,
            get,
            set,
        } => {
            let end = if raise { max } else { min };
            let (mut good, mut bad) = (end, get(config));
            set(&mut trial, good);
            if !fits(&trial) {
                return None;
            }
            for _ in 0..60 {
                let mid = (good + bad) / 2.0;
                set(&mut trial, mid);
                if fits(&trial) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
            // On the slider's steps, so the value is one a reader can set.
            let steps = (good - min) / step;
            let stepped = if raise {
                (min + libm::ceil(steps) * step).min(max)
            } else {
                min + libm::floor(steps) * step
            };
            Some((
                stepped == end,
                format!("{key} to {} {less}", number_text(stepped)),
            ))
        }
        Kind::Switch { get, set } => {
            if !get(config) {
                return None;
            }
            set(&mut trial, false);
            fits(&trial).then(|| (false, format!("{key} off")))
        }
        _ => Some((false, format!("{key} lower"))),
    }
}
