//! Seeded randomness: `rand_pcg`'s PCG32 with independent streams.
//!
//! Why PCG32 rather than `rand`'s `SmallRng`: `SmallRng` is a different
//! algorithm on 32-bit targets (wasm32) than on 64-bit hosts, and `usize`
//! ranges sample differently by pointer width. PCG-XSH-RR (O'Neill, 2014)
//! with explicit `u32`/`u64` sampling is the same everywhere. Each source of
//! randomness (arrivals, lengths, prefixes, each rule's tie-breaks) gets its
//! own stream so changing one never shifts another. The distributions below
//! use `libm` so their floating-point results are portable too
//! (ARCHITECTURE.md says why they are not `rand_distr`'s).

use rand::RngCore;
use rand_pcg::Pcg32;

/// Well-known stream ids, so every lab draws the same source from the same stream.
pub mod stream {
    /// Arrival times.
    pub const ARRIVALS: u64 = 1;
    /// Prompt lengths.
    pub const PROMPTS: u64 = 2;
    /// Output lengths and the long-request class.
    pub const OUTPUTS: u64 = 3;
    /// Which shared prefix a request carries, and how much of the prompt it covers.
    pub const PREFIXES: u64 = 4;
    /// Closed-loop clients' think times.
    pub const THINK: u64 = 5;
    /// First stream of per-rule tie-breaks; rule `i` uses `TIE_BREAKS + i`.
    pub const TIE_BREAKS: u64 = 100;
    /// Which copy of the gateway a request reaches, when that is random;
    /// rule `i` uses `GATEWAYS + i`.
    pub const GATEWAYS: u64 = 200;
}

/// A PCG-XSH-RR 64/32 generator (`rand_pcg::Pcg32`): 64-bit state, 32-bit
/// output, selectable stream, with the lab's seeding and sampling.
#[derive(Clone, Debug)]
pub struct Rng {
    pcg: Pcg32,
}

/// SplitMix64 finaliser: spreads nearby seeds (0, 1, 2…) over the state space.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform draw in (0, 1] fixed by `seed` and the key `(a, b)`: the
/// same key gives the same draw whatever order a run asks in, so a draw
/// keyed by a request and its position in its output does not move when
/// the batch around it changes.
pub fn keyed_unit(seed: u64, a: u64, b: u64) -> f64 {
    let h = splitmix(splitmix(seed ^ splitmix(a)) ^ b);
    // The top 53 bits, plus one: never 0, so its logarithm is finite.
    ((h >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl Rng {
    /// A generator for `seed` on stream `stream` (streams are independent sequences).
    pub fn new(seed: u64, stream: u64) -> Rng {
        // Both through SplitMix, so nearby seeds and stream ids start far
        // apart (the stream's constant only moves stream 0 off zero).
        Rng {
            pcg: Pcg32::new(splitmix(seed), splitmix(stream ^ 0xA5A5_5A5A_0F0F_F0F0)),
        }
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.pcg.next_u32()
    }

    /// The next 64 random bits: two draws, the first the high half (the
    /// order every seeded figure of the labs was drawn with).
    pub fn next_u64(&mut self) -> u64 {
        (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32())
    }

    /// Uniform in `[0, 1)` with 53 bits of precision.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `(0, 1]`: safe to take the logarithm of.
    pub fn unit_open(&mut self) -> f64 {
        1.0 - self.unit()
    }

    /// Uniform integer in `[0, n)`, unbiased (Lemire 2019). `n` must be positive.
    pub fn below(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let n = n.max(1);
        let mut m = u64::from(self.next_u32()) * u64::from(n);
        let mut low = m as u32;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                m = u64::from(self.next_u32()) * u64::from(n);
                low = m as u32;
            }
        }
        (m >> 32) as u32
    }

    /// Uniform index into a slice of length `len` (at least 1).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len.min(u32::MAX as usize) as u32) as usize
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.unit_open())
    }

    /// Standard normal (Box–Muller; one of the pair is discarded to keep the
    /// stream position independent of call history).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.unit_open();
        let u2 = self.unit();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(core::f64::consts::TAU * u2)
    }

    /// Gamma with `shape` > 0 and `scale` > 0 (Marsaglia & Tsang 2000; shapes below
    /// one use the boost `Gamma(a) = Gamma(a + 1) · U^(1/a)`).
    pub fn gamma(&mut self, shape: f64, scale: f64) -> f64 {
        if shape < 1.0 {
            let boost = libm::pow(self.unit_open(), 1.0 / shape);
            return self.gamma(shape + 1.0, scale) * boost;
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / libm::sqrt(9.0 * d);
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.unit_open();
            if libm::log(u) < 0.5 * x * x + d - d * v + d * libm::log(v) {
                return d * v * scale;
            }
        }
    }

    /// Log-normal with the given mean and coefficient of variation (CV = σ/μ).
    /// A CV of zero returns the mean exactly.
    pub fn lognormal_mean_cv(&mut self, mean: f64, cv: f64) -> f64 {
        if cv <= 0.0 {
            return mean;
        }
        let sigma2 = libm::log(1.0 + cv * cv);
        let mu = libm::log(mean) - sigma2 / 2.0;
        libm::exp(mu + libm::sqrt(sigma2) * self.normal())
    }

    /// Gamma with the given mean and CV (shape = 1/CV²). A CV of zero returns the mean.
    pub fn gamma_mean_cv(&mut self, mean: f64, cv: f64) -> f64 {
        if cv <= 0.0 {
            return mean;
        }
        let shape = 1.0 / (cv * cv);
        self.gamma(shape, mean / shape)
    }

    /// Poisson count with the given mean (Knuth's product method; fine below ~500).
    pub fn poisson(&mut self, mean: f64) -> u32 {
        if mean <= 0.0 {
            return 0;
        }
        // Split large means so exp(-mean) never underflows.
        let mut remaining = mean;
        let mut total = 0;
        while remaining > 0.0 {
            let part = if remaining > 50.0 { 50.0 } else { remaining };
            remaining -= part;
            let limit = libm::exp(-part);
            let mut product = self.unit_open();
            while product > limit {
                total += 1;
                product *= self.unit_open();
            }
        }
        total
    }
}

impl RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        Rng::next_u32(self)
    }

    fn next_u64(&mut self) -> u64 {
        Rng::next_u64(self)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(4) {
            let bytes = Rng::next_u32(self).to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator is PCG-XSH-RR as O'Neill defines it: the reference
    /// stepping and output, written out here, give the same draws.
    #[test]
    fn draws_are_the_reference_pcg32() {
        let (seed, stream) = (55u64, 7u64);
        let inc = (splitmix(stream ^ 0xA5A5_5A5A_0F0F_F0F0) << 1) | 1;
        let step = |s: u64| s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(inc);
        let mut state = step(step(0).wrapping_add(splitmix(seed)));
        let mut rng = Rng::new(seed, stream);
        for _ in 0..1000 {
            let old = state;
            state = step(state);
            let out = ((((old >> 18) ^ old) >> 27) as u32).rotate_right((old >> 59) as u32);
            assert_eq!(rng.next_u32(), out);
        }
    }

    #[test]
    fn same_seed_same_stream_repeats() {
        let mut a = Rng::new(7, stream::ARRIVALS);
        let mut b = Rng::new(7, stream::ARRIVALS);
        for _ in 0..100 {
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    fn streams_differ() {
        let mut a = Rng::new(7, stream::ARRIVALS);
        let mut b = Rng::new(7, stream::PROMPTS);
        let same = (0..64).filter(|_| a.next_u32() == b.next_u32()).count();
        assert!(same < 4);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(1, 9);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            let v = r.below(5) as usize;
            seen[v] += 1;
        }
        assert!(seen.iter().all(|&c| c > 850 && c < 1150), "{seen:?}");
    }

    #[test]
    fn moments_match_parameters() {
        let mut r = Rng::new(3, 11);
        let n = 40_000;
        let check = |xs: &[f64], mean: f64, cv: f64| {
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / xs.len() as f64;
            let got_cv = libm::sqrt(var) / m;
            assert!((m - mean).abs() / mean < 0.03, "mean {m} vs {mean}");
            assert!((got_cv - cv).abs() < 0.05, "cv {got_cv} vs {cv}");
        };
        let xs: alloc::vec::Vec<f64> = (0..n).map(|_| r.gamma_mean_cv(10.0, 0.5)).collect();
        check(&xs, 10.0, 0.5);
        let xs: alloc::vec::Vec<f64> = (0..n).map(|_| r.gamma_mean_cv(10.0, 2.0)).collect();
        check(&xs, 10.0, 2.0);
        let xs: alloc::vec::Vec<f64> = (0..n).map(|_| r.lognormal_mean_cv(957.0, 0.75)).collect();
        check(&xs, 957.0, 0.75);
        let xs: alloc::vec::Vec<f64> = (0..n).map(|_| f64::from(r.poisson(1.8))).collect();
        check(&xs, 1.8, libm::sqrt(1.8) / 1.8);
    }
}
