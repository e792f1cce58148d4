//! A tier-aware cost for prefix rules: a prefix held in a lower tier
//! (host memory, a store shared by the pool) saves its prefill but costs
//! its transfer, so it is worth `1 − prefill rate / link rate` of a
//! device-cached prefix, and nothing when the link is slower than
//! computing (article §6.1's last row: affinity becomes bandwidth against
//! compute). The rule is Dynamo's KV cost ([`super::DynamoKv`]) with its
//! host and disk weights set from the links instead of upstream's fixed
//! 0.75 and 0.25.

use super::{DynamoKv, Rule};

/// What one tier's cached token is worth against a device-cached one, when
/// the engine prefills `prefill` tokens a tick and the tier's link moves
/// `link` tokens a tick (0: no tier, worth nothing).
pub fn worth(prefill: u32, link: u32) -> f64 {
    if link == 0 {
        return 0.0;
    }
    (1.0 - f64::from(prefill) / f64::from(link)).max(0.0)
}

/// Dynamo's cost with tier weights from the links: `host` and `shared`
/// tokens a tick against `prefill`.
pub fn router(prefill: u32, host: u32, shared: u32) -> DynamoKv {
    DynamoKv::build(&super::dynamo_kv::DynamoSettings {
        host_cache_hit_weight: worth(prefill, host),
        disk_cache_hit_weight: worth(prefill, shared),
        ..Default::default()
    })
}
