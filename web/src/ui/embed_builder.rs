//! The embed builder under every lab: tick the panels an embed shows
//! (`view=`) and the controls a reader may change (`controls=`), see the
//! embed live at an article's width with its height, and copy the snippet.
//! Everything it writes is an ordinary URL key (EMBEDDING.md).

use leptos::prelude::*;
use sim_core::labs as registry;
use sim_core::params::Tier;

use super::share_bar::embed_snippet;
use crate::platform::url::{build_query, parse_query};
use sim_core::labs::Panel;

/// Words for each panel name, for the checkboxes.
fn panel_label(p: &str) -> &'static str {
    match p {
        "player" => "Player (step-through view)",
        "chart" => "Charts",
        "controls" => "Controls",
        "cards" => "Headline numbers",
        "table" => "Tables",
        "intro" => "Introduction",
        _ => "",
    }
}

/// The keys a reader could be allowed to change in lab `id`: its main
/// parameters, then its focus, then a trace for labs that replay them.
pub fn lockable_keys(id: &str) -> Vec<(&'static str, &'static str)> {
    let Some(lab) = registry::find(id) else {
        return Vec::new();
    };
    let mut keys: Vec<(&'static str, &'static str)> = (lab.params)()
        .into_iter()
        .filter(|s| s.tier == Tier::Main)
        .map(|s| (s.key, s.label))
        .collect();
    if let Some(f) = lab.focus {
        keys.push((f.key, f.label));
    }
    if lab.replays_traces {
        keys.push(("trace", "Trace"));
    }
    keys
}

/// `search` (the lab's current query) as an embed: `embed=1`, and `view=` /
/// `controls=` when given; any earlier embedding keys are replaced.
pub fn embed_query(search: &str, view: Option<&[&str]>, controls: Option<&[&str]>) -> String {
    let mut pairs: Vec<(String, String)> = parse_query(search)
        .into_iter()
        .filter(|(k, _)| !matches!(k.as_str(), "embed" | "view" | "controls"))
        .collect();
    pairs.push(("embed".into(), "1".into()));
    if let Some(v) = view {
        pairs.push(("view".into(), v.join(",")));
    }
    if let Some(c) = controls {
        pairs.push(("controls".into(), c.join(",")));
    }
    let pairs: Vec<(&str, String)> = pairs.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    build_query(&pairs)
}

/// A checkbox per panel: ticked ones are the embed's `view=`.
fn panel_boxes(panels: RwSignal<Vec<&'static str>>) -> impl IntoView {
    Panel::ALL
        .iter()
        .map(|p| {
            let p = p.name();
            let id = format!("embed-view-{p}");
            let for_id = id.clone();
            let toggle = move |ev: web_sys::Event| {
                let on = event_target_checked(&ev);
                panels.update(|v| {
                    v.retain(|x| *x != p);
                    if on {
                        v.push(p);
                        v.sort_by_key(|x| Panel::ALL.iter().position(|y| y.name() == *x));
                    }
                });
            };
            view! {
                <label class="check" for=for_id>
                    <input type="checkbox" id=id prop:checked=move || panels.with(|v| v.contains(&p)) on:change=toggle />
                    " " {panel_label(p)}
                </label>
            }
        })
        .collect_view()
}

/// A checkbox per lockable key: ticked ones are the embed's `controls=`
/// (enabled once "only the ticked controls" is on).
fn key_boxes(
    keys: Vec<(&'static str, &'static str)>,
    lock: RwSignal<bool>,
    allowed: RwSignal<Vec<&'static str>>,
) -> impl IntoView {
    keys.into_iter()
        .map(|(k, label)| {
            let id = format!("embed-allow-{k}");
            let for_id = id.clone();
            let toggle = move |ev: web_sys::Event| {
                let on = event_target_checked(&ev);
                allowed.update(|v| {
                    v.retain(|x| *x != k);
                    if on {
                        v.push(k);
                    }
                });
            };
            view! {
                <label class="check" for=for_id>
                    <input type="checkbox" id=id prop:disabled=move || !lock.get()
                        prop:checked=move || allowed.with(|v| v.contains(&k)) on:change=toggle />
                    " " {label}
                </label>
            }
        })
        .collect_view()
}

/// The builder for lab `lab` (shown when the share bar's Embed is pressed).
#[component]
pub fn EmbedBuilder(
    /// The lab's id.
    lab: &'static str,
    /// The lab's title (the iframe's title).
    title: &'static str,
) -> impl IntoView {
    let defaults = move || -> Vec<&'static str> {
        sim_core::labs::find(lab)
            .map(|l| l.info.embed_view.iter().map(|p| p.name()).collect())
            .unwrap_or_default()
    };
    let panels = RwSignal::new(defaults());
    let lock = RwSignal::new(false);
    let keys = lockable_keys(lab);
    let allowed = RwSignal::new(Vec::<&'static str>::new());
    let width = RwSignal::new(640u32);
    let height = RwSignal::new(None::<i32>);
    // The preview posts its height like any embed; only it can post here.
    let handle = window_event_listener(leptos::ev::message, move |e| {
        let d = e.data();
        let get = |k: &str| js_sys::Reflect::get(&d, &k.into()).ok();
        if get("source").and_then(|v| v.as_string()).as_deref() == Some("lblab")
            && get("type").and_then(|v| v.as_string()).as_deref() == Some("resize")
        {
            height.set(get("height").and_then(|v| v.as_f64()).map(|h| h as i32));
        }
    });
    on_cleanup(move || handle.remove());
    let query = move || {
        let search = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        let view = panels.get();
        let view = (view != defaults()).then_some(view);
        let allowed = allowed.get();
        embed_query(
            &search,
            view.as_deref(),
            lock.get().then_some(allowed.as_slice()),
        )
    };
    let absolute = move || {
        let base = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .map(|h| h.split('?').next().unwrap_or_default().to_string())
            .unwrap_or_default();
        format!("{base}{}", query())
    };
    let panel_boxes = panel_boxes(panels);
    let key_boxes = key_boxes(keys, lock, allowed);
    let snippet = move || embed_snippet(&absolute(), title);
    let copy = move |_| {
        if let Some(w) = web_sys::window() {
            let _ = w.navigator().clipboard().write_text(&snippet());
        }
    };
    view! {
        <div class="embed-builder" id="embed-builder">
            <fieldset>
                <legend>"Panels the embed shows"</legend>
                {panel_boxes}
            </fieldset>
            <fieldset>
                <legend>"What readers may change"</legend>
                <label class="check" for="embed-lock">
                    <input type="checkbox" id="embed-lock" prop:checked=move || lock.get()
                        on:change=move |ev| lock.set(event_target_checked(&ev)) />
                    " Only the ticked controls (everything else is fixed)"
                </label>
                <div class="embed-keys">{key_boxes}</div>
            </fieldset>
            <div class="embed-preview-bar">
                <label for="embed-width">"Preview width "</label>
                <select id="embed-width" on:change=move |ev| {
                    width.set(event_target_value(&ev).parse().unwrap_or(640));
                    height.set(None);
                }>
                    <option value="640" selected>"640 px (article column)"</option>
                    <option value="360">"360 px (phone)"</option>
                </select>
                <span id="embed-height" role="status">{move || match height.get() {
                    Some(h) => format!("Height at this width: {h} px"),
                    None => "Measuring…".to_string(),
                }}</span>
            </div>
            <iframe id="embed-preview" title=format!("Preview: {title}") src=query
                style=move || format!("width:{}px;height:{}px;border:1px solid var(--border);max-width:100%", width.get(), height.get().unwrap_or(400))></iframe>
            <label for="embed-snippet">"Paste this into your page (the script resizes the frame to its content):"</label>
            <textarea id="embed-snippet" readonly rows="10" prop:value=snippet></textarea>
            <button type="button" id="embed-copy" on:click=copy>"Copy snippet"</button>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_replaces_earlier_embedding_keys() {
        assert_eq!(
            embed_query(
                "?lab=routing&rate=0.3&embed=1&view=table",
                Some(&["chart", "cards"]),
                Some(&["rate"])
            ),
            "?lab=routing&rate=0.3&embed=1&view=chart,cards&controls=rate"
        );
        assert_eq!(embed_query("?lab=knee", None, None), "?lab=knee&embed=1");
    }

    #[test]
    fn every_lab_offers_its_main_controls_and_focus() {
        let keys: Vec<&str> = lockable_keys("routing").iter().map(|k| k.0).collect();
        assert!(keys.contains(&"rate") && keys.contains(&"rule") && keys.contains(&"trace"));
        assert!(!keys.contains(&"kv-blocks"), "advanced settings stay fixed");
        for lab in registry::LABS {
            assert!(!lockable_keys(lab.info.id).is_empty(), "{}", lab.info.id);
        }
    }
}
