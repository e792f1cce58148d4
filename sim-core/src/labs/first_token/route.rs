//! Where the gateway sends an attempt, and what it expects of one before
//! it runs. The effort a request carries (`reasoning.effort`,
//! `thinking.budget_tokens`) is the one load signal known at dispatch
//! (article §9.5): the three routes differ in whether they read it.

use super::config::{Config, Route};
use super::sim::{Request, World};

/// Milliseconds the request should take to its first visible token on an
/// idle healthy replica: its prompt's prefill, then its hidden tokens and one
/// visible one. The hedge timer is a multiple of this, so a high-effort
/// request is not hedged for reasoning as long as it was asked to.
pub fn expected_first_visible(c: &Config, r: &Request) -> f64 {
    let prefill = f64::from(r.prompt) / c.prefill * 1000.0;
    prefill + f64::from(r.hidden + 1) * c.tpot + super::sim::STEP_MS as f64
}

/// Milliseconds the whole answer should take on an idle healthy replica:
/// to its first visible token, then the rest of the answer. A hedge on the
/// whole response (`hedge-until end`) fires at a multiple of this.
pub fn expected_answer(c: &Config, r: &Request) -> f64 {
    expected_first_visible(c, r) + f64::from(r.visible.saturating_sub(1)) * c.tpot
}

/// The replica for the next attempt of `req`: within the replicas its
/// route allows, one it has not tried if there is one; its conversation's
/// last replica when that is not much busier than the least busy (where
/// the cache is); otherwise the least busy, ties taken in turn.
pub(super) fn pick(w: &mut World<'_>, req: u32) -> u32 {
    let c = w.c;
    let n = c.replicas;
    let (from, to) = if c.route == Route::Pool {
        let split = n - c.pool.min(n - 1);
        if w.high(req) {
            (split, n)
        } else {
            (0, split)
        }
    } else {
        (0, n)
    };
    let r = &w.requests[req as usize];
    let fresh: alloc::vec::Vec<u32> = (from..to).filter(|x| !r.used.contains(x)).collect();
    let allowed: alloc::vec::Vec<u32> = if fresh.is_empty() {
        (from..to).collect()
    } else {
        fresh
    };
    let weighted = c.route == Route::Weighted;
    let load = |x: u32| -> f64 {
        let rep = &w.replicas[x as usize];
        if weighted {
            rep.waiting
                .iter()
                .chain(&rep.running)
                .map(|&a| owed(c, w, a))
                .sum()
        } else {
            (rep.waiting.len() + rep.running.len()) as f64
        }
    };
    let loads: alloc::vec::Vec<(u32, f64)> = allowed.iter().map(|&x| (x, load(x))).collect();
    let least = loads.iter().map(|l| l.1).fold(f64::INFINITY, f64::min);
    // Two attempts' worth of slack before the cache is given up: by count,
    // two attempts; by tokens, two typical low-effort answers.
    let slack = if weighted {
        2.0 * f64::from(c.output + c.hidden(0))
    } else {
        2.0
    };
    if let Some(home) = w.home[r.conv as usize] {
        if let Some(&(_, l)) = loads.iter().find(|l| l.0 == home) {
            if l <= least + slack {
                return home;
            }
        }
    }
    let k = loads.len() as u32;
    let start = w.turn_of % k.max(1);
    w.turn_of = w.turn_of.wrapping_add(1);
    (0..k)
        .map(|i| loads[((start + i) % k) as usize])
        .find(|l| l.1 <= least)
        .map_or(allowed[0], |l| l.0)
}

/// Tokens attempt `a` still owes as the gateway sees it: its reasoning
/// budget and the mean answer (not the answer's true length, which nobody
/// knows at dispatch), less what it produced.
fn owed(c: &Config, w: &World<'_>, a: u32) -> f64 {
    let at = &w.attempts[a as usize];
    f64::from((at.hidden + c.output).saturating_sub(at.produced))
}
