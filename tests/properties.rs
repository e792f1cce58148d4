//! Properties every lab holds at any setting in range, checked over seeded
//! random configurations and over the corners of each lab's parameter space:
//!
//! - a run returns an outcome or refuses with a typed error (a value that
//!   cannot be used, or work over the bound); it never panics;
//! - no outcome holds a NaN or an infinity (JSON would print both as `null`);
//! - every request is accounted for: arrived = finished + rejected +
//!   outstanding, for each population the lab reports ([`Lab::tally`]);
//! - the same configuration and seed give the same outcome, byte for byte.
//!
//! The random configurations come from our own seeded generator over each
//! parameter's declared range (log-uniform over wide ranges, so small and
//! large values both turn up), with a random subset of the lab's items and,
//! for labs that replay traces, now and then a bundled excerpt with random
//! import options. Timing is printed, never asserted.
//!
//! [`Lab::tally`]: sim_core::labs::Lab::tally

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use lblab_tests::{excerpt, note};
use sim_core::labs::corners::corners;
use sim_core::labs::{Checked, LabEntry, RunError, RunRequest, TextEntry, TraceInput, LABS, TEXTS};
use sim_core::params::{self, real_text, Shape, Spec};
use sim_core::rng::Rng;
use sim_core::workload::trace::{ImportOptions, ParsedTrace};

/// Random configurations per lab.
const PER_LAB: usize = 32;

/// A value in `[lo, hi]`: log-uniform when the range spans more than a
/// hundredfold (so that small settings are drawn as often as large ones).
fn draw(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    if lo > 0.0 && hi / lo > 100.0 {
        libm_exp(rng.uniform(lo.ln(), hi.ln()))
    } else if lo <= 0.0 && hi > 100.0 && rng.unit() < 0.7 {
        // From zero: mostly small, log-uniform from 1.
        libm_exp(rng.uniform(0.0, hi.ln())) - 1.0
    } else {
        rng.uniform(lo, hi)
    }
}

fn libm_exp(x: f64) -> f64 {
    x.exp()
}

/// A random valid text for `spec`.
fn value(rng: &mut Rng, spec: &Spec) -> String {
    match &spec.shape {
        Shape::Real { min, max, step } => {
            let x = draw(rng, *min, *max);
            let snapped = (min + ((x - min) / step).round() * step).clamp(*min, *max);
            // Nine decimals: no binary tail such as 0.060000000000000005.
            real_text((snapped * 1e9).round() / 1e9)
        }
        Shape::Whole { min, max, step } => {
            let x = draw(rng, *min as f64, *max as f64);
            let step = (*step).max(1);
            let snapped = min + ((x - *min as f64) / step as f64).round() as u64 * step;
            snapped.clamp(*min, *max).to_string()
        }
        Shape::WholeOrInf { min, max } => {
            if rng.unit() < 0.15 {
                String::from("inf")
            } else {
                let x = draw(rng, *min as f64, *max as f64);
                (x.round() as u64).clamp(*min, *max).to_string()
            }
        }
        Shape::Switch => String::from(if rng.unit() < 0.5 { "0" } else { "1" }),
        Shape::Choice(opts) => opts[rng.index(opts.len())].name.to_string(),
        Shape::Seed => rng.next_u64().to_string(),
        Shape::Text { examples, .. } => {
            let pick = rng.index(examples.len() + 1);
            examples
                .get(pick)
                .map_or_else(|| spec.default.clone(), |e| e.to_string())
        }
    }
}

/// A random configuration: each parameter of `specs` drawn at random with
/// chance `share`, the rest at their defaults. (Drawing every parameter at
/// once mostly breaks a rule between two of them, such as a minimum above a
/// maximum, and tests only the refusal.)
fn config(rng: &mut Rng, specs: &[Spec], share: f64) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for s in specs {
        if rng.unit() < share {
            out.push((s.key, value(rng, s)));
        }
    }
    ordered_pairs(specs, &mut out);
    out
}

/// Put every `x-min` / `x-max`, `x-from` / `x-to` and `x-from-rps` /
/// `x-to-rps` pair in order
/// (swapping the two values): the rule between parameters that a random
/// draw breaks most often.
fn ordered_pairs(specs: &[Spec], out: &mut Vec<(&'static str, String)>) {
    let value_of = |out: &[(&'static str, String)], key: &str| -> Option<String> {
        out.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .or_else(|| {
                specs
                    .iter()
                    .find(|s| s.key == key)
                    .map(|s| s.default.clone())
            })
    };
    let pairs = specs.iter().flat_map(|lo| {
        [("-min", "-max"), ("-from", "-to"), ("-from-rps", "-to-rps")]
            .into_iter()
            .filter_map(move |(a, b)| {
                let stem = lo.key.strip_suffix(a)?;
                let hi = specs.iter().find(|s| s.key.strip_suffix(b) == Some(stem))?;
                Some((lo, hi))
            })
    });
    for (lo, hi) in pairs {
        let (Some(a), Some(b)) = (value_of(out, lo.key), value_of(out, hi.key)) else {
            continue;
        };
        let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) else {
            continue;
        };
        if x > y {
            out.retain(|(k, _)| *k != lo.key && *k != hi.key);
            out.push((lo.key, b));
            out.push((hi.key, a));
        }
    }
}

/// A random subset of `names` (empty, meaning all, half the time).
fn subset(rng: &mut Rng, names: &[&'static str]) -> Vec<&'static str> {
    if names.is_empty() || rng.unit() < 0.5 {
        return Vec::new();
    }
    let picked: Vec<&'static str> = names.iter().copied().filter(|_| rng.unit() < 0.4).collect();
    if picked.is_empty() {
        vec![names[rng.index(names.len())]]
    } else {
        picked
    }
}

/// Parameter values by key.
type Pairs = Vec<(&'static str, String)>;

/// One run to try.
struct Case {
    pairs: Pairs,
    only: Vec<&'static str>,
    /// A trace: its name, its text and the import options.
    trace: Option<(String, String, Pairs)>,
}

impl Case {
    fn describe(&self, lab: &str) -> String {
        let flags: Vec<String> = self
            .pairs
            .iter()
            .map(|(k, v)| format!("--{k}={v}"))
            .collect();
        let mut s = format!("lblab {lab} {}", flags.join(" "));
        if !self.only.is_empty() {
            s.push_str(&format!(" (only {})", self.only.join(",")));
        }
        if let Some((name, _, import)) = &self.trace {
            let opts: Vec<String> = import.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(" --trace {name} ({})", opts.join(" ")));
        }
        s
    }

    /// Run the case once through the lab's checking entry.
    fn check(&self, text: &TextEntry) -> Result<Checked, RunError> {
        let pairs: Vec<(&str, &str)> = self.pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let import_pairs: Vec<(&str, &str)> = self
            .trace
            .as_ref()
            .map(|(_, _, p)| p.iter().map(|(k, v)| (*k, v.as_str())).collect())
            .unwrap_or_default();
        let (options, errors) = params::from_pairs::<ImportOptions>(import_pairs);
        assert!(
            errors.is_empty(),
            "generated import options are valid: {errors:?}"
        );
        let parsed = self
            .trace
            .as_ref()
            .map(|(_, text, _)| ParsedTrace::parse(text));
        let parsed = match parsed {
            Some(Ok(p)) => Some(p),
            Some(Err(e)) => return Err(RunError::Trace(e.0)),
            None => None,
        };
        let trace = parsed.as_ref().map(|parsed| TraceInput {
            parsed,
            options: &options,
        });
        (text.check)(&RunRequest {
            trace,
            only: &self.only,
            ..RunRequest::of(&pairs)
        })
    }
}

/// What running a case found (a failure message, or how it went).
enum Verdict {
    Ran {
        ms: f64,
    },
    /// Too big; the refusal's words (which name what would fit).
    Refused(String),
    Unusable,
}

/// The first fix a refusal names with a value ("to fit, set requests to 63
/// or less, …" gives `requests` and `63`; "counterfactuals off" gives `0`),
/// as a pair of `specs`' own key and its value; `None` when its first fix
/// names no value.
fn first_fix(refusal: &str, specs: &[Spec]) -> Option<(&'static str, String)> {
    let clause = refusal
        .split("to fit, set ")
        .nth(1)?
        .split(", or ")
        .next()?;
    let (key, value) = match clause.strip_suffix(" off") {
        Some(key) => (key, String::from("0")),
        None => {
            let (key, rest) = clause.split_once(" to ")?;
            let value = rest.split(' ').next()?.replace(',', "");
            (key, value)
        }
    };
    let spec = specs.iter().find(|s| s.key == key)?;
    Some((spec.key, value))
}

/// Run `case` twice, check the outcome, and say what happened; panics with
/// the case's command line on any broken property.
fn verify(lab: &LabEntry, text: &TextEntry, case: &Case) -> Verdict {
    let id = lab.info.id;
    let started = Instant::now();
    let first = catch_unwind(AssertUnwindSafe(|| case.check(text)))
        .unwrap_or_else(|_| panic!("panicked: {}", case.describe(id)));
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let checked = match first {
        Ok(c) => c,
        Err(RunError::TooMuch(w)) => {
            if std::env::var_os("LBLAB_SHOW_REFUSED").is_some() {
                note(&format!("too big ({w}): {}", case.describe(id)));
            }
            return Verdict::Refused(w);
        }
        Err(RunError::Param(e)) => {
            if std::env::var_os("LBLAB_SHOW_UNUSABLE").is_some() {
                note(&format!("unusable ({e}): {}", case.describe(id)));
            }
            return Verdict::Unusable;
        }
        // Import options that leave nothing of the excerpt (a window after
        // its end) are refused the same way.
        Err(RunError::Trace(_)) if case.trace.is_some() => return Verdict::Unusable,
        Err(e) => panic!("unexpected error {e}: {}", case.describe(id)),
    };
    assert!(
        checked.non_finite.is_empty(),
        "non-finite values {:?}: {}",
        checked.non_finite,
        case.describe(id)
    );
    for t in &checked.tallies {
        assert!(
            t.balances(),
            "requests not conserved in {}: arrived {} ≠ finished {} + rejected {} + outstanding {}: {}",
            t.what,
            t.arrived,
            t.finished,
            t.rejected,
            t.outstanding,
            case.describe(id)
        );
    }
    let again = case.check(text).expect("a second run of the same case");
    assert!(
        again.json == checked.json,
        "same seed, different outcome: {}",
        case.describe(id)
    );
    Verdict::Ran { ms }
}

/// The bundled excerpts a lab that replays traces may draw.
const EXCERPTS: &[&str] = &[
    "mooncake_conversation_first2000.jsonl",
    "mooncake_synthetic_first500.jsonl",
    "azure_code_first500.csv",
    "azure_conv_first500.csv",
];

fn labs() -> impl Iterator<Item = (&'static LabEntry, &'static TextEntry)> {
    LABS.iter()
        .zip(TEXTS.iter())
        .inspect(|(l, t)| assert_eq!(l.info.id, t.id))
}

#[test]
fn random_configs_of_every_lab_hold_the_properties() {
    let excerpts: Vec<(String, String)> = EXCERPTS
        .iter()
        .map(|n| {
            let text = std::fs::read_to_string(excerpt(n)).expect("bundled excerpt");
            (n.to_string(), text)
        })
        .collect();
    let import_specs = <ImportOptions as params::Configurable>::specs();
    for (lab, text) in labs() {
        let mut rng = Rng::new(23, 0x9e37);
        let specs = (lab.params)();
        let names: Vec<&'static str> = lab
            .focus
            .map(|f| (f.options)().iter().map(|o| o.name).collect())
            .unwrap_or_default();
        let (mut ran, mut refused, mut unusable, mut slowest) = (0, 0, 0, (0.0f64, String::new()));
        let mut fitted = 0;
        for _ in 0..PER_LAB {
            let trace = (lab.replays_traces && rng.unit() < 0.3).then(|| {
                let (name, body) = &excerpts[rng.index(excerpts.len())];
                (
                    name.clone(),
                    body.clone(),
                    config(&mut rng, &import_specs, 0.5),
                )
            });
            // A third of the parameters drawn, or all of them now and then.
            let share = if rng.unit() < 0.2 { 1.0 } else { 0.35 };
            let mut case = Case {
                pairs: config(&mut rng, &specs, share),
                only: subset(&mut rng, &names),
                trace,
            };
            let mut verdict = verify(lab, text, &case);
            // A refusal names what would fit: take its first advice and run
            // that (it must then run or say why not), so a lab whose
            // random draws are often too big still runs its share.
            if let Verdict::Refused(words) = &verdict {
                if let Some((key, value)) = first_fix(words, &specs) {
                    case.pairs.retain(|(k, _)| *k != key);
                    case.pairs.push((key, value));
                    verdict = verify(lab, text, &case);
                    if matches!(verdict, Verdict::Ran { .. }) {
                        fitted += 1;
                    }
                }
            }
            match verdict {
                Verdict::Ran { ms } => {
                    ran += 1;
                    if ms > slowest.0 {
                        slowest = (ms, case.describe(lab.info.id));
                    }
                }
                Verdict::Refused(_) => refused += 1,
                Verdict::Unusable => unusable += 1,
            }
        }
        note(&format!(
            "properties {:9} ran {ran} ({fitted} of them after the refusal's advice), refused as too big {refused}, refused as unusable {unusable}; slowest {:.0} ms: {}",
            lab.info.id, slowest.0, slowest.1
        ));
        // A generator that mostly makes refusals tests nothing.
        assert!(
            ran * 2 >= PER_LAB,
            "{}: only {ran} of {PER_LAB} random configurations ran",
            lab.info.id
        );
    }
}

#[test]
fn every_corner_runs_within_the_bound_or_is_refused() {
    let mut worst = (0.0f64, String::new());
    let mut total = (0, 0, 0);
    for (lab, text) in labs() {
        for corner in corners(&(lab.params)()) {
            let case = Case {
                pairs: corner.pairs.clone(),
                only: Vec::new(),
                trace: None,
            };
            match verify(lab, text, &case) {
                Verdict::Ran { ms } => {
                    total.0 += 1;
                    if ms > worst.0 {
                        worst = (
                            ms,
                            format!("{} ({})", case.describe(lab.info.id), corner.name),
                        );
                    }
                }
                Verdict::Refused(_) => total.1 += 1,
                // A corner can combine into a configuration the lab cannot
                // use (a window longer than the run); that is a refusal too.
                Verdict::Unusable => total.2 += 1,
            }
        }
    }
    note(&format!(
        "corner sweep: {} ran, {} refused as too big, {} refused as unusable; slowest {:.0} ms (this build): {}",
        total.0, total.1, total.2, worst.0, worst.1
    ));
    assert!(total.0 > total.1 + total.2, "most corners should run");
}
