//! A small stable sort for the places that sort rarely and briefly (a
//! trace's rows once, a player's few items): the standard library's sorts
//! are fast but large, and each element type and comparison instantiates
//! one again (some 7 KB of the browser bundle apiece). Hot loops keep the
//! standard sorts; this one is a top-down merge sort, stable, so it orders
//! exactly as `sort_by` does.

use alloc::vec::Vec;
use core::cmp::Ordering;

/// Sort `v` stably by `cmp` (equal elements keep their order).
pub fn stable_by<T>(v: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let all = core::mem::take(v);
    *v = merge_sort(all, &mut cmp);
}

/// Sort `v` stably by the key `key` gives.
pub fn stable_by_key<T, K: Ord>(v: &mut Vec<T>, mut key: impl FnMut(&T) -> K) {
    stable_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sort `v` stably in its natural order.
pub fn stable<T: Ord>(v: &mut Vec<T>) {
    stable_by(v, T::cmp);
}

// One instance per element type: the comparison is called through `dyn`.
fn merge_sort<T>(mut v: Vec<T>, cmp: &mut dyn FnMut(&T, &T) -> Ordering) -> Vec<T> {
    if v.len() <= 1 {
        return v;
    }
    let right = v.split_off(v.len() / 2);
    let left = merge_sort(v, cmp);
    let right = merge_sort(right, cmp);
    let mut out = Vec::with_capacity(left.len() + right.len());
    let mut l = left.into_iter().peekable();
    let mut r = right.into_iter().peekable();
    while let (Some(a), Some(b)) = (l.peek(), r.peek()) {
        // Take from the right only when strictly smaller: stable.
        let next = if cmp(b, a) == Ordering::Less {
            r.next()
        } else {
            l.next()
        };
        out.extend(next);
    }
    out.extend(l);
    out.extend(r);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn orders_as_the_standard_stable_sort() {
        let mut rng = crate::rng::Rng::new(7, 0);
        for n in [0usize, 1, 2, 3, 10, 257, 1000] {
            let v: Vec<(u32, usize)> = (0..n).map(|i| (rng.next_u32() % 7, i)).collect();
            let mut ours = v.clone();
            stable_by_key(&mut ours, |p| p.0);
            let mut std = v.clone();
            std.sort_by_key(|p| p.0);
            assert_eq!(ours, std, "n = {n}");
        }
        let mut w = vec![3, 1, 2];
        stable(&mut w);
        assert_eq!(w, [1, 2, 3]);
    }
}
