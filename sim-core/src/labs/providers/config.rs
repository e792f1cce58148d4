//! The providers lab's settings: the deployments rented, the traffic, the
//! provider's cache and prices, the incident, and how clients retry.

use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::params::{narrow, Configurable, Param, ParamError, Problem, Show};
pub use crate::providers::gateway::Strategy;

/// Milliseconds one player tick stands for.
pub const TICK_MS: u64 = 100;

crate::choices! {
    /// What the client sends as the provider's cache key
    /// (`prompt_cache_key`), which the provider combines with a hash of the
    /// prompt's first tokens to pick the machine.
    pub enum CacheKey {
        /// No key: every conversation that opens with the same system prompt hashes to one machine.
        None = ("none", "No key", "No cache key: the provider hashes the prompt's first tokens, which the shared system prompt makes the same for every conversation, so all of them share one home machine."),
        /// One key per conversation.
        Session = ("session", "Per conversation", "The conversation id as the cache key: each conversation has a home machine of its own."),
        /// The conversation id hashed onto a few stable keys.
        Sharded = ("sharded", "Sharded", "The conversation id mapped onto a fixed number of keys (shards), so each key stays under the per-machine rate."),
    }
}

crate::choices! {
    /// Published cache price multipliers and lifetimes (article §12.4).
    pub enum Prices {
        /// OpenAI's automatic cache on GPT-4.1: writes free, reads a quarter.
        Gpt41 = ("gpt-4.1", "GPT-4.1 (automatic)", "Writes cost nothing extra, reads 0.25× input; entries kept at least 5 minutes."),
        /// GPT-5.6's explicit cache with the default 30-minute lifetime.
        Gpt56 = ("gpt-5.6-30m", "GPT-5.6, 30 min", "Writes 1.25× input, reads 0.1×, a 30-minute minimum lifetime."),
        /// GPT-5.6 with the 12-hour lifetime.
        Gpt56Long = ("gpt-5.6-12h", "GPT-5.6, 12 h", "Writes 2.5× input, reads 0.1×, a 12-hour lifetime (Responses API only)."),
        /// Anthropic's default five-minute entries.
        Claude5m = ("claude-5m", "Claude, 5 min", "Writes 1.25× input, reads 0.1×, five minutes refreshed on use."),
        /// Anthropic's one-hour entries.
        Claude1h = ("claude-1h", "Claude, 1 h", "Writes 2× input, reads 0.1×, one hour refreshed on use."),
        /// Whatever the three numbers say.
        Custom = ("custom", "Custom", "The write and read multipliers and the lifetime as set below."),
    }
}

impl Prices {
    /// (write multiplier, read multiplier, lifetime in seconds), the
    /// figures of article §12.4 and the providers' pricing pages.
    pub fn figures(self) -> Option<(f64, f64, u32)> {
        match self {
            Prices::Gpt41 => Some((1.0, 0.25, 300)),
            Prices::Gpt56 => Some((1.25, 0.1, 1800)),
            Prices::Gpt56Long => Some((2.5, 0.1, 43_200)),
            Prices::Claude5m => Some((1.25, 0.1, 300)),
            Prices::Claude1h => Some((2.0, 0.1, 3600)),
            Prices::Custom => None,
        }
    }
}

/// The providers lab's configuration; ranges are in [`Config::PARAMS`].
/// Deployments are laid out reserved first, then metered, and take the
/// regions in turn (deployment `i` is in region `i mod regions`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Requests per second offered (Poisson conversations, turns included).
    pub rate: f64,
    /// Seconds during which conversations start; the run then drains.
    pub seconds: u32,
    /// Reserved (provisioned) deployments.
    pub reserved: u32,
    /// Metered (pay-as-you-go) deployments.
    pub metered: u32,
    /// Regions the deployments spread over (1 or 2).
    pub regions: u32,
    /// Extra round trip to the second region, ms.
    pub far_ms: u32,
    /// Tokens a minute one reserved deployment serves.
    pub ptu_tpm: u32,
    /// Hourly price of one reserved deployment, dollars.
    pub ptu_hourly: f64,
    /// Longest prompt a reserved deployment accepts, tokens.
    pub ptu_context: u32,
    /// Tokens a minute a metered deployment's quota allows.
    pub quota_tpm: u32,
    /// Requests a minute a metered deployment's quota allows.
    pub quota_rpm: u32,
    /// Metered input price, dollars per million tokens.
    pub input_price: f64,
    /// Metered output price, dollars per million tokens.
    pub output_price: f64,
    /// The cache price preset the three figures below came from (custom
    /// once one of them is edited).
    pub prices: Prices,
    /// Cache-write price multiplier on the input price.
    pub write_x: f64,
    /// Cache-read price multiplier on the input price.
    pub read_x: f64,
    /// Lifetime of a cache entry from the start of the request that last touched it, s.
    pub ttl_s: u32,
    /// Requests a minute on one cache key one machine takes before the rest overflow.
    pub machine_rpm: u32,
    /// Machines of one deployment's fleet that overflow spreads over.
    pub machines: u32,
    /// What the client sends as the cache key.
    pub cache_key: CacheKey,
    /// Keys a sharded cache key spreads conversations over.
    pub shards: u32,
    /// Mean turns of a conversation (geometric).
    pub turns: f64,
    /// Mean seconds between a reply's end and the next turn (exponential).
    pub think_s: f64,
    /// Tokens of the system prompt every conversation opens with.
    pub system: u32,
    /// Tokens a user adds each turn.
    pub user: u32,
    /// Mean output tokens (exponential).
    pub output: u32,
    /// Output tokens a second one stream is generated at.
    pub decode_tps: f64,
    /// Prompt tokens a second a deployment prefills for one request.
    pub prefill_tps: f64,
    /// Share of conversations that open with a fan-out.
    pub fanout_share: f64,
    /// Children of a fan-out.
    pub fanout: u32,
    /// Tokens of the document a fan-out's children share.
    pub context: u32,
    /// Send one fan-out child first and the rest once its first token is back.
    pub serialize: bool,
    /// Share of conversations that are batch jobs (one turn, no one waiting).
    pub batch_share: f64,
    /// Send batch jobs to the provider's batch tier.
    pub demote: bool,
    /// Tokens one conversation may spend before it is stopped (0: no budget).
    pub budget: u32,
    /// Region hit by the incident (1 or 2; 0: none).
    pub incident_region: u32,
    /// Second the incident starts.
    pub incident_at: u32,
    /// Seconds the incident lasts.
    pub incident_s: u32,
    /// Share of requests the region's deployments fail with a 5xx meanwhile.
    pub incident_errors: f64,
    /// Share of its quota (or reserved capacity) the region keeps meanwhile.
    pub incident_quota: f64,
    /// Retries of a failed call.
    pub retries: u32,
    /// Clients and breakers honour Retry-After.
    pub retry_after: bool,
    /// The gateway pools' breakers count 429 as well as 5xx.
    pub breaker_429: bool,
    /// Failures within the breaker's window that trip it.
    pub breaker_count: u32,
    /// Seconds the breaker counts failures over.
    pub breaker_window: u32,
    /// Seconds a tripped breaker holds its backend out (when no Retry-After is honoured).
    pub trip_s: u32,
    /// Seed of every random stream.
    pub seed: u64,
}

/// One reserved and one metered deployment in one region, the traffic a
/// little under the reserved capacity, GPT-4.1's prices, and a region
/// failing 20% of calls for a minute from second 240.
impl Default for Config {
    #[inline(never)]
    fn default() -> Self {
        Config {
            rate: 3.0,
            seconds: 600,
            reserved: 1,
            metered: 1,
            regions: 1,
            far_ms: 80,
            ptu_tpm: 150_000,
            ptu_hourly: 60.0,
            ptu_context: 128_000,
            quota_tpm: 1_000_000,
            quota_rpm: 6_000,
            input_price: 2.0,
            output_price: 8.0,
            prices: Prices::Gpt41,
            write_x: 1.0,
            read_x: 0.25,
            ttl_s: 300,
            machine_rpm: 15,
            machines: 64,
            cache_key: CacheKey::Session,
            shards: 8,
            turns: 4.0,
            think_s: 20.0,
            system: 2000,
            user: 150,
            output: 300,
            decode_tps: 60.0,
            prefill_tps: 20_000.0,
            fanout_share: 0.0,
            fanout: 8,
            context: 8000,
            serialize: false,
            batch_share: 0.1,
            demote: false,
            budget: 0,
            incident_region: 1,
            incident_at: 240,
            incident_s: 60,
            incident_errors: 0.2,
            incident_quota: 1.0,
            retries: 2,
            retry_after: true,
            breaker_429: true,
            breaker_count: 1,
            breaker_window: 60,
            trip_s: 60,
            seed: 1,
        }
    }
}

impl Config {
    /// Deployments in all.
    pub fn deployments(&self) -> usize {
        (self.reserved + self.metered) as usize
    }

    /// Whether deployment `d` is reserved capacity.
    pub fn is_reserved(&self, d: usize) -> bool {
        d < self.reserved as usize
    }

    /// The region (0-based) of deployment `d`.
    pub fn region(&self, d: usize) -> u8 {
        (d % self.regions.max(1) as usize) as u8
    }

    /// What deployment `d` is and its number among its kind: "PTU 1", "PAYG 2".
    pub fn label(&self, d: usize) -> alloc::string::String {
        if self.is_reserved(d) {
            alloc::format!("PTU {}", d + 1)
        } else {
            alloc::format!("PAYG {}", d + 1 - self.reserved as usize)
        }
    }

    /// Its [`Config::label`], with the region when there are two.
    pub fn name(&self, d: usize) -> alloc::string::String {
        if self.regions > 1 {
            alloc::format!("{} · region {}", self.label(d), self.region(d) + 1)
        } else {
            self.label(d)
        }
    }

    /// Set the three cache figures from a preset (custom leaves them).
    pub fn set_prices(&mut self, p: Prices) {
        self.prices = p;
        if let Some((w, r, t)) = p.figures() {
            (self.write_x, self.read_x, self.ttl_s) = (w, r, t);
        }
    }
}

/// Set one of the three cache figures: a new value makes the prices custom
/// (the same value, as a link listing a preset's figures after it, does not).
fn edit<T: PartialEq>(c: &mut Config, field: fn(&mut Config) -> &mut T, x: T) {
    if *field(c) != x {
        *field(c) = x;
        c.prices = Prices::Custom;
    }
}

/// A preset: a name, a title and the settings its link carries.
pub struct Preset {
    /// Identifier (the CLI's `--preset`, the page's button).
    pub name: &'static str,
    /// What the button says.
    pub title: &'static str,
    /// What it shows, in one line.
    pub blurb: &'static str,
    /// The URL keys it sets, the focus included.
    pub pairs: &'static [(&'static str, &'static str)],
}

/// The article's two configurations (§14.3 and §14.4) as links.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "litellm-regions",
        title: "§14.3: LiteLLM, two regions, equal weights",
        blurb: "Two metered deployments of one model in two regions, weight 1 each, simple-shuffle with weighted failover and two retries; conversations of several turns.",
        pairs: &[("reserved", "0"), ("metered", "2"), ("regions", "2"), ("incident-region", "0"), ("strategy", "shuffle")],
    },
    Preset {
        name: "apim-priority",
        title: "§14.4: APIM priority pool, breaker on server errors",
        blurb: "A reserved backend at priority 1 and a metered one at priority 2, the breaker rule counting only server errors, traffic above the reserved capacity.",
        pairs: &[("rate", "4.5"), ("incident-region", "0"), ("breaker-429", "0"), ("strategy", "priority-pool")],
    },
];

/// Shorthand for the table below.
type P = Param<Config>;

fn whole(c: &Config, key: &'static str, problem: alloc::string::String) -> ParamError {
    let given = crate::params::erased::text_of(c, key).unwrap_or_default();
    ParamError {
        key,
        given,
        problem: Problem::Unfit(problem),
    }
}

impl Configurable for Config {
    const PARAMS: &'static [Param<Config>] = &[
        P::real("rate", "Arrival rate", "req/s", (0.1, 40.0, 0.1), |c| c.rate, |c, x| c.rate = x)
            .doc("Calls a second offered, every turn and fan-out child counted.")
            .show(Show::Fixed(1)),
        P::whole("reserved", "Reserved deployments", "", (0, 4, 1), |c| c.reserved.into(), |c, x| c.reserved = narrow(x))
            .doc("Provisioned (PTU) deployments: a fixed capacity in tokens a minute, paid by the hour, used or not. First in every pool."),
        P::whole("metered", "Metered deployments", "", (0, 4, 1), |c| c.metered.into(), |c, x| c.metered = narrow(x))
            .doc("Pay-as-you-go deployments: billed per token, answering 429 past a quota of tokens and requests a minute."),
        P::whole("regions", "Regions", "", (1, 2, 1), |c| c.regions.into(), |c, x| c.regions = narrow(x))
            .doc("Regions the deployments take in turn. Each deployment has its own cache: a conversation that changes deployment starts cold."),
        P::choice("cache-key", "Cache key", CacheKey::options, |c| c.cache_key.name(), |c, x| {
            if let Some(k) = CacheKey::from_name(x) {
                c.cache_key = k;
            }
        })
        .doc("What the client sends as prompt_cache_key; with a hash of the prompt's first tokens it picks the provider's machine."),
        P::switch("retry-after", "Honour Retry-After", |c| c.retry_after, |c, x| c.retry_after = x)
            .doc("Clients wait what a 429's Retry-After says, and breakers hold a backend out that long (APIM's acceptRetryAfter). Off: clients back off 0.5 s, 1 s, 2 s… and breakers use their trip time."),
        P::switch("breaker-429", "Breakers count 429", |c| c.breaker_429, |c, x| c.breaker_429 = x)
            .doc("The pools' breakers count 429 as well as 5xx. In a priority pool the breaker is what sends traffic to the next group."),
        P::real("ptu-tpm", "Reserved capacity", "tokens/min", (10_000.0, 10_000_000.0, 10_000.0), |c| c.ptu_tpm.into(), |c, x| c.ptu_tpm = x as u32)
            .doc("Tokens a minute one reserved deployment serves: prompt tokens not read from its cache plus output tokens.")
            .show(Show::Thousands),
        P::whole("seconds", "Duration", "s", (60, 3600, 60), |c| c.seconds.into(), |c, x| c.seconds = narrow(x))
            .doc("Seconds during which conversations start; the run then lets them finish.")
            .advanced(),
        P::whole("far-ms", "Second region's extra round trip", "ms", (0, 1000, 10), |c| c.far_ms.into(), |c, x| c.far_ms = narrow(x))
            .doc("Milliseconds every call to the second region adds.")
            .advanced(),
        P::real("ptu-hourly", "Reserved price", "$/h", (0.0, 10_000.0, 1.0), |c| c.ptu_hourly, |c, x| c.ptu_hourly = x)
            .doc("What one reserved deployment costs an hour, used or not.")
            .advanced(),
        P::whole("ptu-context", "Reserved context limit", "tokens", (1024, 1_000_000, 1024), |c| c.ptu_context.into(), |c, x| c.ptu_context = narrow(x))
            .doc("Longest prompt a reserved deployment accepts; a longer one gets 400, which spillover sends on.")
            .advanced(),
        P::whole("quota-tpm", "Metered quota", "tokens/min", (1000, 100_000_000, 1000), |c| c.quota_tpm.into(), |c, x| c.quota_tpm = narrow(x))
            .doc("Tokens a minute one metered deployment accepts (prompt plus expected output) before it answers 429.")
            .advanced(),
        P::whole("quota-rpm", "Metered request quota", "req/min", (1, 1_000_000, 1), |c| c.quota_rpm.into(), |c, x| c.quota_rpm = narrow(x))
            .doc("Requests a minute one metered deployment accepts before it answers 429.")
            .advanced(),
        P::real("input-price", "Input price", "$/M tokens", (0.0, 100.0, 0.05), |c| c.input_price, |c, x| c.input_price = x)
            .doc("Metered price of a million prompt tokens not read from the cache.")
            .advanced(),
        P::real("output-price", "Output price", "$/M tokens", (0.0, 400.0, 0.05), |c| c.output_price, |c, x| c.output_price = x)
            .doc("Metered price of a million output tokens.")
            .advanced(),
        P::choice("prices", "Cache prices", Prices::options, |c| c.prices.name(), |c, x| {
            if let Some(p) = Prices::from_name(x) {
                c.set_prices(p);
            }
        })
        .doc("Sets the three cache figures below to a provider's published ones (article §12.4); editing one of them makes the prices custom.")
        .advanced(),
        P::real("write-x", "Cache write", "× input", (0.0, 5.0, 0.05), |c| c.write_x, |c, x| edit(c, |c| &mut c.write_x, x))
            .doc("Price of a prompt token written to the provider's cache, as a multiple of the input price.")
            .advanced(),
        P::real("read-x", "Cache read", "× input", (0.0, 1.0, 0.005), |c| c.read_x, |c, x| edit(c, |c| &mut c.read_x, x))
            .doc("Price of a prompt token read from the provider's cache, as a multiple of the input price.")
            .advanced(),
        P::whole("ttl-s", "Cache lifetime", "s", (60, 86_400, 60), |c| c.ttl_s.into(), |c, x| edit(c, |c| &mut c.ttl_s, narrow(x)))
            .doc("Seconds an entry lives, counted from the start of the request that last wrote or read it (a long stream eats into it).")
            .advanced(),
        P::whole("machine-rpm", "Per-machine key rate", "req/min", (1, 1000, 1), |c| c.machine_rpm.into(), |c, x| c.machine_rpm = narrow(x))
            .doc("Calls a minute on one cache key its home machine takes; the rest overflow to other machines and miss (about 15 per OpenAI).")
            .advanced(),
        P::whole("machines", "Machines per deployment", "", (1, 4096, 1), |c| c.machines.into(), |c, x| c.machines = narrow(x))
            .doc("Machines of a deployment's fleet that overflowing requests spread over at random.")
            .advanced(),
        P::whole("shards", "Key shards", "", (1, 1000, 1), |c| c.shards.into(), |c, x| c.shards = narrow(x))
            .doc("Sharded cache key: stable keys the conversations are spread over.")
            .advanced(),
        P::real("turns", "Mean turns", "", (1.0, 20.0, 0.5), |c| c.turns, |c, x| c.turns = x)
            .doc("Mean turns of a conversation (geometric); each turn's prompt is the whole conversation so far.")
            .advanced(),
        P::real("think-s", "Time between turns", "s", (0.0, 3600.0, 1.0), |c| c.think_s, |c, x| c.think_s = x)
            .doc("Mean seconds from the end of a reply to the next turn (exponential).")
            .advanced(),
        P::whole("system", "System prompt", "tokens", (0, 32_768, 64), |c| c.system.into(), |c, x| c.system = narrow(x))
            .doc("Tokens every conversation opens with (instructions and tools).")
            .advanced(),
        P::whole("user", "User message", "tokens", (1, 8192, 1), |c| c.user.into(), |c, x| c.user = narrow(x))
            .doc("Tokens a user adds each turn.")
            .advanced(),
        P::whole("output", "Mean output", "tokens", (1, 32_768, 1), |c| c.output.into(), |c, x| c.output = narrow(x))
            .doc("Mean output tokens of a reply (exponential).")
            .advanced(),
        P::real("decode-tps", "Stream speed", "tokens/s", (1.0, 1000.0, 1.0), |c| c.decode_tps, |c, x| c.decode_tps = x)
            .doc("Output tokens a second one stream arrives at; a long reply takes long and the cache clock runs meanwhile.")
            .advanced(),
        P::real("prefill-tps", "Prefill speed", "tokens/s", (100.0, 1_000_000.0, 100.0), |c| c.prefill_tps, |c, x| c.prefill_tps = x)
            .doc("Prompt tokens a second a deployment computes for one request; cached tokens cost a tenth of that.")
            .advanced(),
        P::real("fanout-share", "Fan-out conversations", "", (0.0, 1.0, 0.05), |c| c.fanout_share, |c, x| c.fanout_share = x)
            .doc("Share of conversations that open by sending several children at once over one shared document.")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("fanout", "Fan-out children", "", (2, 64, 1), |c| c.fanout.into(), |c, x| c.fanout = narrow(x))
            .doc("Children one fan-out sends.")
            .advanced(),
        P::whole("context", "Fan-out document", "tokens", (0, 100_000, 256), |c| c.context.into(), |c, x| c.context = narrow(x))
            .doc("Tokens of the document a fan-out's children share, after the system prompt.")
            .advanced(),
        P::switch("serialize", "Send one child first", |c| c.serialize, |c, x| c.serialize = x)
            .doc("Send one fan-out child, the rest once its first token is back: an entry is readable only after its writer's first token.")
            .advanced(),
        P::real("batch-share", "Batch jobs", "", (0.0, 1.0, 0.05), |c| c.batch_share, |c, x| c.batch_share = x)
            .doc("Share of conversations that are one-turn batch jobs nobody waits on.")
            .show(Show::Percent(0))
            .advanced(),
        P::switch("demote", "Batch jobs to the batch tier", |c| c.demote, |c, x| c.demote = x)
            .doc("Send batch jobs to the provider's batch API: half price, no latency promise, off the real-time quotas.")
            .advanced(),
        P::whole("budget", "Conversation budget", "tokens", (0, 10_000_000, 1000), |c| c.budget.into(), |c, x| c.budget = narrow(x))
            .doc("Tokens (prompt and output) one conversation may spend; the turn that would start past it is not sent. 0: no budget.")
            .advanced(),
        P::whole("incident-region", "Incident region", "", (0, 2, 1), |c| c.incident_region.into(), |c, x| c.incident_region = narrow(x))
            .doc("Region whose deployments fail or lose quota for a while (0: no incident).")
            .advanced(),
        P::whole("incident-at", "Incident start", "s", (0, 3600, 10), |c| c.incident_at.into(), |c, x| c.incident_at = narrow(x))
            .doc("Second the incident starts.")
            .advanced(),
        P::whole("incident-s", "Incident length", "s", (0, 3600, 10), |c| c.incident_s.into(), |c, x| c.incident_s = narrow(x))
            .doc("Seconds the incident lasts.")
            .advanced(),
        P::real("incident-errors", "Incident errors", "", (0.0, 1.0, 0.05), |c| c.incident_errors, |c, x| c.incident_errors = x)
            .doc("Share of calls the region's deployments answer with a server error during the incident.")
            .show(Show::Percent(0))
            .advanced(),
        P::real("incident-quota", "Incident capacity", "", (0.0, 1.0, 0.05), |c| c.incident_quota, |c, x| c.incident_quota = x)
            .doc("Share of its capacity or quota each deployment of the region keeps during the incident.")
            .show(Show::Percent(0))
            .advanced(),
        P::whole("retries", "Retries", "", (0, 10, 1), |c| c.retries.into(), |c, x| c.retries = narrow(x))
            .doc("Retries of a failed call (LiteLLM's and the OpenAI SDK's default is 2).")
            .advanced(),
        P::whole("breaker-count", "Breaker failures", "", (1, 100, 1), |c| c.breaker_count.into(), |c, x| c.breaker_count = narrow(x))
            .doc("Failures within the window that trip a gateway pool's breaker.")
            .advanced(),
        P::whole("breaker-window", "Breaker window", "s", (1, 3600, 1), |c| c.breaker_window.into(), |c, x| c.breaker_window = narrow(x))
            .doc("Seconds over which the breaker counts failures.")
            .advanced(),
        P::whole("trip-s", "Breaker trip time", "s", (1, 3600, 1), |c| c.trip_s.into(), |c, x| c.trip_s = narrow(x))
            .doc("Seconds a tripped breaker holds its backend out when no Retry-After is honoured.")
            .advanced(),
        P::seed(|c| c.seed, |c, x| c.seed = x),
    ];

    /// At least one deployment, and an incident in a region that exists.
    fn cross_check(&self) -> Result<(), ParamError> {
        if self.reserved + self.metered == 0 {
            return Err(whole(
                self,
                "metered",
                "at least one deployment is needed (reserved or metered)".into(),
            ));
        }
        if self.incident_region > self.regions {
            return Err(whole(
                self,
                "incident-region",
                alloc::format!("there are {} region(s); 0 means no incident", self.regions),
            ));
        }
        Ok(())
    }
}
