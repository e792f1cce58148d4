//! An API Management pool with session affinity: the gateway sets a cookie
//! carrying a session id, and later calls of that session go to the same
//! backend while it is in service. The first call, and a call whose backend
//! is out, is placed in round robin and pinned there.

use super::{round_robin, Gate, Why, WhyKind};

/// The conversation's backend, or a new pin.
pub fn pick(g: &mut Gate, open: &[usize], session: u32) -> Option<(usize, Why)> {
    let pinned = g.pins.get(&session).copied();
    if let Some(d) = pinned {
        if open.contains(&d) {
            return Some((d, Why::of(WhyKind::Pinned)));
        }
    }
    let (d, _) = round_robin::pick(g, open)?;
    g.pins.insert(session, d);
    Some((
        d,
        if pinned.is_some() {
            Why::of(WhyKind::Repinned)
        } else {
            Why::of(WhyKind::Rotation)
        },
    ))
}
