//! Speculative decoding, in milliseconds mode (article §7.4).
//!
//! Each decode iteration drafts `k` tokens per sequence cheaply, then the
//! target model checks all of them in one pass and keeps the longest run it
//! agrees with, plus one token of its own (the correction, or the bonus
//! token when every draft is kept): Leviathan, Kalman and Matias, "Fast
//! Inference from Transformers via Speculative Decoding", ICML 2023, §3.
//! So one iteration streams one *chunk* of 1 to `k + 1` tokens per sequence.
//!
//! **Acceptance.** As in that paper's analysis (§3.1), each drafted token is
//! kept with probability `α`, independently, until the first rejection: a
//! sequence keeps `a` drafts with `P(a ≥ j) = α^j` (at most `k`), and a
//! chunk carries on average `(1 − α^(k+1)) / (1 − α)` tokens (their eq. 1).
//! `α` depends on what is written: structured, low-entropy output (JSON,
//! code) accepts long runs, prose does not, so each request is one of two
//! classes with its own `α`. Draws are keyed by the run's seed, the request
//! and its position in its output ([`crate::rng::keyed_unit`]), so a
//! request's chunks do not depend on the batch it happens to share.
//!
//! **Cost.** The verify pass is an ordinary step over `k + 1` tokens per
//! sequence, each attending to its context, with the KV read once
//! ([`StepCost::step_s`]); at small batches it is bandwidth-bound and costs
//! about what a one-token step does, which is where the gain comes from.
//! Drafting adds `k` draft passes, each priced as `draft_cost` of a plain
//! decode step of the same batch: an EAGLE head is one decoder layer (Li et
//! al., "EAGLE", ICML 2024), about 1/32 of Llama 3.1 8B's layers plus its
//! LM head, so the default is 0.05; a separate draft model such as Llama
//! 3.2 1B for an 8B target reads about 1/6 of the weights (0.15–0.2).
//!
//! **What it does to the metrics.** vLLM's benchmark (`vllm bench serve`,
//! docs/benchmarking/cli.md) records ITL as the gaps between streamed
//! chunks and TPOT as a request's decoding time over its tokens after the
//! first: with speculation a chunk carries several tokens, so mean ITL is
//! TPOT times the tokens per chunk, and the two no longer track each other.

use serde::{Deserialize, Serialize};

use crate::hardware::StepCost;
use crate::rng::keyed_unit;

/// Speculative decoding settings; `k = 0` is off (the default).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Speculation {
    /// Tokens drafted per sequence per iteration (0–8; 0 is off).
    pub k: u32,
    /// Per-token acceptance of prose (0–1; default 0.55).
    pub accept: f64,
    /// Per-token acceptance of structured output (0–1; default 0.8).
    pub accept_structured: f64,
    /// Share of requests whose output is structured (0–1; default 0).
    pub structured_share: f64,
    /// One drafted token's cost as a share of a plain decode step of the
    /// same batch (0–1; default 0.05, an EAGLE-like head).
    pub draft_cost: f64,
}

impl Default for Speculation {
    fn default() -> Self {
        Speculation {
            k: 0,
            accept: 0.55,
            accept_structured: 0.8,
            structured_share: 0.0,
            draft_cost: 0.05,
        }
    }
}

/// Key of the class draw (a position no output reaches).
const CLASS_KEY: u64 = u64::MAX;

impl Speculation {
    /// Whether iterations speculate.
    pub fn on(&self) -> bool {
        self.k > 0
    }

    /// Mean tokens per chunk at acceptance `alpha` with `k` drafts:
    /// `(1 − α^(k+1)) / (1 − α)`, Leviathan et al. 2023, eq. 1 (ignoring a
    /// request's last chunk, which its remaining length may cut short).
    pub fn tokens_per_chunk(alpha: f64, k: u32) -> f64 {
        if alpha >= 1.0 {
            return f64::from(k + 1);
        }
        (1.0 - libm::pow(alpha.max(0.0), f64::from(k + 1))) / (1.0 - alpha.max(0.0))
    }

    /// Whether request `request` of the run seeded `seed` writes structured output.
    pub fn structured(&self, seed: u64, request: u32) -> bool {
        keyed_unit(seed, u64::from(request), CLASS_KEY) <= self.structured_share
    }

    /// The acceptance of a request of that class.
    pub fn alpha(&self, structured: bool) -> f64 {
        if structured {
            self.accept_structured
        } else {
            self.accept
        }
    }

    /// Drafts kept for request `request` at output position `at`: the
    /// number of leading successes, `floor(ln u / ln α)` for a uniform `u`
    /// (a geometric count), at most `k`.
    pub fn kept(&self, alpha: f64, seed: u64, request: u32, at: u32) -> u32 {
        if alpha <= 0.0 {
            return 0;
        }
        if alpha >= 1.0 {
            return self.k;
        }
        let u = keyed_unit(seed, u64::from(request), u64::from(at));
        let run = libm::floor(libm::log(u) / libm::log(alpha));
        if run >= f64::from(self.k) {
            self.k
        } else {
            run as u32
        }
    }

    /// One line on the settings and the chunk sizes they imply (`None` when off).
    pub fn summary(&self) -> Option<alloc::string::String> {
        self.on().then(|| {
            alloc::format!(
                "Speculative decoding: {} drafts a step, each {} of a decode step; acceptance {:.0}% for prose, {:.0}% for structured output ({:.0}% of requests): {:.2} and {:.2} tokens a chunk expected",
                self.k,
                crate::params::real_text(self.draft_cost),
                self.accept * 100.0,
                self.accept_structured * 100.0,
                self.structured_share * 100.0,
                Self::tokens_per_chunk(self.accept, self.k),
                Self::tokens_per_chunk(self.accept_structured, self.k)
            )
        })
    }

    /// Seconds of one speculative decode iteration of `batch` sequences
    /// whose contexts sum to `context`: the verify pass over `k + 1` tokens
    /// each (token `i` of a sequence attends to its context and the `i`
    /// drafts before it) plus `k` draft passes.
    pub fn step_s(&self, cost: &StepCost, batch: f64, context: f64) -> f64 {
        let k = f64::from(self.k);
        let tokens = batch * (k + 1.0);
        let attended = (k + 1.0) * context + batch * k * (k + 1.0) / 2.0;
        let verify = cost.step_s(tokens, attended, context);
        verify + k * self.draft_cost * cost.decode_s(batch, context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_drafts_follow_the_geometric_law() {
        let s = Speculation {
            k: 3,
            ..Speculation::default()
        };
        let alpha = 0.54;
        let n = 200_000u32;
        let tokens: u64 = (0..n)
            .map(|i| u64::from(1 + s.kept(alpha, 7, i, i % 97)))
            .sum();
        let mean = tokens as f64 / f64::from(n);
        let expect = Speculation::tokens_per_chunk(alpha, 3);
        assert!((mean - expect).abs() < 0.01, "mean {mean} against {expect}");
        assert!(
            (expect - 1.989).abs() < 0.001,
            "eq. 1 at α 0.54, k 3: {expect}"
        );
    }

    #[test]
    fn the_class_share_is_drawn_per_request() {
        let s = Speculation {
            k: 2,
            structured_share: 0.3,
            ..Speculation::default()
        };
        let n = 100_000u32;
        let share = (0..n).filter(|&i| s.structured(11, i)).count() as f64 / f64::from(n);
        assert!((share - 0.3).abs() < 0.01, "{share}");
        assert_eq!(Speculation::tokens_per_chunk(1.0, 4), 5.0);
        assert_eq!(s.kept(0.0, 1, 1, 1), 0);
        assert_eq!(s.kept(1.0, 1, 1, 1), 2);
    }
}
