//! Guided tours: the reference article's argument as short steps through the
//! labs (why LLM traffic is different → routing rules → stale signals →
//! prefix affinity → batching). A tour is data: each [`Stop`] is a lab state
//! (a link), a sentence or two, at most one control revealed, and the motion
//! stage first. The last stop of every tour is the playground: the full lab,
//! every control open. `?tour=<id>&stop=<n>` opens a stop (`n` from 1), and
//! every stop opens in the full lab from its own link.

#[cfg(test)]
mod check;
mod data;
pub mod measure;
pub mod page;

pub use data::TOURS;

/// One step of a tour.
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    /// A few words naming the step.
    pub title: &'static str,
    /// The lab state, as a query without its `?` (`lab=…&…`).
    pub link: &'static str,
    /// One or two sentences: what to look at.
    pub words: &'static str,
    /// The one control the reader may move here, if any.
    pub reveal: Option<&'static str>,
    /// The step's figure when it is not the lab's stage (or, for a lab
    /// without a player, its chart): `table` where the point is a
    /// comparison over whole runs that the stage would only repeat.
    pub figure: Option<&'static str>,
    /// Panels shown beside the stage (`cards`, `chart`, `table`).
    pub also: &'static [&'static str],
    /// Whether the player starts playing (not when motion is unwanted).
    pub play: bool,
    /// The playground: the whole lab, every control, nothing locked.
    pub playground: bool,
    /// The fact the words rely on, checked against the step's own run by a
    /// native test (`check.rs`): every step but the playground states one,
    /// so words and figure cannot drift apart unnoticed.
    pub claim: Option<Claim>,
}

/// A checkable fact about what a step shows: its run, read at the step the
/// player opens on. Data only; the tours' test measures each against the
/// step's own outcome and prints the figure it found. "Focus" is the item
/// the link puts in focus, "beside" its side-by-side partner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Claim {
    /// Routing: up to the shown tick the focus rule sent request after
    /// request to the replicas in turn (1, 2, 3, 4, 1, …).
    InTurn,
    /// Routing: at the shown tick the focus rule sent a request to a replica
    /// holding at least `times` times the requests of the lightest one.
    PastLighter {
        /// How many times the lightest replica's load.
        times: u32,
    },
    /// Routing: as [`Claim::PastLighter`], and over the run the focus rule
    /// serves a larger share of prompt tokens from cache than the rule
    /// beside.
    CacheAndPile {
        /// How many times the lightest replica's load.
        times: u32,
    },
    /// Routing: at the shown tick the two rules sent the same request to
    /// different replicas.
    RulesPart,
    /// Routing: at the shown tick the rule beside has requests waiting on
    /// one replica while another has none, and the focus rule has none
    /// waiting at all.
    QueueOnlyBeside,
    /// Knee: the load usable at the wait asked for falls as the variation of
    /// service times rises, curve after curve.
    VariationShrinksLoad,
    /// Herding: at the shown tick every router's numbers are the same age,
    /// older than this tick.
    SameOldNumbers,
    /// Herding: at the shown tick one replica holds `load` requests, piled
    /// there by every router from the same stale numbers.
    Pile {
        /// The pile's requests.
        load: u32,
    },
    /// Herding: at the shown tick the busiest replica holds at most `most`
    /// requests and no pile has formed so far.
    NoPile {
        /// The busiest replica's requests, at most.
        most: u32,
    },
    /// Herding: at the shown tick two routers sent requests to different
    /// replicas.
    RoutersDiffer,
    /// Prefix: over the run the prefix-aware router prefills fewer tokens
    /// than the load-only one.
    PrefixSaves,
    /// Prefix: the load-only router missed the shown request's cache while
    /// another replica held its prefix.
    HotMiss,
    /// Prefix: the prefix-aware router sent the shown request away from the
    /// replica holding its prefix.
    LetsGo,
    /// Batching: in the focus mode, a request is admitted only into an
    /// engine with every slot empty.
    AdmitsOnlyEmpty,
    /// Batching: at the shown iteration a slot is empty while `waiting`
    /// requests wait.
    IdleSlot {
        /// Requests waiting.
        waiting: u32,
    },
    /// Batching: at the shown iteration a request is admitted into a freed
    /// slot and no token comes out.
    RefillStalls,
    /// Batching: at the shown iteration a prompt is prefilled while tokens
    /// come out, and no iteration of the run is without output.
    ChunksKeepFlowing,
    /// Disaggregation: colocated and split time per output token (P50) are
    /// within 1%, and the split's median first token is later.
    SplitCostsShort,
    /// Disaggregation: the split's TPOT P95 and mean latency are both below
    /// the colocated pool's.
    SplitWinsLong,
    /// Disaggregation: the split pays from a prompt length in `from..=to`.
    Crossover {
        /// The lowest crossover accepted, in tokens.
        from: u32,
        /// The highest, in tokens.
        to: u32,
    },
    /// Disaggregation: the split's mean latency is over a minute, and the
    /// prefill-load rule's within 1.5 times the colocated pool's.
    SplitOverwhelmed,
    /// Autoscaling: at the shown second the scaler orders a replica on its
    /// busy fraction while at most `used` percent of the slots are in use.
    OrdersHalfEmpty {
        /// Share of slots in use, at most, in percent.
        used: u32,
    },
    /// Autoscaling: at the shown second the scaler orders a replica that
    /// will take requests only after the cold start, half the surge.
    OrderWaitsCold,
    /// Autoscaling: the newest replica took every arrival since it became
    /// ready, filling every slot, while the others still hold requests
    /// waiting.
    FreshTakesAll,
    /// Autoscaling: the newest replica holds no request waiting and under
    /// half its slots while every other one holds requests waiting.
    FreshHeldBack,
    /// Agent sessions: at the shown second a fan-out went to one replica,
    /// leaving `waiting` calls waiting there and `free` slots free elsewhere.
    BurstOnOne {
        /// Calls waiting on the busiest replica.
        waiting: u32,
        /// Slots free on the others.
        free: u32,
    },
    /// Agent sessions: at the shown second a fan-out went to every
    /// replica, at most a quarter of it to one, and nothing waits.
    BurstSpread,
    /// Agent sessions: the focus key has the highest cache share and the
    /// slowest session P95 of every key.
    CacheButSlowest,
    /// Agent sessions: at the shown second the gateway holds `held` calls
    /// back, and other sessions' TTFT P95 is under `p95_s` seconds.
    CapHolds {
        /// Calls the gateway holds.
        held: u32,
        /// Other sessions' TTFT P95 bound, in seconds.
        p95_s: u32,
    },
    /// First token: retrying leaves no error (every failure before the
    /// first visible token is recovered unseen, where none recovers some),
    /// yet streams still break after it.
    RetryHidesEarly,
    /// First token: resuming from the text shown leaves no broken stream
    /// where retrying alone leaves some.
    ResumeSaves,
    /// First token: the focus strategy's hedges cost at least (`above`) or
    /// at most `pct`% of a whole answer each.
    HedgeCost {
        /// Whether `pct` is a floor (else a ceiling).
        above: bool,
        /// The bound, in percent of an answer.
        pct: u32,
    },
    /// Evaluate: the design in focus measures a smaller effect than the
    /// truth, with the same sign.
    CanaryUnderstates,
    /// Evaluate: a per-session canary keeps at least ten times the
    /// per-request canary's share of consecutive turns on the new rule.
    SessionKeepsTurns,
    /// Evaluate: the cold run finds a smaller advantage than the warmed one.
    ColdUnderstates,
    /// Evaluate: at some load the open loop misses the objective while the
    /// closed loop keeps 95% of first tokens in time.
    ClosedHides,
    /// Evaluate: the rate limit shortens the time goodput spends below the
    /// pool's own.
    LimitShortens,
    /// LoRA: under residency-only affinity the busiest replica takes at
    /// least 1.5 times the share the prefix twin's busiest takes.
    AdapterHotSpot,
    /// LoRA: llm-d's pipeline has a shorter TTFT P95 than both residency
    /// only and least load.
    PipelineBeatsBoth,
    /// LoRA: least load's mean-TTFT gap to prefix-aware routing at the
    /// fastest shared store is below a quarter of the gap without one.
    TierGapShrinks,
    /// Providers: spillover bills less per call than equal weights over the
    /// same deployments.
    SpillCheaper,
    /// Providers: the sweep's spill share is under 1% at its last point
    /// below 90% load and over 10% at its highest load.
    SpillRises,
    /// Providers: under simple shuffle 40–60% of follow-up turns change
    /// region, and fewer find their history than with the session pinned.
    RegionsScatter,
    /// Providers: the priority pool's metered backend serves nothing and
    /// clients see 429s.
    GroupTwoIdle,
}

impl Stop {
    /// A step showing the stage alone.
    pub const fn at(title: &'static str, link: &'static str, words: &'static str) -> Stop {
        Stop {
            title,
            link,
            words,
            reveal: None,
            figure: None,
            also: &[],
            play: false,
            playground: false,
            claim: None,
        }
    }

    /// With the fact its words rely on.
    pub const fn claims(mut self, claim: Claim) -> Stop {
        self.claim = Some(claim);
        self
    }

    /// With one control revealed.
    pub const fn reveal(mut self, key: &'static str) -> Stop {
        self.reveal = Some(key);
        self
    }

    /// With `panel` as its figure instead of the stage.
    pub const fn shows(mut self, panel: &'static str) -> Stop {
        self.figure = Some(panel);
        self
    }

    /// With more panels beside the stage.
    pub const fn also(mut self, panels: &'static [&'static str]) -> Stop {
        self.also = panels;
        self
    }

    /// Playing from the start.
    pub const fn playing(mut self) -> Stop {
        self.play = true;
        self
    }

    /// The tour's last step: the full lab.
    pub const fn playground(title: &'static str, link: &'static str, words: &'static str) -> Stop {
        let mut stop = Stop::at(title, link, words);
        stop.playground = true;
        stop
    }

    /// The lab this step shows (its `lab=` value).
    pub fn lab(&self) -> &'static str {
        self.pairs()
            .into_iter()
            .find(|(k, _)| *k == "lab")
            .map_or("", |(_, v)| v)
    }

    /// The link's pairs.
    pub fn pairs(&self) -> Vec<(&'static str, &'static str)> {
        self.link
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .collect()
    }

    /// The panels shown (`None`: all of them, the playground).
    pub fn panels(&self, player: bool) -> Option<Vec<String>> {
        if self.playground {
            return None;
        }
        let first = self
            .figure
            .unwrap_or(if player { "player" } else { "chart" });
        let mut out = vec![String::from(first)];
        out.extend(self.also.iter().map(|p| p.to_string()));
        if self.reveal.is_some() {
            out.push("controls".into());
        }
        Some(out)
    }
}

/// A guided path through one part of the argument.
#[derive(Debug)]
pub struct Tour {
    /// The `tour=` value.
    pub id: &'static str,
    /// Its title.
    pub title: &'static str,
    /// One line for the index.
    pub summary: &'static str,
    /// The steps, in order; the last is the playground.
    pub stops: &'static [Stop],
}

/// The tour called `id`.
pub fn find(id: &str) -> Option<&'static Tour> {
    TOURS.iter().find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::labs;

    /// Each tour's steps as text, for the golden file.
    fn describe() -> String {
        let mut out = String::new();
        for t in TOURS {
            out.push_str(&format!("tour {} — {}\n  {}\n", t.id, t.title, t.summary));
            for (i, s) in t.stops.iter().enumerate() {
                out.push_str(&format!(
                    "  {}. {}{}\n     ?{}\n     {}reveal: {} · also: {} · play: {}\n     claim: {}\n     {}\n",
                    i + 1,
                    s.title,
                    if s.playground { " (playground)" } else { "" },
                    s.link,
                    s.figure.map_or(String::new(), |f| format!("figure: {f} · ")),
                    s.reveal.unwrap_or("none"),
                    if s.also.is_empty() {
                        "none".to_string()
                    } else {
                        s.also.join(", ")
                    },
                    s.play,
                    s.claim.map_or("none".to_string(), |c| format!("{c:?}")),
                    s.words
                ));
            }
        }
        out
    }

    /// Every step is a lab state the registry accepts whole: a registered
    /// lab, every key one of its parameters (or its focus, `vs`, `step`),
    /// every value valid; the revealed control is one of its keys; the
    /// words are one or two sentences; the last step is the playground and
    /// only the last.
    #[test]
    fn every_stop_is_a_valid_lab_state() {
        assert!(TOURS.len() >= 5);
        let order: Vec<&str> = TOURS.iter().map(|t| t.id).collect();
        assert_eq!(
            order,
            [
                "why",
                "routing",
                "herding",
                "prefix",
                "batching",
                "split",
                "scaling",
                "sessions",
                "first-token",
                "evaluate",
                "providers"
            ]
        );
        for t in TOURS {
            assert!(find(t.id).is_some());
            let (last, rest) = t.stops.split_last().expect("a tour has steps");
            assert!(last.playground, "{}: ends in the playground", t.id);
            assert!(rest.iter().all(|s| !s.playground), "{}", t.id);
            assert!(
                rest.len() >= 2,
                "{}: a tour has steps before its playground",
                t.id
            );
            for s in t.stops {
                let lab = labs::find(s.lab()).unwrap_or_else(|| panic!("{}: {}", t.id, s.link));
                let params: Vec<&str> = (lab.params)().iter().map(|p| p.key).collect();
                let focus = lab.focus.map(|f| f.key);
                let mut lab_pairs = Vec::new();
                for (k, v) in s.pairs() {
                    match k {
                        "lab" => {}
                        "vs" | "step" => assert!(lab.info.player.is_some(), "{}: {k}", s.link),
                        _ if Some(k) == focus => {
                            let options = lab.focus.map(|f| (f.options)()).unwrap_or_default();
                            assert!(options.iter().any(|o| o.name == v), "{}: {k}={v}", s.link);
                        }
                        _ => {
                            assert!(
                                params.contains(&k),
                                "{}: {k} is not a key of {}",
                                s.link,
                                s.lab()
                            );
                            lab_pairs.push((k, v));
                        }
                    }
                }
                (lab.canonical)(&lab_pairs).unwrap_or_else(|e| panic!("{}: {e:?}", s.link));
                if let Some(key) = s.reveal {
                    assert!(
                        params.contains(&key) || Some(key) == focus,
                        "{}: reveal {key}",
                        s.link
                    );
                }
                let sentences = s.words.matches(". ").count() + 1;
                assert!(
                    (1..=2).contains(&sentences) && s.words.len() <= 320,
                    "{}: {} sentences, {} characters",
                    s.link,
                    sentences,
                    s.words.len()
                );
                assert!(s
                    .also
                    .iter()
                    .chain(&s.figure)
                    .all(|p| ["cards", "chart", "table"].contains(p)));
            }
        }
    }

    /// The tours' steps, checked in like the labs' reports.
    #[test]
    fn tours_match_their_golden() {
        let got = describe();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden/tours.txt");
        let want = std::fs::read_to_string(path).unwrap_or_default();
        if got != want {
            let changed = path.replace(".txt", "-changed.txt");
            std::fs::write(&changed, &got).expect("write the changed file");
            panic!("the tours changed: review {changed} and copy it over {path}");
        }
    }
}
