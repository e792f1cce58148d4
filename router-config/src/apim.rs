//! An Azure API Management backend pool, in and out (article §12.2, §14.4):
//! Bicep or the ARM JSON it compiles to.
//!
//! A pool (`Microsoft.ApiManagement/service/backends`, `type: 'Pool'`)
//! lists backends with a priority and a weight. Calls go round robin within
//! the best (lowest-numbered) priority group; the next group is used only
//! once every backend of the groups above has tripped its circuit breaker.
//! The breaker is a rule on each single backend (`circuitBreaker.rules`,
//! one rule per backend): the failures it counts (`statusCodeRanges`)
//! within `interval`, how long it trips for, and whether a `Retry-After`
//! header sets that time (`acceptRetryAfter`). So the pool fails over only
//! if the breaker counts what the primary answers when it is full: 429.
//! `sessionAffinity` pins a session to a backend by cookie. Numbers may be
//! written as strings (Microsoft's own ARM samples do).
//!
//! In the lab the first priority group is reserved capacity and the second
//! metered, the shape of §14.4.

use serde_json::{json, Value};
use sim_core::labs::providers::Config;
use sim_core::labs::serve::{ConfigReport, Said};

use crate::report::Report;
use crate::tree::{at, boolean, is_secret, json_document, number, text, unknown_keys};
use crate::{bicep, ConfigError};

const BACKENDS: &str = "Microsoft.ApiManagement/service/backends";

/// Read ARM JSON: a template (`resources`), a list of resources, or one.
pub fn import_json(text: &str) -> Result<ConfigReport, ConfigError> {
    let doc = json_document(text)?;
    let resources = match &doc {
        Value::Array(list) => list.clone(),
        Value::Object(map) if map.contains_key("resources") => doc["resources"]
            .as_array()
            .cloned()
            .ok_or_else(|| ConfigError::new("resources is not a list"))?,
        Value::Object(_) => vec![doc.clone()],
        _ => {
            return Err(ConfigError::new(
                "expected an ARM template or resource, a JSON object",
            ))
        }
    };
    let mut r = Report::new("apim-arm", "API Management backend pool (ARM JSON)");
    read(&mut r, &resources)?;
    Ok(r.done())
}

/// Read Bicep `resource` declarations.
pub fn import_bicep(text: &str) -> Result<ConfigReport, ConfigError> {
    let resources = bicep::resources(text)?;
    let mut r = Report::new("apim-bicep", "API Management backend pool (Bicep)");
    read(&mut r, &resources)?;
    Ok(r.done())
}

/// The pool and its backends' breakers.
fn read(r: &mut Report, resources: &[Value]) -> Result<(), ConfigError> {
    let is_backend = |v: &&Value| {
        v.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case(BACKENDS))
    };
    let is_pool = |v: &Value| {
        at(v, &["properties", "type"])
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case("pool"))
    };
    for other in resources.iter().filter(|v| !is_backend(v)) {
        let ty = other.get("type").and_then(text).unwrap_or_default();
        r.not_modelled(
            &format!("resource {}", sim_core::params::shown(&ty)),
            "the lab reads API Management backends",
        );
    }
    let backends: Vec<&Value> = resources.iter().filter(is_backend).collect();
    let mut pools = backends.iter().filter(|v| is_pool(v));
    let pool = pools.next().ok_or_else(|| ConfigError::new("no backend pool: expected a Microsoft.ApiManagement/service/backends resource with type 'Pool'"))?;
    for extra in pools {
        r.not_modelled(
            &format!("pool {}", name_of(extra)),
            "the lab runs one pool, the first",
        );
    }
    pool_services(r, pool)?;
    let singles: Vec<&Value> = backends.iter().filter(|v| !is_pool(v)).copied().collect();
    breaker(r, &singles)
}

/// A resource's name for the report.
fn name_of(v: &Value) -> String {
    let name = v.get("name").and_then(text).unwrap_or_default();
    sim_core::params::shown(&name)
}

/// The pool's services: priority groups, weights, session affinity.
fn pool_services(r: &mut Report, pool: &Value) -> Result<(), ConfigError> {
    let p = &pool["properties"];
    let services = at(p, &["pool", "services"])
        .and_then(Value::as_array)
        .ok_or_else(|| ConfigError::new("the pool lists no services (properties.pool.services)"))?;
    if services.is_empty() {
        return Err(ConfigError::new("the pool's services list is empty"));
    }
    let priorities: Vec<i64> = services
        .iter()
        .map(|s| s.get("priority").and_then(number).map_or(1, |x| x as i64))
        .collect();
    let mut levels = priorities.clone();
    levels.sort_unstable();
    levels.dedup();
    let count = |level: i64| priorities.iter().filter(|p| **p == level).count();
    let weights: Vec<Option<f64>> = services
        .iter()
        .map(|s| s.get("weight").and_then(number))
        .collect();
    if weights.iter().any(|w| *w != weights[0]) {
        r.not_modelled(
            "unequal weight",
            "the lab's pool sends calls round robin within a priority group, as equal weights do",
        );
    }
    let affinity = at(p, &["pool", "sessionAffinity"]).is_some();
    if levels.len() == 1 {
        r.set("reserved", 0);
        r.set("metered", count(levels[0]).min(4));
        r.set("strategy", if affinity { "sticky" } else { "round-robin" });
        r.say(Said::Note, format!("{} backends at one priority: calls go round robin{}; the lab counts them as metered deployments.", services.len(), if affinity { ", each session pinned by cookie" } else { "" }));
    } else {
        let (first, second) = (count(levels[0]), count(levels[1]));
        r.set("reserved", first.min(4));
        r.set("metered", second.min(4));
        r.set("strategy", "priority-pool");
        r.say(Said::Note, format!("Priority {}: {first} backend{} run as reserved capacity; priority {}: {second} run as metered, used only once every backend above has tripped its breaker.", levels[0], if first == 1 { "" } else { "s" }, levels[1]));
        if levels.len() > 2 {
            r.not_modelled(
                &format!("priority groups past the second ({} in all)", levels.len()),
                "the lab runs two",
            );
        }
        if affinity {
            r.not_modelled(
                "sessionAffinity with priority groups",
                "the lab pins sessions only in a pool of one priority",
            );
        }
    }
    if first_over_4(&levels, &priorities) {
        r.not_modelled(
            "more than 4 backends in a group",
            "the lab runs at most 4 of each kind",
        );
    }
    for key in unknown_keys(p, "pool properties", &["type", "pool"]) {
        r.not_modelled(
            &key,
            "a label or a setting the lab's pool has no counterpart for",
        );
    }
    for key in unknown_keys(
        &p["pool"],
        "properties.pool",
        &["services", "sessionAffinity"],
    ) {
        r.not_modelled(&key, "the lab's pool has no counterpart");
    }
    Ok(())
}

fn first_over_4(levels: &[i64], priorities: &[i64]) -> bool {
    levels
        .iter()
        .take(2)
        .any(|l| priorities.iter().filter(|p| *p == l).count() > 4)
}

/// Seconds of an ISO 8601 duration (`PT1M`).
fn seconds(v: &Value, what: &str) -> Result<u64, ConfigError> {
    let s = text(v).unwrap_or_default();
    let d = iso8601::duration(&s).map_err(|_| {
        ConfigError::new(format!(
            "{what} '{}' is not an ISO 8601 duration such as PT1M",
            sim_core::params::shown(&s)
        ))
    })?;
    Ok(std::time::Duration::from(d).as_secs())
}

/// The single backends' breaker rule (the first found; the lab gives every
/// backend the same one).
fn breaker(r: &mut Report, singles: &[&Value]) -> Result<(), ConfigError> {
    for b in singles {
        let creds = at(b, &["properties", "credentials"]);
        if creds.is_some() {
            r.secret(&format!("backend {} credentials", name_of(b)));
        }
        if let Some(map) = b.get("properties").and_then(Value::as_object) {
            for (k, v) in map {
                if is_secret(k, v) {
                    r.secret(&format!("backend {} {k}", name_of(b)));
                }
            }
        }
    }
    for b in singles {
        let props = b.get("properties").unwrap_or(&Value::Null);
        let secret = |key: &str| {
            props.as_object().is_some_and(|m| {
                m.iter()
                    .any(|(k, v)| key.ends_with(k.as_str()) && is_secret(k, v))
            })
        };
        for key in unknown_keys(
            props,
            &format!("backend {}", name_of(b)),
            &["circuitBreaker", "credentials", "type"],
        ) {
            if !secret(&key) {
                r.not_modelled(
                    &key,
                    "where and how the backend is reached; the lab's deployments stand in for it",
                );
            }
        }
    }
    let rules: Vec<&Value> = singles
        .iter()
        .filter_map(|b| {
            at(b, &["properties", "circuitBreaker", "rules"])?
                .as_array()?
                .first()
        })
        .collect();
    let Some(rule) = rules.first() else {
        r.set("breaker-429", 0);
        r.say(Said::Note, "No circuit breaker rule here: the next priority group is used only when every backend above has tripped one, so a full primary that answers 429 never sends its overflow on. The lab runs a breaker that counts server errors only.");
        r.fix(
            "Add a breaker rule that counts 429 and honours Retry-After",
            &[("breaker-429", "1"), ("retry-after", "1")],
        );
        return Ok(());
    };
    if rules.iter().any(|x| x != rule) {
        r.not_modelled(
            "backends with different breaker rules",
            "the lab gives every backend the first one",
        );
    }
    let c = &rule["failureCondition"];
    if let Some(n) = c.get("count").and_then(number) {
        if !(1.0..=100.0).contains(&n) {
            return Err(ConfigError::new(format!(
                "failureCondition.count {n} is outside 1–100"
            )));
        }
        r.set("breaker-count", n as u32);
        r.stated(
            "failureCondition.count",
            &(n as u32).to_string(),
            "1",
            "that many failures within the interval trip the breaker.",
        );
    }
    if c.get("percentage").is_some() {
        r.not_modelled(
            "failureCondition.percentage",
            "the lab's breaker counts failures",
        );
    }
    if let Some(v) = c.get("interval") {
        let s = seconds(v, "failureCondition.interval")?;
        r.set("breaker-window", s.clamp(1, 3600));
        r.say(
            Said::Note,
            format!("The breaker counts failures over {s} s."),
        );
    }
    let ranges: Vec<(f64, f64)> = c
        .get("statusCodeRanges")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|x| {
            Some((
                x.get("min").and_then(number)?,
                x.get("max").and_then(number)?,
            ))
        })
        .collect();
    let counts_429 = ranges.iter().any(|(lo, hi)| *lo <= 429.0 && 429.0 <= *hi);
    r.set("breaker-429", u8::from(counts_429));
    if counts_429 {
        r.say(Said::Note, "The rule counts 429: a full primary trips its breaker and the next group takes the overflow.");
    } else {
        r.say(Said::Differs, "The rule does not count 429: a full primary keeps answering 429 and never trips, so the next priority group serves nothing (the failure §14.4 warns about).");
        r.fix("Count 429 in the breaker rule", &[("breaker-429", "1")]);
    }
    if c.get("errorReasons").is_some() {
        r.not_modelled(
            "failureCondition.errorReasons",
            "the lab's failures are status codes",
        );
    }
    if let Some(v) = rule.get("tripDuration") {
        let s = seconds(v, "tripDuration")?;
        r.set("trip-s", s.clamp(1, 3600));
        r.say(
            Said::Note,
            format!("A tripped backend stays out {s} s unless Retry-After says otherwise."),
        );
    }
    let retry_after = rule
        .get("acceptRetryAfter")
        .and_then(boolean)
        .unwrap_or(false);
    r.set("retry-after", u8::from(retry_after));
    r.stated(
        "acceptRetryAfter",
        &retry_after.to_string(),
        "false",
        if retry_after {
            "a 429's Retry-After sets how long the backend stays out."
        } else {
            "the trip time ignores what the backend says about when to come back."
        },
    );
    Ok(())
}

/// The providers lab's pool as Bicep or ARM JSON.
pub fn export(pairs: &[(&str, &str)], head: &str, bicep: bool) -> Result<String, ConfigError> {
    let (c, strategy): (Config, _) = crate::lab_settings("providers", pairs)?;
    if !["priority-pool", "round-robin", "sticky"].contains(&strategy) {
        return Err(ConfigError::new(format!("an API Management pool runs priority groups, round robin or session affinity, not '{}'", sim_core::params::shown(strategy))));
    }
    let mut codes = vec![json!({ "min": 500, "max": 599 })];
    if c.breaker_429 {
        codes.insert(0, json!({ "min": 429, "max": 429 }));
    }
    let rule = json!({
        "name": "breaker",
        "failureCondition": { "count": c.breaker_count, "interval": format!("PT{}S", c.breaker_window), "statusCodeRanges": codes },
        "tripDuration": format!("PT{}S", c.trip_s),
        "acceptRetryAfter": c.retry_after,
    });
    let names: Vec<(String, u32)> = (0..c.deployments())
        .map(|d| {
            if c.is_reserved(d) {
                (format!("ptu{}", d + 1), 1)
            } else {
                (format!("payg{}", d + 1 - c.reserved as usize), 2)
            }
        })
        .collect();
    let priority = |p: u32| if strategy == "priority-pool" { p } else { 1 };
    if bicep {
        let mut out: String = crate::commented(head, "//");
        for (name, _) in &names {
            out.push_str(&format!("\nresource {name} '{BACKENDS}@2023-09-01-preview' = {{\n  name: 'myAPIM/{name}'\n  properties: {{\n    url: 'https://{name}.example.openai.azure.com/openai'\n    protocol: 'http'\n    circuitBreaker: {{\n      rules: [\n        {}\n      ]\n    }}\n  }}\n}}\n", to_bicep(&rule)));
        }
        out.push_str(&format!("\nresource pool '{BACKENDS}@2023-09-01-preview' = {{\n  name: 'myAPIM/aoai-pool'\n  properties: {{\n    type: 'Pool'\n    pool: {{\n      services: [\n"));
        for (name, p) in &names {
            out.push_str(&format!(
                "        {{ id: {name}.id, priority: {}, weight: 1 }}\n",
                priority(*p)
            ));
        }
        out.push_str("      ]\n");
        if strategy == "sticky" {
            out.push_str("      sessionAffinity: { sessionId: { source: 'Cookie', name: 'APIM-Backend' } }\n");
        }
        out.push_str("    }\n  }\n}\n");
        return Ok(out);
    }
    let mut resources: Vec<Value> = names.iter().map(|(name, _)| json!({
        "type": BACKENDS, "apiVersion": "2023-09-01-preview", "name": format!("myAPIM/{name}"),
        "properties": { "url": format!("https://{name}.example.openai.azure.com/openai"), "protocol": "http", "circuitBreaker": { "rules": [rule.clone()] } }
    })).collect();
    let services: Vec<Value> = names.iter().map(|(name, p)| json!({ "id": format!("[resourceId('{BACKENDS}', 'myAPIM', '{name}')]"), "priority": priority(*p), "weight": 1 })).collect();
    let mut pool = json!({ "services": services });
    if strategy == "sticky" {
        pool["sessionAffinity"] =
            json!({ "sessionId": { "source": "Cookie", "name": "APIM-Backend" } });
    }
    resources.push(json!({ "type": BACKENDS, "apiVersion": "2023-09-01-preview", "name": "myAPIM/aoai-pool", "properties": { "type": "Pool", "pool": pool } }));
    let template = json!({
        "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
        "contentVersion": "1.0.0.0",
        "metadata": { "comments": head },
        "resources": resources,
    });
    serde_json::to_string_pretty(&template).map_err(|e| ConfigError::new(e.to_string()))
}

/// A JSON value as a one-line Bicep literal.
fn to_bicep(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(to_bicep).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{ {} }}",
            map.iter()
                .map(|(k, x)| format!("{k}: {}", to_bicep(x)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}
