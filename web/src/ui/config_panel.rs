//! A router's own configuration in and out (article §14): paste or drop an
//! SGLang launch command, an llm-d EndpointPickerConfig, a LiteLLM YAML or
//! an API Management pool; the simulation worker reads it (the page holds
//! no parser) and the lab takes its settings, with a line for every value:
//! which differ from the router's defaults and what they change, which the
//! lab does not model, which secrets were dropped. The lab's own rule goes
//! back out in the same formats.

use std::sync::Arc;

use leptos::prelude::*;
use sim_core::labs::router_formats::formats_for;
use sim_core::labs::serve::{Ask, ConfigReport, Said};
use wasm_bindgen::{JsCast, JsValue};

use super::html::{el, Html, Markup};
use super::Setter;
use crate::platform::worker::{self, Reply};

/// The opening of a report line of kind `s`.
fn said(s: Said) -> &'static str {
    match s {
        Said::Differs => "<li class=\"differs\"><strong>Differs: </strong>",
        Said::Restates => "<li class=\"restates\"><strong>Default: </strong>",
        Said::NotModelled => "<li class=\"ignored\"><strong>Not modelled: </strong>",
        Said::Secret => "<li class=\"secret\"><strong>Secret: </strong>",
        Said::Note => "<li class=\"note\"><strong>Note: </strong>",
    }
}

/// What the last import said, as escaped markup (one sink for the whole
/// report rather than a view per line); each suggested fix is a button
/// carrying its index, which the panel's one click handler applies.
fn report_html(r: &ConfigReport, lab: &'static str) -> Html {
    let mut h = Html::trusted("<p class=\"small\" id=\"router-config-read\"><strong>Read as ");
    h.push_text(&r.format);
    h.push(Html::trusted(".</strong>"));
    if r.lab() == lab {
        h.push(Html::trusted(
            " The lab now runs these settings (the cards and the table show what they do); the others keep their values.</p>",
        ));
    } else {
        let mut pairs: Vec<(&str, String)> = vec![("lab", r.lab().to_string())];
        pairs.extend(r.pairs.iter().map(|(k, v)| (k.as_str(), v.clone())));
        let href = crate::platform::url::build_query(&pairs);
        h.push(Html::trusted("</p><p>"));
        h.push(
            el("a")
                .attr("id", "router-config-elsewhere")
                .attr("href", href)
                .open(),
        );
        h.push_text(format!(
            "This configuration runs in the {} lab: open it there",
            r.lab()
        ));
        h.push(Html::trusted("</a></p>"));
    }
    h.push(Html::trusted("<ul class=\"config-lines small\">"));
    for (s, text) in &r.lines {
        h.push(Html::trusted(said(*s)));
        h.push_text(text);
        h.push(Html::trusted("</li>"));
    }
    h.push(Html::trusted("</ul><div class=\"config-fixes\">"));
    for (i, (label, _)) in r.fixes.iter().enumerate() {
        let button = el("button")
            .attr("type", "button")
            .attr("class", "config-fix");
        h.push(button.attr("data-fix", i.to_string()).open());
        h.push_text(label);
        h.push(Html::trusted("</button>"));
    }
    h.push(Html::trusted("</div>"));
    h
}

/// The settings a report's suggested fix sets, if a click landed on one.
fn apply_fix(
    ev: &web_sys::MouseEvent,
    shown: RwSignal<Option<Result<ConfigReport, String>>>,
    set: &Setter,
) {
    let index = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.closest("[data-fix]").ok().flatten())
        .and_then(|b| b.get_attribute("data-fix"))
        .and_then(|i| i.parse::<usize>().ok());
    let fix = index.and_then(|i| {
        shown.with_untracked(|s| {
            let r = s.as_ref()?.as_ref().ok()?;
            Some(r.fixes.get(i)?.1.clone())
        })
    });
    for (k, v) in fix.unwrap_or_default() {
        let _ = set(&k, &v);
    }
}

/// Ask the worker to read `text`; on success the lab takes the settings.
fn read(
    text: String,
    lab: &'static str,
    set: Setter,
    shown: RwSignal<Option<Result<ConfigReport, String>>>,
) {
    let request = Ask::ImportConfig {
        lab: lab.into(),
        text,
    };
    worker::ask(
        &request,
        |_, _| {},
        move |reply| {
            shown.set(Some(match reply {
                Reply::Imported(r) => {
                    if r.lab() == lab {
                        // A value refused against another still to come (no
                        // deployments for a moment) is set again after it.
                        let refused: Vec<_> =
                            r.pairs.iter().filter(|(k, v)| set(k, v).is_err()).collect();
                        for (k, v) in refused {
                            let _ = set(k, v);
                        }
                        // Export in the format just read, unless the reader picks another.
                        if let Some(menu) =
                            by_id::<web_sys::HtmlSelectElement>("router-config-format")
                        {
                            menu.set_value(&r.id);
                        }
                    }
                    Ok(r)
                }
                Reply::Failed(f) => Err(f.why),
                _ => Err("the worker did not read it".into()),
            }));
        },
    );
}

/// Ask the worker to write the lab's settings as `format`, then download it.
fn export(lab: &'static str, format: &'static str, ext: &'static str, status: RwSignal<String>) {
    let location = web_sys::window().map(|w| w.location());
    let base = location
        .and_then(|l| Some(l.origin().ok()? + &l.pathname().ok()?))
        .unwrap_or_default();
    let pairs = crate::platform::url::query_pairs()
        .into_iter()
        .filter(|(k, _)| k != "lab")
        .collect();
    let request = Ask::ExportConfig {
        lab: lab.into(),
        pairs,
        format: format.into(),
        base,
    };
    worker::ask(
        &request,
        |_, _| {},
        move |reply| {
            status.set(match reply {
                Reply::Text(text) => {
                    let name = format!("lblab-{lab}-{format}.{ext}");
                    match super::share_bar::download_blob(&name, "text/plain", &text) {
                        Ok(()) => format!("Downloaded {name}."),
                        Err(why) => why,
                    }
                }
                Reply::Failed(f) => format!("Cannot export: {}", f.why),
                _ => "Cannot export.".into(),
            });
        },
    );
}

/// The panel, for a lab with router formats.
/// The panel's fixed part: the paste box, its button and the export menu
/// (markup, not views: the panel's handlers sit on its root and read these
/// elements when clicked, which keeps the page's module small).
fn fixed_html(lab: &'static str) -> Html {
    let mut h = Html::trusted(
        r#"<label class="small" for="router-config-text">Paste or drop an SGLang launch command, an llm-d EndpointPickerConfig, a LiteLLM config or an API Management pool (Bicep or ARM JSON):</label><textarea id="router-config-text" rows="8" wrap="off" spellcheck="false" maxlength="65536"></textarea><button type="button" id="router-config-go">Read configuration</button><p class="small"><label for="router-config-format">Export as </label><select id="router-config-format">"#,
    );
    for f in formats_for(lab) {
        h.push(el("option").attr("value", f.id).open());
        h.push_text(f.title);
        h.push(Html::trusted("</option>"));
    }
    h.push(Html::trusted(
        r#"</select> <button type="button" id="router-config-export">Download</button></p>"#,
    ));
    h
}

/// The element with `id`.
fn by_id<T: JsCast>(id: &str) -> Option<T> {
    web_sys::window()?
        .document()?
        .get_element_by_id(id)?
        .dyn_into()
        .ok()
}

/// The panel, for a lab with router formats.
#[component]
pub fn ConfigPanel(
    /// The lab's id.
    lab: &'static str,
    /// The lab's setter.
    set: Setter,
) -> impl IntoView {
    let shown = RwSignal::new(None::<Result<ConfigReport, String>>);
    let status = RwSignal::new(String::new());
    let on_drop = {
        let set = Arc::clone(&set);
        move |ev: web_sys::DragEvent| {
            let Some(file) = ev
                .data_transfer()
                .and_then(|d| d.files())
                .and_then(|f| f.get(0))
            else {
                return;
            };
            ev.prevent_default();
            // Refused before it is read, as the worker would refuse it.
            if file.size() > 65_536.0 {
                shown.set(Some(Err(format!(
                    "{} is {} bytes; the lab reads at most 65,536",
                    file.name(),
                    file.size()
                ))));
                return;
            }
            let set = Arc::clone(&set);
            let done = wasm_bindgen::closure::Closure::once(move |t: JsValue| {
                let t = t.as_string().unwrap_or_default();
                if let Some(area) = by_id::<web_sys::HtmlTextAreaElement>("router-config-text") {
                    area.set_value(&t);
                }
                read(t, lab, set, shown);
            });
            let _ = file.text().then(&done);
            done.forget();
        }
    };
    // One handler for the panel's buttons, found by what was clicked.
    let on_click = move |ev: web_sys::MouseEvent| {
        let id = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .map(|e| e.id())
            .unwrap_or_default();
        match id.as_str() {
            "router-config-go" => {
                let text = by_id::<web_sys::HtmlTextAreaElement>("router-config-text")
                    .map(|a| a.value())
                    .unwrap_or_default();
                read(text, lab, Arc::clone(&set), shown);
            }
            "router-config-export" => {
                let chosen = by_id::<web_sys::HtmlSelectElement>("router-config-format")
                    .map(|s| s.value())
                    .unwrap_or_default();
                if let Some(f) = formats_for(lab).find(|f| f.id == chosen) {
                    export(lab, f.id, f.ext, status);
                }
            }
            _ => apply_fix(&ev, shown, &set),
        }
    };
    let result = Signal::derive(move || {
        let mut h = match shown.get() {
            Some(Ok(r)) => report_html(&r, lab),
            Some(Err(why)) => {
                let mut h = Html::trusted(
                    r#"<p class="small error" role="alert" id="router-config-error">Cannot read it: "#,
                );
                h.push_text(why);
                h.push(Html::trusted("</p>"));
                h
            }
            None => Html::new(),
        };
        h.push(Html::trusted(
            r#"<p class="small" id="router-config-status">"#,
        ));
        h.push_text(status.get());
        h.push(Html::trusted("</p>"));
        h
    });
    let fixed = fixed_html(lab);
    view! {
        <details class="config-panel" data-control="router-config" on:click=on_click
            on:dragover=|ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <summary>"Router configuration: read yours, or export this one"</summary>
            <Markup html=Signal::stored(fixed) />
            <div aria-live="polite"><Markup html=result /></div>
        </details>
    }
}
