//! One page description per lab (see `crate::page`): what each page shows,
//! as data and small functions of the lab's typed state. Which labs exist is
//! sim-core's registry (`sim_core::with_labs!`); [`PAGES`] is built from that
//! same list of lab types, each lab folder declaring its page for its type.

pub mod admission;
pub mod agents;
pub mod autoscale;
pub mod batching;
#[cfg(test)]
mod checks;
pub mod disagg;
pub mod evaluate;
pub mod fairness;
pub mod first_token;
pub mod goodput;
pub mod herding;
pub mod lora;
pub mod prefix;
pub mod providers;
pub mod queueing;
pub mod routing;

use crate::page::{AnyPage, LabPage};

/// Declares [`PAGES`] from the lab types sim-core lists.
macro_rules! pages {
    ($($lab:ty),+ $(,)?) => {
        /// Every lab's page, in the registry's order: the page each lab type
        /// declares (`LabPage`), for every type in sim-core's one list.
        pub static PAGES: &[&dyn AnyPage] = &[$(<$lab as LabPage>::PAGE),+];
    };
}

sim_core::with_labs!(pages);

/// The page of lab `id`, if it has one.
pub fn page(id: &str) -> Option<&'static dyn AnyPage> {
    PAGES.iter().copied().find(|p| p.entry().info.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::labs::{Layer, LABS};

    #[test]
    fn every_registered_lab_has_a_page_and_nothing_else_does() {
        let registered: Vec<&str> = LABS.iter().map(|l| l.info.id).collect();
        let pages: Vec<&str> = PAGES.iter().map(|p| p.entry().info.id).collect();
        assert_eq!(
            pages, registered,
            "PAGES must list exactly the labs of sim_core::labs::LABS, in order"
        );
        for layer in Layer::ALL {
            assert!(!layer.title().is_empty() && !layer.decides().is_empty());
        }
        for p in PAGES {
            let info = p.entry().info;
            assert_eq!(
                p.player().is_some(),
                info.player.is_some(),
                "{}: a page has a player exactly when its lab is a player",
                info.id
            );
        }
    }
}
