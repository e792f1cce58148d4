//! One page description per lab (see `crate::page`): what each page shows,
//! as data and small functions of the lab's typed state. Which labs exist is
//! sim-core's registry (`sim_core::labs::LABS`); [`PAGES`] lists each lab's
//! description in the same order, and a test fails when the two differ.

pub mod batching;
pub mod goodput;
pub mod herding;
pub mod prefix;
pub mod queueing;
pub mod routing;

use crate::page::AnyPage;

/// Every lab's page, in the registry's order.
pub static PAGES: &[&dyn AnyPage] = &[
    &routing::PAGE,
    &goodput::PAGE,
    &herding::PAGE,
    &prefix::PAGE,
    &batching::PAGE,
    &queueing::knee::PAGE,
    &queueing::little::PAGE,
    &queueing::retries::PAGE,
    &queueing::hedging::PAGE,
    &queueing::cascade::PAGE,
];

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

/// Every chart of every page, drawn natively at its lab's defaults and
/// compared with a checked-in SVG (`tests/golden/charts/`), as the labs'
/// text reports are. A chart that changes on purpose writes
/// `<lab>-<chart>-changed.svg` beside its golden for review.
#[cfg(test)]
mod chart_goldens {
    use super::PAGES;
    use plotters::prelude::{IntoDrawingArea, SVGBackend};
    use std::path::PathBuf;

    fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/charts")
    }

    #[test]
    fn every_chart_matches_its_golden() {
        let mut mismatched = Vec::new();
        let mut drawn = 0;
        for page in PAGES {
            let id = page.entry().info.id;
            for (chart, spec) in page.default_charts() {
                let name = format!("{id}-{chart}");
                // A chart with nothing to show at the defaults (the second
                // rule side by side) is drawn as nothing.
                let mut svg = String::new();
                if let Some(spec) = spec {
                    let root = SVGBackend::with_string(&mut svg, (640, 300)).into_drawing_area();
                    crate::charts::draw(root, &spec, &crate::theme::ChartTheme::default())
                        .expect("draws");
                }
                drawn += 1;
                let path = dir().join(format!("{name}.svg"));
                let changed = dir().join(format!("{name}-changed.svg"));
                match std::fs::read_to_string(&path) {
                    Ok(golden) if golden == svg => {
                        let _ = std::fs::remove_file(&changed);
                    }
                    _ => {
                        std::fs::create_dir_all(dir()).expect("golden folder");
                        std::fs::write(&changed, &svg).expect("write -changed file");
                        mismatched.push(name);
                    }
                }
            }
        }
        assert!(drawn >= 14, "only {drawn} charts");
        assert!(
            mismatched.is_empty(),
            "charts differ from their goldens (review tests/golden/charts/*-changed.svg, then copy over): {mismatched:?}"
        );
    }
}
