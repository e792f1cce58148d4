//! The corners of a lab's parameter space: every numeric parameter at its
//! minimum and at its maximum with the rest at their defaults, then all of
//! them at their minima together and all at their maxima together (switches
//! on). The work bound ([`super::work`]) promises that each corner either
//! runs within the limit or is refused before it starts; the corner-sweep
//! test and `lblab bench` walk these to hold it to that.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::params::{real_text, Shape, Spec};

/// One point of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Corner {
    /// What it is, e.g. `"rate=max"`, `"all at max"`.
    pub name: String,
    /// The parameters it sets (the others keep their defaults).
    pub pairs: Vec<(&'static str, String)>,
}

impl Corner {
    /// The pairs as borrowed `(key, text)`, as a run request takes them.
    pub fn borrowed(&self) -> Vec<(&str, &str)> {
        self.pairs.iter().map(|(k, v)| (*k, v.as_str())).collect()
    }

    /// The corner as CLI flags (`--key=value …`).
    pub fn flags(&self) -> String {
        let flags: Vec<String> = self
            .pairs
            .iter()
            .map(|(k, v)| format!("--{k}={v}"))
            .collect();
        flags.join(" ")
    }
}

/// The ends of one parameter's range as text, smallest first (`None` for a
/// parameter without a numeric range). "Unlimited" counts as the top end.
fn ends(spec: &Spec) -> Option<(String, String)> {
    match spec.shape {
        Shape::Real { min, max, .. } => Some((real_text(min), real_text(max))),
        Shape::Whole { min, max, .. } => Some((format!("{min}"), format!("{max}"))),
        Shape::WholeOrInf { min, .. } => Some((format!("{min}"), String::from("inf"))),
        Shape::Switch => Some((String::from("0"), String::from("1"))),
        _ => None,
    }
}

/// Every corner of `specs` (the seed is left alone).
pub fn corners(specs: &[Spec]) -> Vec<Corner> {
    let mut out = Vec::new();
    let (mut lows, mut highs) = (Vec::new(), Vec::new());
    for spec in specs {
        let Some((lo, hi)) = ends(spec) else {
            continue;
        };
        // A finite top end below "unlimited" is a corner of its own.
        if let Shape::WholeOrInf { max, .. } = spec.shape {
            out.push(Corner {
                name: format!("{}={max}", spec.key),
                pairs: alloc::vec![(spec.key, format!("{max}"))],
            });
        }
        for (end, text) in [("min", &lo), ("max", &hi)] {
            if *text != spec.default {
                out.push(Corner {
                    name: format!("{}={end}", spec.key),
                    pairs: alloc::vec![(spec.key, text.clone())],
                });
            }
        }
        lows.push((spec.key, lo));
        highs.push((spec.key, hi));
    }
    out.push(Corner {
        name: String::from("all at min"),
        pairs: lows,
    });
    out.push(Corner {
        name: String::from("all at max"),
        pairs: highs,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::LABS;

    #[test]
    fn every_numeric_parameter_has_both_ends() {
        for lab in LABS {
            let specs = (lab.params)();
            let corners = corners(&specs);
            for spec in specs.iter().filter(|s| ends(s).is_some()) {
                let (lo, hi) = ends(spec).expect("numeric");
                for end in [lo, hi] {
                    let named = corners
                        .iter()
                        .any(|c| c.pairs.len() == 1 && c.pairs[0] == (spec.key, end.clone()));
                    assert!(
                        named || end == spec.default,
                        "{}: no corner {}={end}",
                        lab.info.id,
                        spec.key
                    );
                }
            }
            let all = &corners[corners.len() - 2..];
            assert_eq!(all[0].name, "all at min");
            assert_eq!(all[1].name, "all at max");
        }
    }
}
