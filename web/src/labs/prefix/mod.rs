//! The prefix-affinity player page (article §6.1): two routers, one trace, side
//! by side, one request at a time.

mod state;

use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use sim_core::labs::prefix::{
    self, Outcome, PrefixReason, PrefixRequest, RouterRun, TraceChoice, PREFIXES,
};
use wasm_bindgen::JsCast;

use crate::charts::threshold_sweep;
use crate::components::{
    ChartError, ControlKind, ControlSpec, Controls, ErrorLine, Getter, Notice, Player, Setter,
};
use crate::format::thousands;
use crate::html::{escape, Cell, Row, Table};
use crate::url::ParamReader;

/// The reason for one decision, in plain words (replicas 1-based).
fn explain(
    reason: PrefixReason,
    req: &PrefixRequest,
    target: u32,
    threshold: Option<u32>,
    load_before: u32,
) -> String {
    let p = req.prefix;
    match reason {
        PrefixReason::Load => format!(
            "Fewest assignments so far: replica {} had {load_before}. The prefix is not looked at.",
            target + 1
        ),
        PrefixReason::FirstSight => format!("First sight of P{p}: no replica has it, so it goes to the least-loaded replica."),
        PrefixReason::Affinity => format!("Replica {} caches P{p} and is within the load gap: affinity wins.", target + 1),
        PrefixReason::AffinityDropped { holder, holder_load, least_load } => format!(
            "Affinity dropped: replica {} holds P{p} but is {} requests ahead of replica {}, over the threshold of {}.",
            holder + 1,
            holder_load - least_load,
            target + 1,
            threshold.map_or("∞".into(), |t| t.to_string())
        ),
        PrefixReason::Evicted => format!("P{p} was seen before but no replica still caches it: sent by load."),
    }
}

/// A change to the trace's prefix ids.
type TraceEdit = Box<dyn Fn(&mut Vec<u8>)>;

/// The threshold slider's label: a number, or ∞ at the far right.
fn threshold_label(x: f64) -> String {
    if x >= state::INF_POSITION {
        "∞".into()
    } else {
        crate::format::fixed(x, 0)
    }
}

/// The prefix player's sliders (the trace editor follows them).
fn control_specs() -> Vec<ControlSpec> {
    let whole = |x: f64| crate::format::fixed(x, 0);
    vec![
        ControlSpec {
            key: "threshold",
            label: "Escape threshold",
            hint: "load gap affinity tolerates; far right is ∞",
            kind: ControlKind::Range {
                min: 0.0,
                max: state::INF_POSITION,
                step: 1.0,
                unit: "requests",
                format: threshold_label,
            },
        },
        ControlSpec {
            key: "replicas",
            label: "Replicas",
            hint: "",
            kind: ControlKind::Range {
                min: 2.0,
                max: 6.0,
                step: 1.0,
                unit: "",
                format: whole,
            },
        },
        ControlSpec {
            key: "slots",
            label: "Cache slots per replica",
            hint: "one prefix per slot, least recently used evicted",
            kind: ControlKind::Range {
                min: 1.0,
                max: 4.0,
                step: 1.0,
                unit: "",
                format: whole,
            },
        },
    ]
}

/// The prefix-affinity player.
#[component]
pub fn PrefixLab(
    /// The page's query pairs.
    pairs: Vec<(String, String)>,
) -> impl IntoView {
    let mut reader = ParamReader::new(pairs);
    let (initial, initial_step) = state::from_query(&mut reader);
    let notices = reader.notices.clone();
    let (config, set_config) = signal(initial);
    let step = RwSignal::new(initial_step);
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(1.0);

    let (outcome, error) =
        super::use_lab_run(move || config.with(|c| prefix::run(c).map_err(|e| e.to_string())));
    let len = Signal::derive(move || outcome.with(|o| o.as_ref().map_or(1, |o| o.trace.len())));
    super::clamp_step(step, len);
    super::sync_url(Arc::new(move || {
        config.with(|c| state::to_query(c, step.get()))
    }));

    let canvas_ref = NodeRef::<Canvas>::new();
    let chart_error = super::draw_effect(
        canvas_ref,
        Arc::new(move |_| {
            let current = config.with(|c| c.threshold.map_or(11, |t| t.min(10) as usize));
            outcome.with(|o| o.as_ref().map(|o| threshold_sweep::spec(&o.sweep, current)))
        }),
    );
    let sweep_text = Signal::derive(move || {
        outcome.with(|o| {
            o.as_ref()
                .map(|o| {
                    let parts: Vec<String> = o
                        .sweep
                        .iter()
                        .map(|p| {
                            format!(
                                "{}: {} hits, gap {}",
                                p.threshold.map_or("∞".into(), |t| t.to_string()),
                                p.hits,
                                p.assignment_gap
                            )
                        })
                        .collect();
                    format!(
                        "Prefix-aware hits and final assignment gap by threshold. {}.",
                        parts.join("; ")
                    )
                })
                .unwrap_or_default()
        })
    });

    let get: Getter = Arc::new(move |key: &str| {
        config.with(|c| match key {
            "threshold" => c
                .threshold
                .map_or(state::INF_POSITION, f64::from)
                .to_string(),
            "replicas" => c.replicas.to_string(),
            "slots" => c.slots.to_string(),
            _ => String::new(),
        })
    });
    let set: Setter = Arc::new(move |key: &str, value: &str| {
        let Some(x) = crate::num::parse_f64(value).filter(|x| x.is_finite() && *x >= 0.0) else {
            return;
        };
        set_config.update(|c| match key {
            "threshold" => {
                c.threshold = if x >= state::INF_POSITION {
                    None
                } else {
                    Some(x as u32)
                }
            }
            "replicas" => c.replicas = x as u32,
            "slots" => c.slots = x as u32,
            _ => {}
        })
    });
    let edit = move |f: TraceEdit| {
        let mut v: Vec<u8> = outcome
            .get_untracked()
            .map(|o| o.trace.iter().map(|r| r.prefix).collect())
            .unwrap_or_default();
        f(&mut v);
        if !v.is_empty() && v.len() <= 40 {
            set_config.update(|c| c.trace = TraceChoice::Custom(v));
        }
    };
    let on_trace_change = move |ev: web_sys::Event| {
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        let value = js_sys::Reflect::get(&el, &"value".into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        if el.id() == "seed" {
            if let Ok(seed) = value.trim().parse::<u64>() {
                set_config.update(|c| {
                    c.seed = seed;
                    c.trace = TraceChoice::Random;
                });
            }
        } else if let (Some(i), Ok(p)) = (
            el.get_attribute("data-req")
                .and_then(|i| i.parse::<usize>().ok()),
            value.parse::<u8>(),
        ) {
            edit(Box::new(move |v| {
                if let Some(x) = v.get_mut(i) {
                    *x = p;
                }
            }));
        }
    };
    let on_trace_click = move |ev: web_sys::MouseEvent| {
        let Some(key) = crate::html::clicked_key(&ev) else {
            return;
        };
        match key.as_str() {
            "add-request" => edit(Box::new(|v| v.push(1))),
            "default-trace" => set_config.update(|c| c.trace = TraceChoice::Default),
            "random-trace" => set_config.update(|c| {
                c.trace = TraceChoice::Random;
                c.seed = (js_sys::Math::random() * 1e6) as u64;
            }),
            k => {
                if let Some(i) = k.strip_prefix("rm-").and_then(|i| i.parse::<usize>().ok()) {
                    edit(Box::new(move |v| {
                        if i < v.len() {
                            v.remove(i);
                        }
                    }));
                }
            }
        }
    };
    let current = move || {
        let i = step.get();
        outcome.with(|o| o.as_ref().and_then(|o| o.trace.get(i).copied()))
    };

    view! {
        <article class="lab" id="prefix-lab">
            <header class="lab-header" inner_html=HEADER_HTML></header>
            <Notice messages=notices />
            <ErrorLine error=error />
            <div class="lab-grid">
                <section class="controls" aria-label="Controls">
                    <h2>"Setup"</h2>
                    <Controls specs=control_specs() get=get set=set />
                    <fieldset class="trace-editor" data-control="trace">
                        <legend>"Trace"</legend>
                        <div on:change=on_trace_change on:click=on_trace_click
                            inner_html=move || outcome.with(|o| o.as_ref().map(|o| trace_editor_html(o)).unwrap_or_default())></div>
                    </fieldset>
                </section>
                <section class="results" aria-label="Player">
                    <Player step=step len=len unit="request" playing=playing speed=speed />
                    <h2 id="request-heading">{move || current().map(|r| format!(
                        "Request R{} · prefix P{} · prompt {} tokens ({} + {})",
                        step.get() + 1, r.prefix, thousands(r.prompt_tokens().into()), thousands(r.prefix_tokens.into()), r.suffix_tokens
                    )).unwrap_or_default()}</h2>
                    <div class="side-by-side" inner_html=move || outcome.with(|o| {
                        o.as_ref().map(|o| {
                            let i = step.get().min(o.trace.len().saturating_sub(1));
                            o.routers.iter().map(|r| panel_html(r, &o.trace, i, o.config.threshold)).collect::<String>()
                        }).unwrap_or_default()
                    })></div>
                    <p class="reduction" id="reduction">{move || outcome.with(|o| o.as_ref().map(|o| {
                        let i = step.get().min(o.trace.len().saturating_sub(1));
                        let a = o.routers[0].steps[i].cumulative_prefill as f64;
                        let b = o.routers[1].steps[i].cumulative_prefill as f64;
                        format!("Prefill reduction so far: {}% ({} / {} tokens)", crate::format::fixed(if a > 0.0 { 100.0 * (1.0 - b / a) } else { 0.0 }, 1),
                            thousands(b as u64), thousands(a as u64))
                    }))}</p>
                    <div inner_html=move || outcome.with(|o| o.as_ref().map(|o| steps_html(o, step.get())).unwrap_or_default())></div>
                    <figure class="chart">
                        <figcaption>"The dial: prefix-aware hits and final load gap as the threshold grows"</figcaption>
                        <canvas node_ref=canvas_ref id="sweep-chart" class="short" role="img" aria-label=sweep_text></canvas>
                        <ChartError error=chart_error />
                        <p class="sr-only">{sweep_text}</p>
                    </figure>
                </section>
            </div>
        </article>
    }
}

/// Every request with both routers' decisions, as an HTML table; the request on
/// the player is highlighted.
fn steps_html(o: &Outcome, current: usize) -> String {
    let head = [
        "Request",
        "Prefix",
        "Load only",
        "Prefill",
        "Prefix-aware",
        "Why",
        "Prefill",
    ]
    .iter()
    .map(|h| (h.to_string(), String::new()))
    .collect();
    let (a, b) = (&o.routers[0], &o.routers[1]);
    let rows = o
        .trace
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let place = |s: &sim_core::labs::prefix::Step| {
                format!(
                    "replica {} · {}",
                    s.target + 1,
                    if s.hit { "hit" } else { "miss" }
                )
            };
            Row {
                cells: vec![
                    Cell::new(format!("R{}", i + 1)),
                    Cell::new(format!("P{}", r.prefix)),
                    Cell::new(place(&a.steps[i])),
                    Cell::new(thousands(a.steps[i].prefill_tokens.into())),
                    Cell::new(place(&b.steps[i])),
                    Cell::new(b.steps[i].reason.name()).class("sent"),
                    Cell::new(thousands(b.steps[i].prefill_tokens.into())),
                ],
                selected: i == current,
                key: None,
            }
        })
        .collect();
    Table {
        id: "prefix-steps",
        caption: "Every request, both routers (prefill in tokens)".into(),
        head,
        rows,
        ..Table::default()
    }
    .render()
}

/// The editable trace: a prefix picker per request, remove buttons, and the
/// add / article / random buttons with the random trace's seed (one delegated
/// change and one click handler read them).
fn trace_editor_html(o: &Outcome) -> String {
    let mut s = String::from(r#"<ol class="trace-list" id="trace-list">"#);
    for (i, r) in o.trace.iter().enumerate() {
        s += &format!(
            r#"<li><label class="sr-only" for="req-{i}">Prefix of request {}</label><select id="req-{i}" data-req="{i}">"#,
            i + 1
        );
        for p in 1..=PREFIXES.len() as u8 {
            let sel = if p == r.prefix { " selected" } else { "" };
            s += &format!(r#"<option value="{p}"{sel}>P{p}</option>"#);
        }
        s += &format!(
            r#"</select><button class="icon" data-key="rm-{i}" aria-label="Remove request {}" title="Remove">×</button></li>"#,
            i + 1
        );
    }
    s += r#"</ol><div class="trace-buttons"><button id="add-request" data-key="add-request">Add request</button><button data-key="default-trace">Article's trace</button><button id="random-trace" data-key="random-trace">Random skewed trace</button></div>"#;
    s += &format!(
        r#"<div class="seed-row"><label for="seed">Seed of the random trace</label><input id="seed" type="number" min="0" step="1" value="{}"></div><p class="small muted">"#,
        o.config.seed
    );
    let sizes: Vec<String> = PREFIXES
        .iter()
        .enumerate()
        .map(|(i, (p, q))| format!("P{}: {} + {}", i + 1, thousands((*p).into()), q))
        .collect();
    s += &sizes.join(" · ");
    s + " tokens (prefix + suffix)</p>"
}

/// One router's panel at request `index`, as HTML.
fn panel_html(
    run: &RouterRun,
    trace: &[PrefixRequest],
    index: usize,
    threshold: Option<u32>,
) -> String {
    let s = &run.steps[index];
    let req = trace[index];
    let before = if index == 0 {
        0
    } else {
        run.steps[index - 1].assignments[s.target as usize]
    };
    let reason = escape(&explain(s.reason, &req, s.target, threshold, before));
    let (badge, badge_text) = if s.hit {
        ("hit", "cache hit")
    } else {
        ("miss", "cache miss")
    };
    let mut h = format!(
        r#"<div class="router-panel" id="panel-{}"><h3>{}</h3><p class="routed">Routed to <strong>replica {}</strong> <span class="badge {badge}">{badge_text}</span></p><p class="reason">{reason}</p><div class="caches" role="list" aria-label="Cache contents per replica">"#,
        run.router.name(),
        run.router.title(),
        s.target + 1
    );
    for (r, entries) in s.caches.iter().enumerate() {
        let slots: String = if entries.is_empty() {
            r#"<span class="slot empty">empty</span>"#.into()
        } else {
            entries
                .iter()
                .map(|e| {
                    format!(
                        r#"<span class="slot">P{} · {} hit{}</span>"#,
                        e.prefix,
                        e.hits,
                        if e.hits == 1 { "" } else { "s" }
                    )
                })
                .collect()
        };
        h += &format!(
            r#"<div class="cache{}" role="listitem"><span class="cache-name">Replica {}</span>{slots}<span class="cache-load">{} assigned</span></div>"#,
            if r as u32 == s.target { " target" } else { "" },
            r + 1,
            s.assignments[r]
        );
    }
    let hits = run.steps[..=index].iter().filter(|x| x.hit).count();
    h += &format!(
        r#"</div><dl class="totals"><dt>Prefill for this request</dt><dd>{} tokens</dd><dt>Cumulative prefill</dt><dd class="cumulative">{} tokens</dd><dt>Hits so far</dt><dd class="hits">{hits} of {}</dd></dl></div>"#,
        thousands(s.prefill_tokens.into()),
        thousands(s.cumulative_prefill),
        index + 1
    );
    h
}

/// The page header: title, what to try, and what a tick means (static).
const HEADER_HTML: &str = r#"<h1>Prefix affinity versus balance</h1><p class="lede">Two routers place the same requests on replicas that can each cache a single prompt prefix. Step through: the load-only router hits the cache by luck; the prefix-aware one follows the cache until a replica gets too far ahead, then gives up affinity. Move the threshold to trade hits against balance.</p><p class="small muted">Load counts every request assigned so far; ties go to the lowest-numbered replica. Follows §6.1 of the reference article.</p>"#;
