//! An API Management pool in round robin: backends in turn, skipping those
//! whose breaker has tripped.

use super::{Gate, Why, WhyKind};

/// The next open backend in the rotation.
pub fn pick(g: &mut Gate, open: &[usize]) -> Option<(usize, Why)> {
    let n = g.declared.len();
    for k in 0..n {
        let d = (g.next + k) % n;
        if open.contains(&d) {
            g.next = d + 1;
            return Some((d, Why::of(WhyKind::Rotation)));
        }
    }
    None
}
