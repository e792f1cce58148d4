//! Checks over every lab's page description: comparison columns star the
//! better side, and every chart matches its checked-in golden. Kept beside
//! the descriptions rather than among them.

/// Every comparison column of every lab says which way is better, and its
/// star lands on that side: the walk covers each column with its better
/// value first and last, larger and smaller.
mod columns {
    use crate::ui::table::{best_mask, directions};

    /// Every starred column of every lab: (lab, title, larger is better).
    fn all() -> Vec<(&'static str, &'static str, bool)> {
        let mut out = Vec::new();
        let mut add = |lab: &'static str, cols: Vec<(&'static str, bool)>| {
            out.extend(cols.into_iter().map(|(t, h)| (lab, t, h)));
        };
        add("routing", directions(crate::labs::routing::tables::COLUMNS));
        add(
            "routing (ms)",
            directions(crate::labs::routing::tables::MS_COLUMNS),
        );
        add("batching", directions(&crate::labs::batching::COLS));
        add("admission", directions(&crate::labs::admission::COLS));
        add("fairness", directions(&crate::labs::fairness::COLS));
        add("autoscale", directions(&crate::labs::autoscale::COLS));
        add("disagg", directions(&crate::labs::disagg::COLS));
        add("agents", directions(&crate::labs::agents::COLS));
        add("herding", directions(&crate::labs::herding::COLS));
        add("providers", directions(&crate::labs::providers::COLS));
        use crate::labs::queueing::hedging::{COLUMNS, HIGHER};
        add(
            "hedging",
            COLUMNS.iter().zip(HIGHER).map(|(c, h)| (c.0, h)).collect(),
        );
        out
    }

    /// What each column's better side is, decided by reading what it
    /// measures (reviewed by hand, not derived from the code under test).
    const EXPECTED: &[(&str, bool)] = &[
        ("TTFT median", false),
        ("TTFT P95", false),
        ("E2E P95", false),
        ("SLO met", true),
        ("From cache", true),
        ("Assignment gap", false),
        ("Throughput", true),
        ("Iterations so far", false),
        ("Finished so far", true),
        ("Zero-output iterations", false),
        ("Slot occupancy", true),
        ("Iterations per token", false),
        ("Peak skew", false),
        ("Mean skew", false),
        ("Oscillation", false),
        ("Pile-up share", false),
        ("P50 (ms)", false),
        ("P95 (ms)", false),
        ("P99 (ms)", false),
        ("Extra requests", false),
        ("Extra GPU work", false),
        ("Goodput", true),
        ("Refused", false),
        ("Dropped", false),
        ("Failed", false),
        ("Wait P95", false),
        ("Wasted work", false),
        ("Service spread", false),
        ("Chat TTFT P95", false),
        ("Worst TTFT P95", false),
        ("Cache share", true),
        ("Session P50", false),
        ("Session P95", false),
        ("Others' TTFT P95", false),
        ("Burst queue", false),
        ("Preempted", false),
        ("Surge TTFT P95", false),
        ("Within SLO", true),
        ("Replica time", false),
        ("Peak", false),
        ("Late", false),
        ("TTFT P50 (ms)", false),
        ("TTFT P95 (ms)", false),
        ("TPOT P50 (ms)", false),
        ("TPOT P95 (ms)", false),
        ("Mean latency (ms)", false),
        ("TPOT mean", false),
        ("Per hedge", false),
        ("ITL mean", false),
        ("$/1k calls", false),
        ("Cache hits", true),
        ("Split", false),
        // Neither side is better in itself; the column's meaning says the
        // star goes to the lowest share.
        ("Spill", false),
        ("429s seen", false),
        ("TTFT P99", false),
    ];

    #[test]
    fn every_column_stars_its_better_side() {
        let show: fn(f64) -> String = |x| format!("{x}");
        let cols = all();
        assert!(cols.len() >= 28, "{} columns", cols.len());
        let (mut larger, mut smaller) = (0, 0);
        for (lab, title, higher) in cols {
            let expected = EXPECTED
                .iter()
                .find(|(t, _)| *t == title)
                .unwrap_or_else(|| panic!("{lab}: say which way “{title}” is better"))
                .1;
            assert_eq!(higher, expected, "{lab}: “{title}”");
            // The better value first, then last; larger, then smaller.
            let (good, bad) = if expected { (2.0, 1.0) } else { (1.0, 2.0) };
            assert_eq!(
                best_mask(&[good, bad], higher, show),
                [true, false],
                "{lab}: {title}"
            );
            assert_eq!(
                best_mask(&[bad, good, bad], higher, show),
                [false, true, false]
            );
            if expected {
                larger += 1;
            } else {
                smaller += 1;
            }
        }
        assert!(larger > 0 && smaller > 0, "both directions walked");
    }
}

/// Every chart of every page, drawn natively at its lab's defaults and
/// compared with a checked-in SVG (`tests/golden/charts/`), as the labs'
/// text reports are. A chart that changes on purpose writes
/// `<lab>-<chart>-changed.svg` beside its golden for review.
mod chart_goldens {
    use crate::labs::PAGES;
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
                    crate::ui::plot::draw(root, &spec, &crate::ui::theme::ChartTheme::default())
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
