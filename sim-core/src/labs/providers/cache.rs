//! A provider's prompt cache (article §12.4): entries live on one machine
//! of a deployment's fleet. The provider sends a call to the home machine
//! of its key (a hash of the prompt's first tokens, combined with
//! `prompt_cache_key` when the client sends one); past about 15 calls a
//! minute on one key, the rest overflow to other machines, where they miss
//! and write an entry of their own. An entry lives `ttl` from the start of
//! the call that last wrote or read it, and can be read only once that
//! call's first token is out. Hits come in OpenAI's steps: nothing under
//! 1,024 tokens, then every further 128.

use alloc::collections::{BTreeMap, VecDeque};

use super::config::Config;

/// Fewest prompt tokens a hit covers.
pub const MIN_HIT: u32 = 1024;
/// Hits grow in steps of this many tokens past [`MIN_HIT`].
pub const STEP: u32 = 128;

/// The tokens a hit on a matching prefix of `m` tokens covers.
pub fn granular(m: u32) -> u32 {
    if m < MIN_HIT {
        0
    } else {
        MIN_HIT + (m - MIN_HIT) / STEP * STEP
    }
}

/// What one machine holds of one conversation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Entry {
    /// Prompt tokens written.
    len: u32,
    /// Of those, the part any later call of the conversation starts with.
    shared: u32,
    /// Whether the whole entry is the conversation's main line (a later
    /// turn starts with all of it; a fan-out child's own task does not).
    line: bool,
    /// When it expires, ms.
    expires: u64,
    /// When it can first be read, ms (the writer's first token).
    ready: u64,
}

/// A call as the cache sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lookup {
    /// Cache key (a hash of the first tokens and the client's key).
    pub key: u64,
    /// The conversation.
    pub conv: u32,
    /// Tokens of the system prompt it opens with.
    pub system: u32,
    /// Tokens of it any later call of the conversation starts with.
    pub shared: u32,
    /// Prompt tokens.
    pub prompt: u32,
    /// Whether a later turn starts with the whole prompt.
    pub line: bool,
}

/// Where a call landed and what it found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Visit {
    /// The machine.
    pub machine: u32,
    /// Whether the key's home machine was full and the call overflowed.
    pub overflow: bool,
    /// Prompt tokens read from the cache.
    pub cached: u32,
}

/// One deployment's cache.
#[derive(Clone, Debug)]
pub struct Cache {
    machines: u32,
    per_machine: u32,
    ttl: u64,
    /// Times calls on each key went to its home machine in the last minute.
    homes: BTreeMap<u64, VecDeque<u64>>,
    /// Entries by (machine, conversation).
    held: BTreeMap<(u32, u32), Entry>,
    /// The system prompt's entry by machine: (expires, ready).
    system: BTreeMap<u32, (u64, u64)>,
}

/// SplitMix64's finaliser, for a key's home machine.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Cache {
    /// An empty cache for `c`'s fleet.
    pub fn new(c: &Config) -> Cache {
        Cache {
            machines: c.machines.max(1),
            per_machine: c.machine_rpm.max(1),
            ttl: u64::from(c.ttl_s) * 1000,
            homes: BTreeMap::new(),
            held: BTreeMap::new(),
            system: BTreeMap::new(),
        }
    }

    /// Route `l` at `now` to a machine (`u` draws an overflow machine) and
    /// read what it holds; refreshes what it read.
    pub fn visit(&mut self, l: &Lookup, now: u64, u: f64) -> Visit {
        let home = (mix(l.key) % u64::from(self.machines)) as u32;
        let q = self.homes.entry(l.key).or_default();
        while q.front().is_some_and(|&t| t + 60_000 <= now) {
            q.pop_front();
        }
        let (machine, overflow) = if (q.len() as u32) < self.per_machine {
            q.push_back(now);
            (home, false)
        } else {
            (
                ((u * f64::from(self.machines)) as u32).min(self.machines - 1),
                true,
            )
        };
        let live = |expires: u64, ready: u64| expires > now && ready <= now;
        let mut found = 0;
        if let Some(e) = self.held.get_mut(&(machine, l.conv)) {
            if live(e.expires, e.ready) {
                found = if e.line && e.len <= l.shared {
                    e.len
                } else {
                    e.shared.min(l.shared)
                };
                e.expires = now + self.ttl;
            }
        }
        if let Some(s) = self.system.get_mut(&machine) {
            if live(s.0, s.1) && l.system > found {
                found = l.system;
                s.0 = now + self.ttl;
            }
        }
        Visit {
            machine,
            overflow,
            cached: granular(found.min(l.prompt)),
        }
    }

    /// Write `l`'s prompt on the machine of `v`, readable from `ready`.
    pub fn write(&mut self, l: &Lookup, v: &Visit, now: u64, ready: u64) {
        if l.prompt < MIN_HIT {
            return;
        }
        let fresh = Entry {
            len: l.prompt,
            shared: l.shared,
            line: l.line,
            expires: now + self.ttl,
            ready,
        };
        let slot = self.held.entry((v.machine, l.conv)).or_insert(fresh);
        // A live entry that is readable sooner and covers as much of what
        // later calls share stays (a second fan-out child does not replace
        // the first child's entry); otherwise the newer write wins.
        let keep =
            slot.expires > now && slot.ready <= ready && slot.shared >= fresh.shared && !fresh.line;
        if !keep {
            *slot = fresh;
        }
        if l.system >= MIN_HIT {
            let s = self.system.entry(v.machine).or_insert((0, ready));
            if s.0 <= now {
                s.1 = ready;
            }
            s.0 = now + self.ttl;
        }
    }

    /// Drop what expired before `now` (keeps the maps small on long runs).
    pub fn prune(&mut self, now: u64) {
        self.held.retain(|_, e| e.expires > now);
        self.system.retain(|_, s| s.0 > now);
        self.homes
            .retain(|_, q| q.back().is_some_and(|&t| t + 60_000 > now));
    }
}
