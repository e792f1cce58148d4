//! The tours' steps opened as the page opens them, natively: the link's
//! pairs through the page's own readers, the run through the worker's
//! server, the step the player shows.

use sim_core::labs::serve::{Answer, Server};

use super::measure::read;
use super::{Stop, TOURS};
use crate::page::live::{pieces, Piece};
use crate::page::state::{opening_step, read_items, read_wanted_step, recorded, OPENING};
use crate::page::{Shared, Snap, Step};
use crate::platform::worker::Job;

/// One step opened: its lab's page, configuration, run, items and step.
pub struct Opened {
    /// The configuration the link describes.
    pub config: Shared,
    /// Its run, decoded as the page decodes the worker's answer.
    pub outcome: Shared,
    /// The item in focus.
    pub focus: Option<usize>,
    /// The side-by-side item.
    pub vs: Option<usize>,
    /// The player's step the page shows (0-based).
    pub step: usize,
}

impl Opened {
    /// Run `f` on the snapshot the page shows.
    pub fn with<R>(&self, f: impl FnOnce(&Snap<'_>) -> R) -> R {
        let step = self.step;
        let snap = Snap {
            config: &self.config,
            outcome: &self.outcome,
            focus: self.focus,
            vs: self.vs,
            pickable: true,
            step: Step(&|| step),
        };
        f(&snap)
    }
}

/// Open `stop` as the page would.
pub fn open(stop: &Stop) -> Opened {
    let page = crate::labs::page(stop.lab()).expect("a lab with a page");
    let pairs: Vec<(String, String)> = stop
        .pairs()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut notices = Vec::new();
    let config = page.read_config(&pairs, &mut notices);
    let (focus, vs) = read_items(page, &pairs, &mut notices);
    let wanted = read_wanted_step(page.entry(), &pairs, &mut notices);
    assert!(notices.is_empty(), "{}: {notices:?}", stop.link);
    let job = Job {
        lab: page.entry().info.id,
        pairs: page.all_pairs(&config),
        only: Vec::new(),
        trace: None,
        record: recorded(page, focus, vs),
    };
    let mut bytes = None;
    Server::new().answer(&job.ask(), &|| 0.0, &mut |a| match a {
        Answer::Done { bytes: b, .. } => bytes = Some(b),
        Answer::Failed { why, .. } => panic!("{}: {why}", stop.link),
        _ => {}
    });
    let outcome = page
        .decode(&bytes.expect("an outcome"), &config)
        .expect("decodes");
    let mut opened = Opened {
        config,
        outcome,
        focus,
        vs,
        step: 0,
    };
    let wanted = match wanted {
        OPENING => opened.with(|s| opening_step(page, s)),
        w => w,
    };
    let len = opened.with(|s| page.player_len(s));
    opened.step = if len == 0 {
        wanted
    } else {
        wanted.min(len - 1)
    };
    opened
}

/// Every step's claim, measured on the step's own run: every step but the
/// playground has one, and it holds; the numbers in its words are the ones
/// the run reads. One line per step says what was measured.
#[test]
fn every_step_claim_holds_on_its_own_run() {
    let mut failed = Vec::new();
    for t in TOURS {
        for (i, s) in t.stops.iter().enumerate() {
            if s.playground {
                continue;
            }
            let Some(claim) = s.claim else {
                failed.push(format!("{} {}: no claim", t.id, i + 1));
                continue;
            };
            let o = open(s);
            let Some(r) = o.with(|snap| read(claim, snap)) else {
                failed.push(format!("{} {}: {claim:?} cannot be read", t.id, i + 1));
                continue;
            };
            println!("{} {}: {}", t.id, i + 1, r.figure);
            if !r.holds {
                failed.push(format!(
                    "{} {} ({claim:?}) does not hold: {}",
                    t.id,
                    i + 1,
                    r.figure
                ));
            }
            // The sentence's numbers are the run's: as many slots as the
            // claim reads, each written as the step's own run reads it.
            let written: Vec<&str> = pieces(s.words)
                .into_iter()
                .filter_map(|p| match p {
                    Piece::Slot(_, t) => Some(t),
                    Piece::Text(_) => None,
                })
                .collect();
            let read: Vec<&str> = r.live.iter().map(|l| l.text.as_str()).collect();
            if written != read {
                failed.push(format!(
                    "{} {}: the words say {written:?}, the run reads {read:?}",
                    t.id,
                    i + 1
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
