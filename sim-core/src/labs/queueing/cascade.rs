//! Model cascades (§10.2): escalating only the slowest share `q` of an
//! exponential service-time distribution (mean 1) to a large model.
//!
//! The escalated requests are those with S > t where P(S > t) = q, so t = ln(1/q).
//! By memorylessness S | S > t = t + Exp(1): mean 1 + ln(1/q), variance 1, hence
//! C² = 1 / (1 + ln(1/q))² and a mean ratio of 1 + ln(1/q). At q = 10%:
//! C² = 1/(1 + ln 10)² ≈ 0.09 and the mean rises ×(1 + ln 10) ≈ ×3.3. The
//! escalations are a state-dependent thinning of the arrivals, so they are no
//! longer Poisson: it is Ca², not Cs², that grows.

use serde::{Deserialize, Serialize};

use crate::rng::{stream, Rng};

/// Draws of the seeded check the CLI and the page use.
pub const SAMPLES: u32 = 200_000;

/// What the large pool sees when the top `q` of Exp(1) service times escalate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cascade {
    /// Share escalated (0–1).
    pub escalate: f64,
    /// Squared CV of escalated service times.
    pub cv2: f64,
    /// Mean escalated service time over the overall mean.
    pub mean_ratio: f64,
    /// The same two figures measured on a seeded sample: (cv2, mean ratio).
    pub sampled: (f64, f64),
}

/// Exact figures for escalating share `q` (0 < q ≤ 1), plus a seeded check on
/// `samples` draws.
pub fn cascade(q: f64, samples: u32, seed: u64) -> Result<Cascade, crate::labs::RangeError> {
    crate::labs::check_range("escalate", q, 0.0001, 1.0)?;
    let t = libm::log(1.0 / q);
    let mean = 1.0 + t;
    let mut rng = Rng::new(seed, stream::PROMPTS);
    let (mut n, mut sum, mut sum2) = (0u64, 0.0f64, 0.0f64);
    for _ in 0..samples {
        let s = rng.exponential(1.0);
        if s > t {
            n += 1;
            sum += s;
            sum2 += s * s;
        }
    }
    let sampled = if n > 1 {
        let m = sum / n as f64;
        let var = sum2 / n as f64 - m * m;
        (var / (m * m), m)
    } else {
        (0.0, 0.0)
    };
    Ok(Cascade {
        escalate: q,
        cv2: 1.0 / (mean * mean),
        mean_ratio: mean,
        sampled,
    })
}
