//! A small stable sort for the places that sort rarely or briefly (a
//! trace's rows once, a player's few items, the finishes of a stretch of the
//! Routing Lab's tick loop, nearly always in order already): the standard library's sorts
//! are fast but large, and each element type and comparison instantiates
//! one again (some 7 KB of the browser bundle apiece). Hot loops keep the
//! standard sorts; this one is a top-down merge sort (insertion below a
//! dozen elements, and nothing at all for input already in order), stable,
//! so it orders exactly as `sort_by` does.
//!
//! The merge sort itself is compiled once: it sorts the elements' indices,
//! comparing `v[i]` with `v[j]` through `dyn`, and each element type only
//! adds a loop of swaps that moves its elements into that order. It makes
//! the same comparisons in the same order as sorting the elements directly
//! would, so even an inconsistent comparison orders the same way.

use alloc::vec::Vec;
use core::cmp::Ordering;

/// Sort `v` stably by `cmp` (equal elements keep their order).
pub fn stable_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let swaps = {
        let all: &[T] = v;
        sorting_swaps(all.len(), &mut |i, j| cmp(&all[i], &all[j]))
    };
    // The only per-type code: swap each position with its element's place.
    for (i, j) in swaps.into_iter().enumerate() {
        v.swap(i, j);
    }
}

/// Sort `v` stably by the key `key` gives.
pub fn stable_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    stable_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sort `v` stably in its natural order.
pub fn stable<T: Ord>(v: &mut [T]) {
    stable_by(v, T::cmp);
}

/// The swaps that sort `n` elements that `cmp` compares by index: swapping
/// position `i` with `swaps[i]`, for each `i` in turn, leaves the element
/// that was at `order[i]` at position `i`. Empty when the elements are
/// already in order (the common case in the Routing Lab's tick loop, which
/// sorts each stretch's finishes: nothing is allocated then).
fn sorting_swaps(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    if (1..n).all(|i| cmp(i, i - 1) != Ordering::Less) {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..n).collect();
    let mut scratch = Vec::with_capacity(n / 2);
    merge_sort(&mut order, &mut scratch, cmp);
    // `at[p]`: which original element is at position `p` now; `place[e]`:
    // where original element `e` is now.
    let mut at: Vec<usize> = (0..n).collect();
    let mut place = at.clone();
    let mut swaps = Vec::with_capacity(n);
    for (i, &e) in order.iter().enumerate() {
        let p = place[e];
        swaps.push(p);
        // Position `i`'s element moves to `p`, `e` moves to `i`.
        let moved = at[i];
        at[p] = moved;
        place[moved] = p;
        at[i] = e;
        place[e] = i;
    }
    swaps
}

/// Runs this short are sorted by insertion (stable: an element moves left
/// only past strictly greater ones), as most merge sorts do below a cutoff.
const INSERTION_MAX: usize = 12;

// Compiled once: sorts indices, the comparison is called through `dyn`.
// Top-down; `scratch` holds the left half while the halves merge back.
fn merge_sort(
    v: &mut [usize],
    scratch: &mut Vec<usize>,
    cmp: &mut dyn FnMut(usize, usize) -> Ordering,
) {
    if v.len() <= INSERTION_MAX {
        for i in 1..v.len() {
            let x = v[i];
            let mut j = i;
            while j > 0 && cmp(x, v[j - 1]) == Ordering::Less {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = x;
        }
        return;
    }
    let mid = v.len() / 2;
    merge_sort(&mut v[..mid], scratch, cmp);
    merge_sort(&mut v[mid..], scratch, cmp);
    // Already in order across the halves: nothing to merge.
    if cmp(v[mid], v[mid - 1]) != Ordering::Less {
        return;
    }
    scratch.clear();
    scratch.extend_from_slice(&v[..mid]);
    let (mut l, mut r, mut k) = (0, mid, 0);
    while l < scratch.len() && r < v.len() {
        // Take from the right only when strictly smaller: stable.
        if cmp(v[r], scratch[l]) == Ordering::Less {
            v[k] = v[r];
            r += 1;
        } else {
            v[k] = scratch[l];
            l += 1;
        }
        k += 1;
    }
    // What is left of the right half is already in place.
    while l < scratch.len() {
        v[k] = scratch[l];
        l += 1;
        k += 1;
    }
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

    /// The same sort on the elements themselves (the order check, then
    /// insertion below the cutoff and merges above it), written directly.
    fn by_value<T: Copy>(mut v: Vec<T>, cmp: &mut dyn FnMut(&T, &T) -> Ordering) -> Vec<T> {
        if (1..v.len()).all(|i| cmp(&v[i], &v[i - 1]) != Ordering::Less) {
            return v;
        }
        fn sort<T: Copy>(v: &mut [T], cmp: &mut dyn FnMut(&T, &T) -> Ordering) {
            if v.len() <= INSERTION_MAX {
                for i in 1..v.len() {
                    let x = v[i];
                    let mut j = i;
                    while j > 0 && cmp(&x, &v[j - 1]) == Ordering::Less {
                        v[j] = v[j - 1];
                        j -= 1;
                    }
                    v[j] = x;
                }
                return;
            }
            let mid = v.len() / 2;
            sort(&mut v[..mid], cmp);
            sort(&mut v[mid..], cmp);
            if cmp(&v[mid], &v[mid - 1]) != Ordering::Less {
                return;
            }
            let left: Vec<T> = v[..mid].to_vec();
            let (mut l, mut r, mut k) = (0, mid, 0);
            while l < left.len() && r < v.len() {
                if cmp(&v[r], &left[l]) == Ordering::Less {
                    v[k] = v[r];
                    r += 1;
                } else {
                    v[k] = left[l];
                    l += 1;
                }
                k += 1;
            }
            while l < left.len() {
                v[k] = left[l];
                l += 1;
                k += 1;
            }
        }
        sort(&mut v, cmp);
        v
    }

    /// An inconsistent comparison: its answers come from `answers` in turn;
    /// it logs the pairs it is asked about.
    fn answering<'a>(
        answers: &'a [u32],
        log: &'a mut Vec<(usize, usize)>,
    ) -> impl FnMut(&(u32, usize), &(u32, usize)) -> Ordering + 'a {
        let mut k = 0;
        move |a, b| {
            log.push((a.1, b.1));
            k += 1;
            match answers[k % answers.len()] {
                0 => Ordering::Less,
                1 => Ordering::Equal,
                _ => a.0.cmp(&b.0),
            }
        }
    }

    #[test]
    fn compares_as_sorting_the_elements_does_even_when_inconsistent() {
        let mut rng = crate::rng::Rng::new(11, 0);
        for n in [0usize, 1, 2, 5, 64, 300] {
            let v: Vec<(u32, usize)> = (0..n).map(|i| (rng.next_u32() % 5, i)).collect();
            let answers: Vec<u32> = (0..n * 16 + 1).map(|_| rng.next_u32() % 3).collect();
            let (mut ours_log, mut theirs_log) = (Vec::new(), Vec::new());
            let mut ours = v.clone();
            stable_by(&mut ours, answering(&answers, &mut ours_log));
            let theirs = by_value(v.clone(), &mut answering(&answers, &mut theirs_log));
            assert_eq!(ours, theirs, "n = {n}");
            assert_eq!(ours_log, theirs_log, "n = {n}");
        }
    }

    /// Input in order, in reverse, and in order but for its last element:
    /// the order check, the skipped merges and the insertion runs.
    #[test]
    fn orders_nearly_sorted_input_as_the_standard_sort() {
        for n in [2usize, 12, 13, 100, 1000] {
            let sorted: Vec<(u32, usize)> = (0..n).map(|i| (i as u32 / 3, i)).collect();
            let reversed: Vec<(u32, usize)> = sorted.iter().rev().copied().collect();
            let mut last_low = sorted.clone();
            last_low[n - 1].0 = 0;
            for v in [sorted, reversed, last_low] {
                let mut ours = v.clone();
                stable_by_key(&mut ours, |p| p.0);
                let mut std = v;
                std.sort_by_key(|p| p.0);
                assert_eq!(ours, std, "n = {n}");
            }
        }
    }

    #[test]
    fn moves_elements_that_are_not_copy() {
        let mut v: Vec<alloc::string::String> = ["d", "b", "a", "c", "b"]
            .iter()
            .map(|s| (*s).into())
            .collect();
        stable(&mut v);
        assert_eq!(v, ["a", "b", "b", "c", "d"]);
    }
}
