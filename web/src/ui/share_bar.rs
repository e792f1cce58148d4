//! Share, embed and export for every lab: one bar the shell puts beside any lab.
//! CSV and JSON are built from the lab's published outcome (the same text
//! `lblab <lab> --csv` and `--json` print), PNG from the page's canvases, so a
//! new lab gets all of it by registering.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::html::{el, Html, Markup};

/// Offer `data` as a file download named `name`.
pub(super) fn download_blob(name: &str, mime: &str, data: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&data.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|_| "could not create the file")?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|_| "could not create a download link")?;
    download_url(name, &url)?;
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Click a temporary `<a download>` pointing at `url`.
fn download_url(name: &str, url: &str) -> Result<(), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(|_| "no anchor")?
        .dyn_into()
        .map_err(|_| "no anchor")?;
    a.set_href(url);
    a.set_download(name);
    let body = doc.body().ok_or("no body")?;
    let _ = body.append_child(&a);
    a.click();
    let _ = body.remove_child(&a);
    Ok(())
}

/// Every canvas inside `#lab-root`, downloaded as PNG.
fn charts_png(lab: &str) -> Result<usize, String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let canvases = doc
        .query_selector_all("#lab-root canvas")
        .map_err(|_| "no charts")?;
    let mut n = 0;
    for i in 0..canvases.length() {
        if let Some(c) = canvases
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        {
            let url = c.to_data_url().map_err(|_| "the chart could not be read")?;
            download_url(&format!("lblab-{lab}-{}.png", c.id()), &url)?;
            n += 1;
        }
    }
    Ok(n)
}

/// The current page URL.
fn current_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default()
}

/// The `<iframe>` snippet for the current view, plus the resize script. It is
/// text for the reader to copy (shown in a textarea), built with the same
/// escaping builder as the page.
pub fn embed_snippet(url: &str, title: &str) -> String {
    let src = if url.contains("embed=1") {
        url.to_string()
    } else if url.contains('?') {
        format!("{url}&embed=1")
    } else {
        format!("{url}?embed=1")
    };
    let iframe: Html = el("iframe")
        .attr("src", src)
        .attr("title", title)
        .attr("style", "width:100%;border:0")
        .attr("height", "640")
        .attr("loading", "lazy")
        .into();
    format!(
        "{}\n\
<script>\n\
window.addEventListener('message', function (e) {{\n\
  var d = e.data;\n\
  if (!d || d.source !== 'lblab' || d.type !== 'resize') return;\n\
  document.querySelectorAll('iframe').forEach(function (f) {{\n\
    if (f.contentWindow === e.source) f.style.height = d.height + 'px';\n\
  }});\n\
}});\n\
</script>",
        iframe.as_str()
    )
}

/// The bar's buttons: (id, what it does, label).
const BUTTONS: [(&str, &str, &str); 5] = [
    ("share-link", "link", "Copy link"),
    ("share-embed", "embed", "Embed"),
    ("export-csv", "csv", "Results (CSV)"),
    ("export-json", "json", "Outcome (JSON)"),
    ("export-png", "png", "Charts (PNG)"),
];

/// What one button does; returns the status line to show.
fn act(
    key: &str,
    lab: &str,
    builder: RwSignal<bool>,
    status: RwSignal<String>,
) -> Result<String, String> {
    match key {
        "link" => {
            let url = current_url();
            match web_sys::window().map(|w| w.navigator().clipboard()) {
                Some(c) => {
                    let _ = c.write_text(&url);
                    Ok("Link copied: it opens exactly this view.".into())
                }
                None => Ok(format!("Copy this link: {url}")),
            }
        }
        "embed" => {
            let open = !builder.get_untracked();
            builder.set(open);
            Ok(if open {
                "Build the embed below.".into()
            } else {
                String::new()
            })
        }
        "csv" | "json" => {
            let csv = key == "csv";
            let lab = lab.to_string();
            crate::platform::exports::last_outcome(csv, move |text| {
                let said = match text {
                    Ok(t) if t.is_empty() => "Sorry: nothing computed yet.".to_string(),
                    Ok(t) => {
                        let (name, mime, what) = if csv {
                            (
                                "csv",
                                "text/csv",
                                "Results downloaded as CSV (the same as the CLI's --csv).",
                            )
                        } else {
                            (
                                "json",
                                "application/json",
                                "Outcome downloaded as JSON (the same as the CLI's --json).",
                            )
                        };
                        match download_blob(&format!("lblab-{lab}.{name}"), mime, &t) {
                            Ok(()) => what.to_string(),
                            Err(e) => format!("Sorry: {e}."),
                        }
                    }
                    Err(e) => format!("Sorry: {e}."),
                };
                status.try_set(said);
            });
            Ok("Preparing the download…".into())
        }
        "png" => charts_png(lab).map(|n| format!("{n} chart(s) downloaded as PNG.")),
        _ => Ok(String::new()),
    }
}

/// Share, embed and export buttons for lab `lab` titled `title`.
#[component]
pub fn ShareBar(
    /// The lab's id (file names).
    lab: &'static str,
    /// The lab's title (the iframe's title).
    title: &'static str,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let builder = RwSignal::new(false);
    let buttons = BUTTONS
        .iter()
        .map(|&(id, key, label)| {
            let on_click = move |_| {
                status
                    .set(act(key, lab, builder, status).unwrap_or_else(|e| format!("Sorry: {e}.")));
            };
            view! { <button id=id data-key=key on:click=on_click>{label}</button>" " }
        })
        .collect_view();
    view! {
        <div class="share-bar" role="toolbar" aria-label="Share and export">
            <span class="share-buttons">{buttons}</span>
            <span class="share-status" role="status">{move || status.get()}</span>
            <Show when=move || builder.get()>
                <div class="embed-panel">
                    <p class="small"><Markup inline=true html=Html::trusted(EMBED_HELP) /></p>
                    <super::EmbedBuilder lab=lab title=title />
                </div>
            </Show>
        </div>
    }
}

/// The foot of an embedded lab: its units in one line, and a link that opens
/// the same state in the full lab (in a new tab: the article stays open).
#[component]
pub fn EmbedFooter(
    /// The lab's units line (`LabInfo::units`).
    units: &'static str,
) -> impl IntoView {
    // The link follows the state: the URL changes as the reader moves a
    // control, so the href is refreshed whenever the link is about to be used.
    let full = || {
        let search = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        crate::platform::url::full_lab_query(&search)
    };
    let href = RwSignal::new(full());
    let refresh = move || href.set(full());
    view! {
        <p class="embed-footer small">
            <span class="units">{units}</span>" "
            <a id="open-full" href=move || href.get() target="_blank" rel="noopener"
                on:pointerenter=move |_| refresh() on:focus=move |_| refresh()
                on:mousedown=move |_| refresh() on:contextmenu=move |_| refresh()
                on:click=move |_| refresh()>"Open in the full lab ↗"</a>
        </p>
    }
}

/// Help above the embed snippet.
const EMBED_HELP: &str = "The embed opens on this exact view. Players can also take <code>&amp;step=7</code> or <code>&amp;autoplay=1</code>, and any embed <code>&amp;theme=dark</code>; see EMBEDDING.md.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_embeds_the_view() {
        let s = embed_snippet("https://x.org/lab/?lab=routing&rate=0.3", "Routing Lab");
        assert!(s.contains(r#"src="https://x.org/lab/?lab=routing&amp;rate=0.3&amp;embed=1""#));
        assert!(s.contains("d.source !== 'lblab'"));
        let evil = embed_snippet("https://x.org/?lab=a\"><script>x</script>", "t");
        assert!(!evil.contains("\"><script>x"));
    }
}
