//! Summary statistics used by every lab.

use alloc::vec::Vec;

/// The `p`-th percentile (0–100) of `values` by linear interpolation between the
/// closest order statistics (the default method of NumPy's `percentile`, Hyndman &
/// Fan type 7). Returns 0 for an empty slice. Sorts a copy; `values` is untouched.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted: Vec<f64> = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    percentile_sorted(&sorted, p)
}

/// [`percentile`] for values already sorted ascending.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let pos = (p.clamp(0.0, 100.0) / 100.0) * (n - 1) as f64;
            let lo = libm::floor(pos) as usize;
            let hi = (lo + 1).min(n - 1);
            let frac = pos - lo as f64;
            sorted[lo] + (sorted[hi] - sorted[lo]) * frac
        }
    }
}

/// Arithmetic mean (0 for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(percentile(&v, 50.0), 3.0);
        // numpy.percentile([1,2,3,4,10], 95) == 8.8
        assert!((percentile(&v, 95.0) - 8.8).abs() < 1e-12);
        assert_eq!(percentile(&[], 95.0), 0.0);
        assert_eq!(percentile(&[5.0], 95.0), 5.0);
    }
}
