//! The source of every random or tie-breaking choice a rule makes.
//!
//! Rules never own randomness: the lab passes a [`Chooser`] in. That keeps the
//! rules pure functions of what they see and lets each lab decide how choices
//! are correlated — one stream per rule (Routing Lab), one stream shared by
//! several routers in arrival order (herding lab), or deterministic lowest-index
//! ties (prefix player, whose figures are exact).

use crate::rng::Rng;

/// How ties between equally good replicas are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// Uniformly at random among the tied replicas.
    Random,
    /// The lowest index among the tied replicas.
    First,
}

/// Random draws and tie-breaks for one decision.
pub struct Chooser<'a> {
    rng: &'a mut Rng,
    ties: Ties,
}

impl<'a> Chooser<'a> {
    /// Draw from `rng`, breaking ties as `ties` says.
    pub fn new(rng: &'a mut Rng, ties: Ties) -> Chooser<'a> {
        Chooser { rng, ties }
    }

    /// A uniform draw in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.rng.unit()
    }

    /// How ties are broken.
    pub fn ties(&self) -> Ties {
        self.ties
    }

    /// A uniform index below `n` (`n` > 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.rng.index(n)
    }

    /// Two distinct uniform indices below `n` (`n` ≥ 2), in draw order.
    pub fn pair(&mut self, n: usize) -> (usize, usize) {
        let a = self.rng.index(n);
        // Draw from the n − 1 others so the pair is always distinct.
        let mut b = self.rng.index(n - 1);
        if b >= a {
            b += 1;
        }
        (a, b)
    }

    /// Index and key of the smallest `key` among `candidates`. With
    /// [`Ties::Random`] ties are broken uniformly (reservoir sampling over the
    /// tied set, one draw per tie); with [`Ties::First`] the first one wins.
    pub fn argmin<K: Ord + Copy>(
        &mut self,
        candidates: impl Iterator<Item = (usize, K)>,
    ) -> Option<(usize, K)> {
        let mut best: Option<(usize, K)> = None;
        let mut ties = 0u32;
        for (i, k) in candidates {
            match best {
                Some((_, bk)) if k > bk => {}
                Some((_, bk)) if k == bk => {
                    ties += 1;
                    if self.ties == Ties::Random && self.rng.below(ties) == 0 {
                        best = Some((i, k));
                    }
                }
                _ => {
                    best = Some((i, k));
                    ties = 1;
                }
            }
        }
        best
    }
}

/// An `f64` cost ordered totally (`f64::total_cmp`), so real-valued costs can go
/// through [`Chooser::argmin`] and its tie-breaking.
#[derive(Clone, Copy, Debug)]
pub struct OrdF64(pub f64);

impl PartialEq for OrdF64 {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}

impl Eq for OrdF64 {}

impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
