//! The herding lab's tick loop.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use super::outcome::{
    HerdMoment, Outcome, RouterView, RuleSummary, TickSnapshot, Timeline, Totals, PILE_FACTOR,
};
use super::{Config, HerdingRule};
use crate::choice::Choice;
use crate::params::{Configurable, ParamError};
use crate::rng::{stream, Rng};
use crate::routing::{Chooser, RouteContext, Router, RuleSettings, Ties};
use crate::time::Tick;
use crate::workload::Request;

/// Run every rule on the same arrivals.
pub fn run(config: &Config) -> Result<Outcome, ParamError> {
    run_rules(config, HerdingRule::ALL)
}

/// Run one rule.
pub fn run_rule(config: &Config, rule: HerdingRule) -> Result<Outcome, ParamError> {
    run_rules(config, &[rule])
}

/// Run the given rules on the same arrivals.
pub fn run_rules(config: &Config, rules: &[HerdingRule]) -> Result<Outcome, ParamError> {
    config.validate()?;
    let mut arrivals_rng = Rng::new(config.seed, stream::ARRIVALS);
    let arrivals: Vec<u32> = (0..config.ticks)
        .map(|t| {
            if config.even_arrivals {
                config.even_count(t)
            } else {
                arrivals_rng.poisson(config.arrival_rate)
            }
        })
        .collect();
    Ok(Outcome {
        config: config.clone(),
        rules: rules
            .iter()
            .map(|&r| simulate(config, &arrivals, r))
            .collect(),
        arrivals,
    })
}

struct RouterState {
    snapshot: Vec<u32>,
    taken_at: u32,
    own: Vec<u32>,
}

fn simulate(config: &Config, arrivals: &[u32], rule: HerdingRule) -> RuleSummary {
    let n = config.replicas as usize;
    let k = config.routers as usize;
    // One decision stream, read in arrival order across all routers and shared
    // by every rule's run: rules differ only in logic, and in-phase stale
    // least-outstanding makes the same choices whatever the router count.
    let mut rng = Rng::new(config.seed, stream::TIE_BREAKS);
    let mut selector = rule.rule().build(&RuleSettings::default());
    // Herding requests carry no prompt: only the count matters.
    let request = Request {
        adapter: 0,
        arrival: Tick::ZERO,
        prompt_tokens: 1,
        output_tokens: 1,
        blocks: Vec::new(),
        long: false,
    };
    let mut views = Vec::with_capacity(n);
    let mut routers: Vec<RouterState> = (0..k)
        .map(|_| RouterState {
            snapshot: vec![0; n],
            taken_at: 0,
            own: vec![0; n],
        })
        .collect();
    let mut outstanding = vec![0u32; n];
    // (finish tick, replica) in dispatch order; finish ticks are non-decreasing.
    let mut in_flight: VecDeque<(u32, usize)> = VecDeque::new();
    let mut next_router = 0usize;
    let mut ticks = Vec::with_capacity(arrivals.len());
    // The run of unanimous dispatches in progress, if any.
    let mut stampeding: Option<Herd> = None;
    let mut skews = Vec::with_capacity(arrivals.len());
    let (mut finished, mut unrouted) = (0u32, 0u32);

    for (t, &count) in arrivals.iter().enumerate() {
        let t = t as u32;
        finished += drain(&mut in_flight, &mut outstanding, t);
        let scraped = scrape(&mut routers, &outstanding, config, t);
        let mut new = vec![0u32; n];
        let mut dispatched: Vec<Vec<u32>> = vec![Vec::new(); k];
        // Whether every dispatch of this tick went to the replica its router
        // believed to be the one idlest (a unique minimum, not a tie).
        let mut all_believed = true;
        for _ in 0..count {
            let ri = next_router;
            next_router = (next_router + 1) % k;
            let router = &mut routers[ri];
            views.clear();
            views.extend(
                router
                    .snapshot
                    .iter()
                    .zip(&router.own)
                    .map(|(&seen, &own)| rule.view(seen, own)),
            );
            let ctx = RouteContext {
                now: Tick(u64::from(t)),
                request: &request,
                block_tokens: 1,
                kv_block_tokens: 1,
                replicas: &views,
            };
            let Some(decision) = selector.select(&ctx, &mut Chooser::new(&mut rng, Ties::Random))
            else {
                unrouted += 1;
                continue;
            };
            let target = decision.replica as usize;
            let least = views.iter().map(|v| v.seen).min().unwrap_or(0);
            all_believed &= views[target].seen == least
                && views.iter().filter(|v| v.seen == least).count() == 1;
            router.own[target] += 1;
            outstanding[target] += 1;
            new[target] += 1;
            in_flight.push_back((t + config.service_time, target));
            dispatched[ri].push(target as u32);
        }
        let skew = outstanding.iter().max().copied().unwrap_or(0)
            - outstanding.iter().min().copied().unwrap_or(0);
        let stampede = count >= 2 && new.iter().filter(|&&x| x > 0).count() == 1 && all_believed;
        follow_herd(
            &mut stampeding,
            &mut ticks,
            stampede,
            t,
            count,
            &new,
            &dispatched,
        );
        skews.push(skew);
        let routers_seen = router_views(&routers, scraped, dispatched, t);
        ticks.push(TickSnapshot {
            tick: t,
            outstanding: outstanding.clone(),
            new,
            arrivals: count,
            skew,
            routers: routers_seen,
            moment: None,
        });
    }
    if let Some(h) = stampeding {
        h.flag(&mut ticks);
    }

    let totals = Totals::of(&ticks);
    RuleSummary {
        rule,
        peak_skew: totals.peak_skew,
        mean_skew: totals.mean_skew,
        oscillation: totals.oscillation,
        pile_up_share: totals.pile_up_share,
        skew: skews,
        finished,
        unrouted,
        timeline: Timeline { ticks },
    }
}

/// Requests whose service ends by tick `t` leave their replicas; returns
/// how many finished.
fn drain(in_flight: &mut VecDeque<(u32, usize)>, outstanding: &mut [u32], t: u32) -> u32 {
    let mut finished = 0;
    while let Some(&(finish, r)) = in_flight.front() {
        if finish > t {
            break;
        }
        outstanding[r] -= 1;
        finished += 1;
        in_flight.pop_front();
    }
    finished
}

/// Routers whose scrape falls on tick `t` take a fresh snapshot of the
/// outstanding counts and forget their own dispatches since the last one;
/// returns which routers scraped.
fn scrape(routers: &mut [RouterState], outstanding: &[u32], config: &Config, t: u32) -> Vec<bool> {
    routers
        .iter_mut()
        .enumerate()
        .map(|(i, router)| {
            let offset = config.offset(i as u32);
            let due = t >= offset && (t - offset) % config.scrape_interval == 0;
            if due {
                router.snapshot.copy_from_slice(outstanding);
                router.taken_at = t;
                router.own.iter_mut().for_each(|o| *o = 0);
            }
            due
        })
        .collect()
}

/// Extend the herd in progress with this tick, or close it (flagging its
/// ticks) and start a new one when this tick is a stampede of its own.
fn follow_herd(
    herd: &mut Option<Herd>,
    ticks: &mut [TickSnapshot],
    stampede: bool,
    t: u32,
    count: u32,
    new: &[u32],
    dispatched: &[Vec<u32>],
) {
    let target = new.iter().position(|&x| x > 0).unwrap_or(0) as u32;
    let routers_now = dispatched.iter().map(|d| !d.is_empty());
    match herd {
        Some(h) if stampede && h.replica == target => h.extend(count, routers_now),
        _ => {
            if let Some(h) = herd.take() {
                h.flag(ticks);
            }
            if stampede {
                *herd = Some(Herd::new(target, t, count, routers_now));
            }
        }
    }
}

/// What each router saw and did at tick `t`, for the player.
fn router_views(
    routers: &[RouterState],
    scraped: Vec<bool>,
    dispatched: Vec<Vec<u32>>,
    t: u32,
) -> Vec<RouterView> {
    routers
        .iter()
        .zip(scraped)
        .zip(dispatched)
        .map(|((r, scraped), dispatched)| RouterView {
            snapshot: r.snapshot.clone(),
            age: t - r.taken_at,
            own: r.own.clone(),
            scraped,
            dispatched,
        })
        .collect()
}

/// A run of ticks in which every arrival went to one replica that every
/// router believed the idlest.
struct Herd {
    replica: u32,
    since: u32,
    ticks: u32,
    requests: u32,
    /// Which routers took part.
    routers: Vec<bool>,
}

impl Herd {
    fn new(replica: u32, since: u32, count: u32, routers: impl Iterator<Item = bool>) -> Herd {
        Herd {
            replica,
            since,
            ticks: 1,
            requests: count,
            routers: routers.collect(),
        }
    }

    fn extend(&mut self, count: u32, routers: impl Iterator<Item = bool>) {
        self.ticks += 1;
        self.requests += count;
        for (took, now) in self.routers.iter_mut().zip(routers) {
            *took |= now;
        }
    }

    /// Flag the run's last tick if it left a pile (see [`HerdMoment::Stampede`]).
    fn flag(self, ticks: &mut [TickSnapshot]) {
        let Some(last) = ticks.last_mut() else {
            return;
        };
        let n = last.outstanding.len().max(1) as u32;
        let total: u32 = last.outstanding.iter().sum();
        let load = last
            .outstanding
            .get(self.replica as usize)
            .copied()
            .unwrap_or(0);
        // load ≥ factor × mean, in integers: load · n ≥ factor · total.
        if self.ticks >= 2 && load * n >= PILE_FACTOR * total {
            last.moment = Some(HerdMoment::Stampede {
                replica: self.replica,
                requests: self.requests,
                routers: self.routers.iter().filter(|&&r| r).count() as u32,
                since: self.since,
                load,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_leave_their_replicas_when_their_service_ends() {
        let mut in_flight: VecDeque<(u32, usize)> = [(3, 0), (3, 1), (5, 0)].into_iter().collect();
        let mut outstanding = vec![2, 1];
        assert_eq!(drain(&mut in_flight, &mut outstanding, 2), 0);
        assert_eq!(drain(&mut in_flight, &mut outstanding, 4), 2);
        assert_eq!(outstanding, [1, 0]);
        assert_eq!(in_flight.len(), 1);
    }

    #[test]
    fn a_router_scrapes_on_its_own_phase_and_forgets_its_own_dispatches() {
        let config = Config {
            routers: 2,
            replicas: 2,
            ..Config::default()
        };
        let mut routers: Vec<RouterState> = (0..2)
            .map(|_| RouterState {
                snapshot: vec![0; 2],
                taken_at: 0,
                own: vec![3, 0],
            })
            .collect();
        let every = config.scrape_interval;
        let scraped = scrape(&mut routers, &[4, 1], &config, every);
        for (i, (r, s)) in routers.iter().zip(&scraped).enumerate() {
            let due =
                every >= config.offset(i as u32) && (every - config.offset(i as u32)) % every == 0;
            assert_eq!(*s, due);
            assert_eq!(r.snapshot == [4, 1], due);
            assert_eq!(r.own == [0, 0], due);
        }
        assert!(
            scraped.iter().any(|&s| s),
            "some router scrapes at one interval"
        );
    }
}
