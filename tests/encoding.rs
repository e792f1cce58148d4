//! The worker hands every outcome to the page as the values stream of the
//! `sim_core::wire` format (`wire::encode_values`): the page reads it back
//! typed with `decode`, and an export writes that decoded outcome again
//! with its shape and turns it into JSON (`wire::json_of`). A field skipped
//! when serialising would shift every field after it, so this checks, for
//! every registered lab, that what the page decodes serialises to exactly
//! the export's JSON, and that this JSON is the CLI's, byte for byte.

use sim_core::labs::{self, RunRequest, LABS};
use sim_core::wire::to_json;

/// Every lab at its defaults, and the settings that fill optional parts of
/// an outcome (counterfactuals, speeds, a scale-up replica).
#[test]
fn every_lab_reads_back_exactly_what_the_worker_wrote() {
    let extra: &[(&str, &[(&str, &str)])] = &[
        ("routing", &[("counterfactuals", "1"), ("requests", "40")]),
        ("routing", &[("speeds", "1,2"), ("scale-up-at", "50")]),
        ("goodput", &[("sweep-points", "3"), ("requests", "40")]),
    ];
    let runs = LABS
        .iter()
        .map(|l| (l.info.id, &[][..]))
        .chain(extra.iter().copied());
    for (id, pairs) in runs {
        let entry = labs::find(id).expect("registered");
        let text = labs::text(id).expect("every lab has a text side");
        let written = (entry.run)(&RunRequest::of(pairs)).expect("runs");
        let json = (text.export)(&written.bytes).expect("decodes");
        let back = (text.reencode)(&written.bytes).expect("decodes");
        assert_eq!(back, json, "{id} {pairs:?}");
        // The page's export is the CLI's JSON (serde_json), value for value
        // (and byte for byte `serde_json::to_string`, by the line above).
        let cli = (text.run)(&RunRequest::of(pairs), labs::Format::Json).expect("runs");
        let cli: serde_json::Value = serde_json::from_str(&cli).expect("json");
        let page: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(page, cli, "{id} {pairs:?}");
        println!(
            "{id}: {} bytes encoded, {} of JSON",
            written.bytes.len(),
            json.len()
        );
    }
}

#[test]
fn the_routing_timeline_reads_back() {
    let entry = labs::find("routing").expect("registered");
    let text = labs::text("routing").expect("registered");
    // The page's run: every rule, two of them recorded for the player.
    let written = (entry.run)(&RunRequest {
        record: &["round-robin", "least-outstanding"],
        ..RunRequest::of(&[])
    })
    .expect("runs");
    // The worker sends the values alone: no shape to write JSON from.
    assert!(to_json(&written.bytes).is_err());
    let json = (text.export)(&written.bytes).expect("decodes");
    let back = (text.reencode)(&written.bytes).expect("decodes");
    assert_eq!(back, json, "the run reads back exactly");
    // The recording reaches the page in the bytes, and stays out of the
    // JSON export, which equals the CLI's run of the same settings.
    let cli = (text.run)(&RunRequest::of(&[]), labs::Format::Json).expect("runs");
    let cli: serde_json::Value = serde_json::from_str(&cli).expect("json");
    let export: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(export, cli);
    let outcome: labs::routing::Outcome = labs::decode(&written.bytes).expect("decodes");
    let t = outcome.timeline.as_ref().expect("recorded");
    assert_eq!(t.rules.len(), 2);
    println!(
        "timeline: {} bytes for {} ticks of two rules",
        written.bytes.len(),
        t.len()
    );
}
