//! llm-d's endpoint picker configuration, in and out (article §14.1), and
//! the Kubernetes resources that route to it.
//!
//! An `EndpointPickerConfig` (group `llm-d.ai/v1alpha1`, or the older
//! `inference.networking.x-k8s.io/v1alpha1`, which llm-d still reads) lists
//! plugins by type under optional names, and scheduling profiles that
//! reference them with weights; a scorer referenced without a weight weighs
//! 1, and a profile without a picker gets `max-score-picker`
//! (gateway-api-inference-extension `pkg/epp/config/loader/defaults.go`).
//! With no configuration at all the picker runs queue 2, KV-cache use 2 and
//! approximate prefix 3, the routing lab's `llm-d` defaults. An `HTTPRoute`
//! or an `InferencePool` beside it is read for what it routes to; their
//! Kubernetes plumbing (selectors, ports, parent gateways) is named as not
//! modelled.

use serde_json::Value;
use sim_core::labs::routing::Config;
use sim_core::labs::serve::{ConfigReport, Said};
use sim_core::params::real_text;

use crate::report::Report;
use crate::tree::{at, number, text, unknown_keys};
use crate::ConfigError;

/// The scorers the routing lab weighs: (plugin type, the lab's key, llm-d's
/// default weight, what a larger weight favours).
const SCORERS: &[(&str, &str, f64, &str)] = &[
    (
        "queue-scorer",
        "llmd-queue",
        2.0,
        "short waiting queues count for more.",
    ),
    (
        "kv-cache-utilization-scorer",
        "llmd-kv",
        2.0,
        "free KV-cache memory counts for more.",
    ),
    (
        "prefix-cache-scorer",
        "llmd-prefix",
        3.0,
        "the gateway's record of where a prefix was sent counts for more.",
    ),
    (
        "precise-prefix-cache-scorer",
        "llmd-precise",
        0.0,
        "what the engines report holding counts for more.",
    ),
];

/// Plugin types the lab runs as llm-d does without a setting of its own.
const BUILT_IN: &[&str] = &["max-score-picker", "single-profile-handler"];

/// Read the documents of a YAML stream into the routing lab's `llm-d` rule.
pub fn import(docs: &[Value]) -> Result<ConfigReport, ConfigError> {
    let mut r = Report::new("llmd", "llm-d endpoint picker (Kubernetes YAML)");
    r.set("rule", "llm-d");
    let mut picker = false;
    for doc in docs {
        let kind = at(doc, &["kind"]).and_then(Value::as_str).unwrap_or("");
        match kind {
            "EndpointPickerConfig" => {
                if picker {
                    r.not_modelled("a second EndpointPickerConfig", "the first one is read");
                    continue;
                }
                picker = true;
                endpoint_picker(&mut r, doc)?;
            }
            "HTTPRoute" => http_route(&mut r, doc),
            "InferencePool" => inference_pool(&mut r, doc),
            "" => return Err(ConfigError::new("a YAML document without a kind")),
            other => r.not_modelled(
                &format!("kind {}", sim_core::params::shown(other)),
                "the lab reads EndpointPickerConfig, HTTPRoute and InferencePool",
            ),
        }
    }
    if !picker {
        for (_, key, default, _) in SCORERS {
            r.set(key, real_text(*default));
        }
        r.say(Said::Note, "No EndpointPickerConfig here: the endpoint picker runs llm-d's default profile, queue 2, KV-cache use 2 and approximate prefix 3, which the lab's llm-d rule runs.");
    }
    Ok(r.done())
}

/// An `HTTPRoute`: what its rules send traffic to.
fn http_route(r: &mut Report, doc: &Value) {
    let refs = at(doc, &["spec", "rules"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let pools: Vec<String> = refs
        .filter_map(|rule| rule.get("backendRefs")?.as_array())
        .flatten()
        .filter(|b| b.get("kind").and_then(Value::as_str) == Some("InferencePool"))
        .filter_map(|b| b.get("name").and_then(text))
        .collect();
    if pools.is_empty() {
        r.not_modelled(
            "HTTPRoute without an InferencePool backend",
            "the lab routes among one pool's engines",
        );
    } else {
        r.say(Said::Note, format!("HTTPRoute sends its traffic to the InferencePool {}: the lab's engines are that pool, picked by the endpoint picker.", sim_core::params::shown(&pools.join(", "))));
    }
    r.not_modelled(
        "HTTPRoute parentRefs, matches and filters",
        "the gateway in front of the pool is not simulated",
    );
}

/// An `InferencePool`: its picker and its plumbing.
fn inference_pool(r: &mut Report, doc: &Value) {
    let spec = doc.get("spec").cloned().unwrap_or(Value::Null);
    let picker = spec
        .get("endpointPickerRef")
        .or_else(|| spec.get("extensionRef"));
    if let Some(name) = picker.and_then(|p| p.get("name")).and_then(text) {
        r.say(
            Said::Note,
            format!(
                "InferencePool picks endpoints with {}: read as llm-d's endpoint picker.",
                sim_core::params::shown(&name)
            ),
        );
    }
    if let Some(mode) = picker.and_then(|p| p.get("failureMode")).and_then(text) {
        r.not_modelled(
            &format!("failureMode {}", sim_core::params::shown(&mode)),
            "the picker never fails in the lab",
        );
    }
    for key in unknown_keys(
        &spec,
        "InferencePool spec",
        &["endpointPickerRef", "extensionRef"],
    ) {
        r.not_modelled(
            &key,
            "which pods join the pool and on which port is Kubernetes plumbing",
        );
    }
}

/// An `EndpointPickerConfig`: the first profile's scorers and weights.
fn endpoint_picker(r: &mut Report, doc: &Value) -> Result<(), ConfigError> {
    // Plugin name → type (a plugin without a name goes by its type).
    let mut types: Vec<(String, String, Value)> = Vec::new();
    for p in at(doc, &["plugins"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(ty) = p.get("type").and_then(text) else {
            return Err(ConfigError::new("a plugin without a type"));
        };
        let name = p.get("name").and_then(text).unwrap_or_else(|| ty.clone());
        types.push((
            name,
            ty,
            p.get("parameters").cloned().unwrap_or(Value::Null),
        ));
    }
    let profiles = at(doc, &["schedulingProfiles"]).and_then(Value::as_array);
    let profile = profiles.and_then(|p| p.first());
    for extra in profiles.into_iter().flatten().skip(1) {
        let name = extra.get("name").and_then(text).unwrap_or_default();
        r.not_modelled(
            &format!("scheduling profile {}", sim_core::params::shown(&name)),
            "the lab runs one profile, the first",
        );
    }
    for key in unknown_keys(
        doc,
        "",
        &[
            "apiVersion",
            "kind",
            "plugins",
            "schedulingProfiles",
            "metadata",
        ],
    ) {
        r.not_modelled(&key, "the lab's picker has no counterpart");
    }
    let refs: Vec<(String, Option<f64>)> = match profile {
        Some(p) => p
            .get("plugins")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|x| {
                let name = x.get("pluginRef").and_then(text).unwrap_or_default();
                (name, x.get("weight").and_then(number))
            })
            .collect(),
        // No profile: one built from every plugin, scorers at weight 1.
        None => types.iter().map(|(n, _, _)| (n.clone(), None)).collect(),
    };
    let mut weights = [0.0; SCORERS.len()];
    for (name, weight) in refs {
        let Some((_, ty, params)) = types.iter().find(|(n, _, _)| *n == name) else {
            return Err(ConfigError::new(format!(
                "the profile refers to a plugin '{}' that is not listed under plugins",
                sim_core::params::shown(&name)
            )));
        };
        match SCORERS.iter().position(|s| s.0 == ty) {
            Some(i) => {
                let w = weight.unwrap_or(1.0);
                if !(0.0..=100.0).contains(&w) {
                    return Err(ConfigError::new(format!(
                        "{ty}: weight {w} is outside 0–100"
                    )));
                }
                weights[i] += w;
            }
            None if BUILT_IN.contains(&ty.as_str()) => {}
            None => r.not_modelled(ty, "the lab's llm-d rule has no such plugin"),
        }
        for key in unknown_keys(params, &format!("{ty} parameters"), &[]) {
            r.not_modelled(&key, "the lab's scorer keeps llm-d's defaults");
        }
    }
    for ((ty, key, default, favours), w) in SCORERS.iter().zip(weights) {
        r.set(key, real_text(w));
        let effect = if w > *default {
            format!("weighted up, {favours}")
        } else if w == 0.0 {
            "left out of the profile.".into()
        } else {
            format!("weighted down, {favours}").replace("counts for more", "counts for less")
        };
        r.stated(
            &format!("{ty} weight"),
            &real_text(w),
            &real_text(*default),
            &effect,
        );
    }
    Ok(())
}

/// The routing lab's llm-d weights as an `EndpointPickerConfig`.
pub fn export(pairs: &[(&str, &str)], head: &str) -> Result<String, ConfigError> {
    let (config, rule): (Config, _) = crate::lab_settings("routing", pairs)?;
    if rule != "llm-d" {
        return Err(ConfigError::new(
            "an EndpointPickerConfig describes llm-d's scorers: pick the llm-d rule",
        ));
    }
    let w = &config.rules.llmd;
    let weights = [w.queue, w.kv_cache, w.prefix, w.precise];
    let mut out = crate::commented(head, "#");
    out.push_str("apiVersion: llm-d.ai/v1alpha1\nkind: EndpointPickerConfig\nplugins:\n");
    let used: Vec<(&str, f64)> = SCORERS
        .iter()
        .zip(weights)
        .filter(|(_, w)| *w > 0.0)
        .map(|(s, w)| (s.0, w))
        .collect();
    for (ty, _) in &used {
        out.push_str(&format!("- type: {ty}\n"));
    }
    out.push_str("- type: max-score-picker\nschedulingProfiles:\n- name: default\n  plugins:\n");
    for (ty, w) in &used {
        out.push_str(&format!(
            "  - pluginRef: {ty}\n    weight: {}\n",
            real_text(*w)
        ));
    }
    out.push_str("  - pluginRef: max-score-picker\n");
    Ok(out)
}
