//! The encoding reads back to the same value, and its JSON is `serde_json`'s.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{decode, encode, to_json};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
enum Shape {
    Empty,
    Wrapped(u32),
    Pair(i64, f32),
    #[serde(rename = "named-thing")]
    Named {
        a: Option<String>,
        b: Vec<(u8, bool)>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Unit;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Meters(f64);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Everything {
    small_int: i8,
    big: u64,
    negative: i64,
    ratio: f64,
    not_a_number: f64,
    letter: char,
    text: String,
    nothing: Option<u32>,
    shapes: Vec<Shape>,
    unit: Unit,
    meters: Meters,
    by_key: BTreeMap<u32, String>,
    nested: Vec<Vec<Shape>>,
    again: Vec<Everything>,
}

fn sample() -> Everything {
    let shapes = vec![
        Shape::Empty,
        Shape::Wrapped(7),
        Shape::Pair(-3, 0.1),
        Shape::Named {
            a: Some(String::from("é \"quoted\"\n")),
            b: vec![(1, true), (255, false)],
        },
        Shape::Named { a: None, b: vec![] },
    ];
    let mut by_key = BTreeMap::new();
    by_key.insert(3, String::from("three"));
    by_key.insert(300, String::from("three hundred"));
    Everything {
        small_int: -128,
        big: u64::MAX,
        negative: i64::MIN,
        ratio: 1.0 / 3.0,
        not_a_number: f64::NAN,
        letter: 'λ',
        text: String::from("tab\there"),
        nothing: None,
        shapes: shapes.clone(),
        unit: Unit,
        meters: Meters(1e21),
        by_key,
        nested: vec![shapes, vec![]],
        again: vec![Everything {
            not_a_number: 2.5,
            again: vec![],
            ..Everything {
                small_int: 0,
                big: 0,
                negative: 1,
                ratio: -0.0,
                not_a_number: 0.0,
                letter: 'a',
                text: String::new(),
                nothing: Some(4),
                shapes: vec![],
                unit: Unit,
                meters: Meters(0.5),
                by_key: BTreeMap::new(),
                nested: vec![],
                again: vec![],
            }
        }],
    }
}

#[test]
fn json_is_exactly_serde_json() {
    let v = sample();
    let bytes = encode(&v).expect("encodes");
    assert_eq!(
        to_json(&bytes).expect("walks"),
        serde_json::to_string(&v).expect("json")
    );
}

#[test]
fn reads_back_what_it_wrote() {
    let mut v = sample();
    let back: Everything = decode(&encode(&v).expect("encodes")).expect("decodes");
    // NaN is never equal to itself: compare it apart.
    assert!(back.not_a_number.is_nan());
    v.not_a_number = 0.0;
    let mut back = back;
    back.not_a_number = 0.0;
    assert_eq!(back, v);
}

#[test]
fn names_are_written_once() {
    let many: Vec<Everything> = (0..50).map(|_| sample()).collect();
    let one = encode(&sample()).expect("encodes").len();
    let all = encode(&many).expect("encodes").len();
    // The first copy writes every name; the other 49 refer to them.
    assert!(all < 50 * one * 3 / 4, "{all} bytes for 50, {one} for one");
}

#[test]
fn refuses_bad_input_without_panicking() {
    let bytes = encode(&sample()).expect("encodes");
    // The values come first (after their length): a cut inside them stops
    // both readers; a cut anywhere stops the JSON walk.
    let values = encode(&sample()).expect("encodes").len() / 3;
    for cut in [0, 1, values / 2] {
        assert!(decode::<Everything>(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
        assert!(to_json(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(to_json(&extra).is_err());
    assert!(decode::<Everything>(&[200]).is_err());
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct WithRecording {
    before: u32,
    #[serde(serialize_with = "super::page_only")]
    recording: Option<Vec<Shape>>,
    after: Shape,
}

#[test]
fn a_page_only_value_reaches_the_page_and_stays_out_of_json() {
    let v = WithRecording {
        before: 1,
        recording: Some(vec![Shape::Named {
            a: None,
            b: vec![(2, true)],
        }]),
        // Refers to the name "named-thing" first written inside the recording.
        after: Shape::Named { a: None, b: vec![] },
    };
    let bytes = encode(&v).expect("encodes");
    let back: WithRecording = decode(&bytes).expect("decodes");
    assert_eq!(back, v);
    assert_eq!(
        to_json(&bytes).expect("walks"),
        serde_json::to_string(&v).expect("json")
    );
    assert!(serde_json::to_string(&v)
        .expect("json")
        .contains("\"recording\":null"));
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Skips {
    first: u8,
    #[serde(skip_serializing_if = "is_unit")]
    empty: (),
    last: Shape,
}

fn is_unit(_: &()) -> bool {
    true
}

#[test]
fn a_skipped_empty_field_reads_back_and_stays_out_of_json() {
    let v = Skips {
        first: 9,
        empty: (),
        last: Shape::Pair(1, 2.0),
    };
    let bytes = encode(&v).expect("encodes");
    assert_eq!(decode::<Skips>(&bytes).expect("decodes"), v);
    assert_eq!(
        to_json(&bytes).expect("walks"),
        serde_json::to_string(&v).expect("json")
    );
}
