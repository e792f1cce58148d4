//! `simple-shuffle` (`litellm/router_strategy/simple_shuffle.py`): a
//! weighted random pick. The weights are the deployments' `weight` if any is
//! positive, else their `rpm` limits if any is, else their `tpm` limits;
//! a deployment without the value counts as 0 (never picked while another
//! has one). With none of the three set, the pick is uniform.

/// What one deployment declares.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Declared {
    /// `weight`.
    pub weight: Option<f64>,
    /// `rpm` limit.
    pub rpm: Option<f64>,
    /// `tpm` limit.
    pub tpm: Option<f64>,
}

/// The weights the pick uses, one per deployment (all 1 for a uniform pick).
pub fn weights(d: &[Declared]) -> alloc::vec::Vec<f64> {
    let sets: [fn(&Declared) -> Option<f64>; 3] = [|x| x.weight, |x| x.rpm, |x| x.tpm];
    for get in sets {
        let w: alloc::vec::Vec<f64> = d.iter().map(|x| get(x).unwrap_or(0.0).max(0.0)).collect();
        if w.iter().any(|&x| x > 0.0) {
            return w;
        }
    }
    alloc::vec![1.0; d.len()]
}

/// The deployment a uniform draw `u` in [0, 1) picks, with probability in
/// proportion to its weight (`None` when there is none).
pub fn pick(d: &[Declared], u: f64) -> Option<usize> {
    let w = weights(d);
    let total: f64 = w.iter().sum();
    let mut at = u * total;
    for (i, &x) in w.iter().enumerate() {
        if x > 0.0 && at < x {
            return Some(i);
        }
        at -= x;
    }
    w.iter().rposition(|&x| x > 0.0)
}
