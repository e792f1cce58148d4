//! The simulation worker hands every outcome to the page in postcard
//! (`labs::encode`), without its configuration (the page holds it and puts
//! it back, `Lab::config_mut`); the page reads it back typed
//! (`labs::decode`). postcard is positional, so a field skipped when
//! serialising would shift every field after it: this checks, for every
//! registered lab, that the outcome the page reads is the CLI's, value for
//! value, and that an export (`RunEntry::export`, the worker running the
//! job again) writes the CLI's JSON and CSV.

use sim_core::labs::{self, RunRequest, LABS};

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
        let entry = labs::runner(id).expect("registered");
        let text = labs::text(id).expect("every lab has a text side");
        let written = (entry.run)(&RunRequest::of(pairs)).expect("runs");
        // Decoded as the lab's outcome type (as the page reads it) and
        // written as JSON: a field out of step would show here.
        let json = (text.reread)(&written.bytes, pairs).expect("decodes");
        let cli = (text.run)(&RunRequest::of(pairs), labs::Format::Json).expect("runs");
        let cli: serde_json::Value = serde_json::from_str(&cli).expect("json");
        let page: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(page, cli, "{id} {pairs:?}");
        // The page's exports are the CLI's JSON and CSV, byte for byte.
        let export = (entry.export)(&RunRequest::of(pairs), false).expect("runs");
        let cli_json = (text.run)(&RunRequest::of(pairs), labs::Format::Json).expect("runs");
        assert_eq!(export, cli_json, "{id} {pairs:?}");
        let csv = (entry.export)(&RunRequest::of(pairs), true).expect("runs");
        let cli_csv = (text.run)(&RunRequest::of(pairs), labs::Format::Csv).expect("runs");
        assert_eq!(csv, cli_csv, "{id} {pairs:?}");
        println!(
            "{id}: {} bytes encoded, {} of JSON",
            written.bytes.len(),
            json.len()
        );
    }
}

#[test]
fn the_routing_timeline_reads_back() {
    let entry = labs::runner("routing").expect("registered");
    let text = labs::text("routing").expect("registered");
    // The page's run: every rule, two of them recorded for the player.
    let written = (entry.run)(&RunRequest {
        record: &["round-robin", "least-outstanding"],
        ..RunRequest::of(&[])
    })
    .expect("runs");
    // The recording reaches the page in the bytes, and stays out of the
    // JSON, which equals the CLI's run of the same settings.
    let json = (text.reread)(&written.bytes, &[]).expect("decodes");
    let cli = (text.run)(&RunRequest::of(&[]), labs::Format::Json).expect("runs");
    let cli: serde_json::Value = serde_json::from_str(&cli).expect("json");
    let export: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(export, cli);
    assert!(export["timeline"].is_null());
    let outcome: labs::routing::Outcome = labs::decode(&written.bytes).expect("decodes");
    let t = outcome.timeline.as_ref().expect("recorded");
    assert_eq!(t.rules.len(), 2);
    println!(
        "timeline: {} bytes for {} ticks of two rules",
        written.bytes.len(),
        t.len()
    );
}

/// Bytes that are not an outcome of the lab are an error, never a panic.
#[test]
fn bytes_that_are_not_an_outcome_are_refused() {
    let text = labs::text("knee").expect("registered");
    assert!((text.reread)(&[], &[]).is_err());
    assert!((text.reread)(&[0xff; 7], &[]).is_err());
    assert!(labs::decode::<labs::routing::Outcome>(&[1, 2, 3]).is_err());
}

/// The configuration stays out of the page's bytes: they are smaller than
/// the same outcome with it, and the page gets it back from what it sent.
#[test]
fn the_configuration_stays_out_of_the_pages_bytes() {
    let entry = labs::runner("routing").expect("registered");
    let written = (entry.run)(&RunRequest::of(&[("replicas", "7")])).expect("runs");
    let outcome: labs::routing::Outcome = labs::decode(&written.bytes).expect("decodes");
    assert_eq!(
        outcome.config,
        labs::routing::Config::default(),
        "not in the bytes"
    );
    let text = labs::text("routing").expect("registered");
    let json = (text.reread)(&written.bytes, &[("replicas", "7")]).expect("decodes");
    let json: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(json["config"]["replicas"], 7, "put back as the page does");
}
