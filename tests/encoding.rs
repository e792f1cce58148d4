//! The worker hands every outcome to the page positionally encoded
//! (`sim_core::labs::encode`), and the page reads it back with `decode`. A
//! field skipped when serialising would shift every field after it, so this
//! checks, for every registered lab, that what the page decodes serialises
//! to exactly the JSON the CLI prints, and re-encodes to the same bytes.

use serde::de::DeserializeOwned;
use serde::Serialize;
use sim_core::labs::{self, decode, encode, Lab, RunRequest, LABS};

fn check<L: Lab>(pairs: &[(&str, &str)])
where
    L::Outcome: DeserializeOwned + Serialize,
{
    let entry = labs::find(L::INFO.id).expect("registered");
    let written = (entry.run)(&RunRequest::of(pairs)).expect("runs");
    let (json, bytes) = (written.json, written.bytes);
    let back: L::Outcome = decode(&bytes).expect("decodes");
    assert_eq!(
        serde_json::to_string(&back).expect("json"),
        json,
        "{}",
        L::INFO.id
    );
    assert_eq!(encode(&back).expect("encodes"), bytes, "{}", L::INFO.id);
    println!(
        "{}: {} bytes encoded, {} of JSON",
        L::INFO.id,
        bytes.len(),
        json.len()
    );
}

#[test]
fn every_lab_reads_back_exactly_what_the_worker_wrote() {
    use labs::queueing::{cascade, hedging, knee, little, retries};
    check::<labs::routing::RoutingLab>(&[("counterfactuals", "1"), ("requests", "40")]);
    check::<labs::routing::RoutingLab>(&[("speeds", "1,2"), ("scale-up-at", "50")]);
    check::<labs::goodput::GoodputLab>(&[("sweep-points", "3"), ("requests", "40")]);
    check::<labs::herding::HerdingLab>(&[]);
    check::<labs::prefix::PrefixLab>(&[]);
    check::<labs::batching::BatchingLab>(&[]);
    check::<knee::KneeLab>(&[]);
    check::<little::LittleLab>(&[]);
    check::<retries::RetriesLab>(&[]);
    check::<hedging::HedgingLab>(&[]);
    check::<cascade::CascadeLab>(&[]);
    assert_eq!(LABS.len(), 10, "a new lab needs a line here");
}

#[test]
fn the_routing_timeline_reads_back() {
    let entry = labs::find("routing").expect("registered");
    let written = (entry.run)(&RunRequest {
        only: &["round-robin", "least-outstanding"],
        record: true,
        ..RunRequest::of(&[])
    })
    .expect("runs");
    let back: labs::routing::Outcome = decode(&written.bytes).expect("decodes");
    let t = back.timeline.as_ref().expect("recorded");
    assert_eq!(t.rules.len(), 2);
    assert_eq!(
        serde_json::to_string(&back).expect("json"),
        written.json,
        "the timeline reads back exactly"
    );
    println!(
        "timeline: {} bytes for {} ticks of two rules",
        written.bytes.len(),
        t.len()
    );
}
