//! LiteLLM's router configuration, in and out (article §12.3, §14.3).
//!
//! `model_list` holds deployments (`model_name` is the group a call names,
//! `litellm_params` where and how to reach it); `router_settings` how the
//! router picks among a group's deployments. Defaults are the router's code
//! (`litellm/router.py`, `litellm/constants.py`): simple shuffle, 2 retries
//! (the OpenAI client's, which the router falls back to), a 5 s cooldown,
//! weighted failover off, at most 5 fallbacks. LiteLLM does not know
//! reserved capacity, so every deployment is a metered one in the lab, and
//! regions are told apart by `region_name` or else the `api_base` host.

use serde_json::Value;
use sim_core::labs::providers::Config;
use sim_core::labs::serve::{ConfigReport, Said};

use crate::report::Report;
use crate::tree::{boolean, is_secret, number, text, unknown_keys};
use crate::ConfigError;

/// LiteLLM's strategy names and the lab's.
const STRATEGIES: &[(&str, &str)] = &[
    ("simple-shuffle", "shuffle"),
    ("usage-based-routing", "usage"),
    ("usage-based-routing-v2", "usage"),
    ("latency-based-routing", "latency"),
    ("least-busy", "least-busy"),
    ("cost-based-routing", "cost"),
];

/// Most metered deployments the lab runs.
const MAX_DEPLOYMENTS: usize = 4;

/// Read `model_list` and `router_settings` into the providers lab.
pub fn import(docs: &[Value]) -> Result<ConfigReport, ConfigError> {
    let doc = docs
        .iter()
        .find(|d| d.get("model_list").is_some())
        .ok_or_else(|| ConfigError::new("no model_list"))?;
    let mut r = Report::new("litellm", "LiteLLM router (YAML)");
    for key in unknown_keys(
        doc,
        "",
        &[
            "model_list",
            "router_settings",
            "litellm_settings",
            "general_settings",
        ],
    ) {
        r.not_modelled(&key, "outside the router");
    }
    for key in ["litellm_settings", "general_settings"] {
        if doc.get(key).is_some() {
            r.not_modelled(key, "proxy-wide settings, not the router's choice");
        }
    }
    deployments(&mut r, doc)?;
    settings(&mut r, doc.get("router_settings").unwrap_or(&Value::Null))?;
    if r.get("regions") == Some("2") && r.get("strategy") != Some("sticky") {
        r.fix(
            "Pin each conversation to one deployment (session affinity)",
            &[("strategy", "sticky")],
        );
    }
    Ok(r.done())
}

/// The first model group's deployments: how many, in how many regions, with
/// what quota.
fn deployments(r: &mut Report, doc: &Value) -> Result<(), ConfigError> {
    let list = doc
        .get("model_list")
        .and_then(Value::as_array)
        .ok_or_else(|| ConfigError::new("model_list is not a list of deployments"))?;
    let group = list
        .first()
        .and_then(|d| d.get("model_name"))
        .and_then(text)
        .ok_or_else(|| ConfigError::new("the first deployment has no model_name"))?;
    let mut regions: Vec<String> = Vec::new();
    let (mut weights, mut rpm, mut tpm) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = 0;
    for (i, d) in list.iter().enumerate() {
        let name = d.get("model_name").and_then(text).unwrap_or_default();
        if name != group {
            r.not_modelled(
                &format!(
                    "model_list[{i}] (model_name {})",
                    sim_core::params::shown(&name)
                ),
                &format!(
                    "the lab routes one model group, the first ({})",
                    sim_core::params::shown(&group)
                ),
            );
            continue;
        }
        let p = d.get("litellm_params").unwrap_or(&Value::Null);
        let region = p
            .get("region_name")
            .and_then(text)
            .or_else(|| p.get("api_base").and_then(text).map(|b| host(&b)))
            .unwrap_or_default();
        if !regions.contains(&region) {
            regions.push(region);
        }
        weights.push(p.get("weight").and_then(number));
        rpm.push(p.get("rpm").and_then(number));
        tpm.push(p.get("tpm").and_then(number));
        n += 1;
        let path = format!("model_list[{i}].litellm_params");
        let read = ["model", "api_base", "region_name", "weight", "rpm", "tpm"];
        if let Some(map) = p.as_object() {
            for (k, v) in map {
                if is_secret(k, v) {
                    r.secret(&format!("{path}.{k}"));
                } else if k == "model" {
                    let model = text(v).unwrap_or_default();
                    r.not_modelled(
                        &format!("{path}.model {}", sim_core::params::shown(&model)),
                        "the lab's prices, speeds and cache stand in for the provider's model",
                    );
                } else if !read.contains(&k.as_str()) {
                    r.not_modelled(
                        &format!("{path}.{k}"),
                        "every deployment in the lab answers alike apart from its region and quota",
                    );
                }
            }
        }
        for key in unknown_keys(
            d,
            &format!("model_list[{i}]"),
            &["model_name", "litellm_params"],
        ) {
            r.not_modelled(&key, "the lab reads where a deployment is and its quota");
        }
    }
    if n > MAX_DEPLOYMENTS {
        r.not_modelled(
            &format!(
                "{} deployments past the first {MAX_DEPLOYMENTS}",
                n - MAX_DEPLOYMENTS
            ),
            "the lab runs at most 4 metered deployments",
        );
    }
    r.set("reserved", 0);
    r.set("metered", n.min(MAX_DEPLOYMENTS));
    r.say(Said::Note, format!("{n} deployment{} of {} served on metered capacity (LiteLLM has no notion of reserved capacity).", if n == 1 { "" } else { "s" }, sim_core::params::shown(&group)));
    let k = regions.len();
    r.set("regions", k.clamp(1, 2));
    if k > 2 {
        r.not_modelled(
            &format!("{k} regions"),
            "the lab runs one or two; deployments alternate between two",
        );
    } else if k == 2 {
        r.say(Said::Note, "Two regions: each has its own provider cache, so a conversation's turn sent to the other region reads none of its history.");
    }
    if weights.iter().flatten().any(|w| Some(*w) != weights[0]) {
        r.not_modelled(
            "unequal weight",
            "the lab's shuffle picks with equal weights",
        );
    } else if let Some(Some(w)) = weights.first() {
        r.stated(
            "weight",
            &sim_core::params::real_text(*w),
            "1",
            "every deployment has the same weight, so the shuffle is even.",
        );
    }
    quota(r, "rpm", "quota-rpm", &rpm)?;
    quota(r, "tpm", "quota-tpm", &tpm)
}

/// A deployment quota, when every deployment states the same one.
fn quota(r: &mut Report, name: &str, key: &str, given: &[Option<f64>]) -> Result<(), ConfigError> {
    let Some(Some(q)) = given.first().copied() else {
        return Ok(());
    };
    if given.iter().any(|g| *g != Some(q)) {
        r.not_modelled(
            &format!("unequal {name}"),
            "the lab gives every metered deployment one quota; the first is used",
        );
    }
    if !(1.0..=100_000_000.0).contains(&q) {
        return Err(ConfigError::new(format!(
            "{name} {q} is outside 1–100000000"
        )));
    }
    r.set(key, q.round() as u64);
    r.say(
        Said::Note,
        format!(
            "{name}: {} a minute per deployment, the lab's metered quota.",
            q.round() as u64
        ),
    );
    Ok(())
}

/// `https://eastus2.example.azure.com/x` → `eastus2.example.azure.com`.
fn host(base: &str) -> String {
    let rest = base.split_once("://").map_or(base, |(_, r)| r);
    rest.split(['/', ':']).next().unwrap_or(rest).to_string()
}

/// `router_settings`: the strategy and how failures are retried.
fn settings(r: &mut Report, s: &Value) -> Result<(), ConfigError> {
    let strategy = s.get("routing_strategy").and_then(text);
    let lab = match &strategy {
        None => "shuffle",
        Some(name) => match STRATEGIES.iter().find(|(n, _)| n == name) {
            Some((_, lab)) => lab,
            None => {
                return Err(ConfigError::new(format!(
                    "routing_strategy '{}' is not one of LiteLLM's",
                    sim_core::params::shown(name)
                )))
            }
        },
    };
    r.set("strategy", lab);
    if let Some(name) = &strategy {
        r.stated(
            "routing_strategy",
            name,
            "simple-shuffle",
            &format!("the lab runs its {lab} strategy."),
        );
    }
    r.set("retries", 2);
    if let Some(v) = s.get("num_retries") {
        let n = number(v)
            .filter(|n| (0.0..=10.0).contains(n) && n.fract() == 0.0)
            .ok_or_else(|| ConfigError::new("num_retries must be a whole number from 0 to 10"))?;
        r.set("retries", n as u32);
        r.stated(
            "num_retries",
            &(n as u32).to_string(),
            "2",
            "a failed call is tried that many more times before the client sees the error.",
        );
    }
    if let Some(v) = s.get("enable_weighted_failover") {
        let on = boolean(v)
            .ok_or_else(|| ConfigError::new("enable_weighted_failover must be true or false"))?;
        let effect = "a failed call is retried on another deployment of the same group, as the lab's retries do.";
        r.stated("enable_weighted_failover", &on.to_string(), "false", effect);
        if on && lab != "shuffle" {
            r.say(Said::Note, "enable_weighted_failover works only with simple-shuffle; with this strategy LiteLLM ignores it.");
        }
    }
    let read = [
        "routing_strategy",
        "num_retries",
        "enable_weighted_failover",
    ];
    let why = |k: &str| {
        match k {
        "cooldown_time" | "allowed_fails" => "the lab's cooldowns are LiteLLM's defaults (5 s; a 429 at once, or over half of a minute's calls failing)",
        "max_fallbacks" | "fallbacks" | "context_window_fallbacks" => "the lab routes one model group and has no other to fall back to",
        "timeout" | "stream_timeout" => "calls in the lab do not time out",
        _ => "the lab's router has no counterpart",
    }
    };
    if let Some(map) = s.as_object() {
        for (k, v) in map {
            if is_secret(k, v) {
                r.secret(&format!("router_settings.{k}"));
            } else if !read.contains(&k.as_str()) {
                r.not_modelled(&format!("router_settings.{k}"), why(k));
            }
        }
    }
    Ok(())
}

/// The providers lab's deployments and strategy as a LiteLLM configuration.
pub fn export(pairs: &[(&str, &str)], head: &str) -> Result<String, ConfigError> {
    let (c, strategy): (Config, _) = crate::lab_settings("providers", pairs)?;
    let Some((name, _)) = STRATEGIES.iter().rev().find(|(_, s)| *s == strategy) else {
        return Err(ConfigError::new(format!(
            "LiteLLM has no '{}' strategy: pick shuffle, usage, latency, least busy or cost",
            sim_core::params::shown(strategy)
        )));
    };
    if c.reserved > 0 {
        return Err(ConfigError::new("LiteLLM's router knows no reserved capacity: set reserved deployments to 0 to write its configuration"));
    }
    let mut out: String = crate::commented(head, "#");
    out.push_str("model_list:\n");
    for d in 0..c.metered as usize {
        let region = c.region(d) + 1;
        out.push_str(&format!(
            "  - model_name: gpt-4.1-mini\n    litellm_params:\n      model: azure/gpt-4.1-mini\n      api_base: https://region{region}.example.azure.com\n      api_key: os.environ/AZURE_REGION{region}_KEY\n      weight: 1\n      rpm: {}\n      tpm: {}\n",
            c.quota_rpm, c.quota_tpm
        ));
    }
    out.push_str(&format!(
        "router_settings:\n  routing_strategy: {name}\n  num_retries: {}\n",
        c.retries
    ));
    if *name == "simple-shuffle" {
        out.push_str("  enable_weighted_failover: true\n");
    }
    Ok(out)
}
