//! An API Management pool with priority groups: reserved backends are group
//! 1, metered group 2; a call goes to the highest group with a backend in
//! service, in turn within the group. A lower group serves only while every
//! backend of the higher groups has its breaker tripped.

use super::{Gate, Why, WhyKind};

/// The first group with an open backend, round robin within it.
pub fn pick(g: &mut Gate, open: &[usize]) -> Option<(usize, Why)> {
    let group = |d: usize| if g.declared[d].reserved { 1u8 } else { 2 };
    let best = open.iter().map(|&d| group(d)).min()?;
    let members: alloc::vec::Vec<usize> =
        open.iter().copied().filter(|&d| group(d) == best).collect();
    let d = members[g.next % members.len()];
    g.next = g.next.wrapping_add(1);
    Some((d, Why::citing(WhyKind::Group, best.into())))
}
