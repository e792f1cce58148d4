//! What a Routing Lab run reports. Serialised as-is by the CLI's `--json` and by
//! the web page, so the two can be compared number for number.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::player::Timeline;
use super::Config;
use crate::routing::{Decision, RuleKind};
use crate::workload::trace::ImportReport;
use crate::workload::TraceStats;

/// Where a run's requests came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceSource {
    /// Drawn by the seeded generator from the config's workload settings.
    Generated,
    /// Replayed from a trace file; the config's workload settings were unused.
    Replayed,
}

/// One replica under one rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplicaOutcome {
    /// Requests routed to it.
    pub assigned: u32,
    /// Requests it finished.
    pub completed: u32,
    /// Share of its iteration capacity (speed × ticks since it joined) spent on
    /// a prefill or decode step (0–1).
    pub utilization: f64,
    /// Share of that capacity spent on prefill steps (0–1).
    pub prefill_share: f64,
    /// Outstanding requests (waiting + running), averaged over the ticks
    /// since it joined.
    pub mean_outstanding: f64,
    /// Iterations per tick.
    pub speed: f64,
    /// Tick it joined the pool (0 for the initial replicas).
    pub joined_at: u64,
}

/// Where another rule would have sent the same request at the same moment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// The other rule.
    pub rule: RuleKind,
    /// Its pick and why.
    pub decision: Decision,
}

/// One decision of a rule, with what every other rule would have done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionDetail {
    /// Index of the request in the trace.
    pub request: u32,
    /// Tick it arrived (and was routed).
    pub tick: u64,
    /// Its prompt length, in tokens.
    pub prompt_tokens: u32,
    /// The rule's pick and why.
    pub decision: Decision,
    /// Every other rule's pick on the same state, in registry order.
    pub others: Vec<Alternative>,
}

/// Outstanding requests per replica over time, down-sampled: point `i` is the
/// maximum over ticks `[i·stride, (i+1)·stride)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueSeries {
    /// Ticks per point.
    pub stride: u64,
    /// One series per replica.
    pub series: Vec<Vec<u32>>,
}

/// How many decisions a rule took for one reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReasonCount {
    /// [`crate::routing::Reason::name`].
    pub reason: String,
    /// Decisions with that reason.
    pub count: u32,
}

/// Metrics of one rule on the shared trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleOutcome {
    /// The rule.
    pub rule: RuleKind,
    /// Median time to first token, in ticks.
    pub ttft_p50: f64,
    /// 95th-percentile time to first token, in ticks.
    pub ttft_p95: f64,
    /// 95th-percentile end-to-end latency, in ticks.
    pub e2e_p95: f64,
    /// Time per output token, vLLM's TPOT: each finished request's time
    /// from its first token to its last over its tokens after the first,
    /// averaged over requests with two or more tokens (ticks per token).
    pub tpot_mean: f64,
    /// 95th percentile of the same per-request TPOT.
    pub tpot_p95: f64,
    /// Mean inter-token latency, vLLM's ITL: every gap between two streamed
    /// chunks of a request, pooled over requests (ticks). Equal to TPOT's
    /// pooled mean when each chunk is one token; with speculative decoding
    /// a chunk carries several and ITL is larger by `tokens_per_chunk`.
    pub itl_mean: f64,
    /// Output tokens after the first over the chunks after the first,
    /// pooled (1 without speculative decoding).
    pub tokens_per_chunk: f64,
    /// Share of all requests whose TTFT met the SLO (0–1; unfinished ones miss).
    pub slo_attainment: f64,
    /// Share of admitted prompt tokens served from a prefix cache (0–1).
    pub cache_hit_share: f64,
    /// Most requests assigned to one replica minus fewest.
    pub assignment_gap: u32,
    /// Output tokens of finished requests per tick of the run.
    pub output_throughput: f64,
    /// Requests finished.
    pub completed: u32,
    /// Requests not finished when the run stopped (only past `max_ticks`).
    pub outstanding: u32,
    /// Ticks the run lasted (last finishing tick + 1).
    pub ticks: u64,
    /// Sequences preempted for KV, over all replicas.
    pub preemptions: u32,
    /// Offered load: the engine iterations the run's requests needed, per
    /// tick of the arrival window, over the iterations the pool can run per
    /// tick. Below 1 the pool keeps up; above 1 requests arrive faster than
    /// it can serve them and queues grow until arrivals stop.
    #[serde(default)]
    pub offered_load: f64,
    /// Per replica, in index order.
    pub replicas: Vec<ReplicaOutcome>,
    /// Decisions per reason, in first-seen order.
    pub reasons: Vec<ReasonCount>,
    /// Outstanding requests per replica over time.
    pub queue: QueueSeries,
    /// Every decision in arrival order (not serialised: large, and derivable).
    #[serde(skip)]
    pub decisions: Vec<Decision>,
    /// Every answered request's TTFT, sorted, in ticks (not serialised: the
    /// percentiles above travel; this is for other statistics natively).
    #[serde(skip)]
    pub ttfts: Vec<f64>,
    /// When each request's last token came out (the tick after its last
    /// iteration), by request; `None` if it never finished (not serialised).
    #[serde(skip)]
    pub finished_at: Vec<Option<u64>>,
    /// Each request's TTFT in ticks, by request; `None` if its first token
    /// never came out (not serialised: for statistics over a slice of the
    /// requests, such as a load stage's).
    #[serde(skip)]
    pub ttft_by_request: Vec<Option<u64>>,
    /// When each request was sent, by request: its trace time, or later
    /// when clients or load stages held it (not serialised).
    #[serde(skip)]
    pub sent_at: Vec<u64>,
    /// With `counterfactuals` on: every decision with the other rules' picks.
    #[serde(default)]
    pub counterfactuals: Vec<DecisionDetail>,
}

/// The whole run: the config it answers, the trace, and one entry per rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The validated configuration.
    #[serde(
        serialize_with = "crate::labs::json_only",
        deserialize_with = "crate::labs::json_or_default"
    )]
    pub config: Config,
    /// Where the requests came from.
    pub source: TraceSource,
    /// For a replayed trace: what the import read, kept and skipped.
    #[serde(default)]
    pub import: Option<ImportReport>,
    /// The trace every rule replayed, as it actually is.
    pub trace: TraceStats,
    /// One entry per rule run, in registry order.
    pub rules: Vec<RuleOutcome>,
    /// The tick-by-tick record of the rules the run was asked to record (the
    /// page's player; see [`super::player`]). It travels to the page in the
    /// positional encoding only: in JSON it is written `null`, so a page's
    /// export equals what `lblab routing --json` prints for the same settings
    /// (the recording is a view of the run, not one of its figures).
    #[serde(serialize_with = "crate::labs::page_only")]
    pub timeline: Option<Timeline>,
}

impl Outcome {
    /// The entry for `rule`, if it was run.
    pub fn rule(&self, rule: RuleKind) -> Option<&RuleOutcome> {
        self.rules.iter().find(|r| r.rule == rule)
    }
}
