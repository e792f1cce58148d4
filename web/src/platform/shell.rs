//! What the build wrote into index.html for the static shell: the data block
//! `#lblab-shell` (web/src/app/static_shell.rs writes it from every lab's
//! page). The page reads the labs' introductions back from it instead of
//! carrying a second copy in its module: every reader downloads index.html
//! first, so the text travels once.

/// The introduction (HTML) of lab `id` as the shell's data block holds it,
/// read once per page load (`None` outside a browser, or when index.html
/// holds no block).
pub fn intro(id: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        use std::cell::OnceCell;
        thread_local! {
            static INTROS: OnceCell<Vec<(String, String)>> = const { OnceCell::new() };
        }
        INTROS.with(|cell| {
            cell.get_or_init(read)
                .iter()
                .find(|(lab, _)| lab == id)
                .map(|(_, html)| html.clone())
        })
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = id;
        None
    }
}

/// Every lab's id and introduction from the data block.
#[cfg(target_arch = "wasm32")]
fn read() -> Vec<(String, String)> {
    use wasm_bindgen::JsCast;
    let Some(text) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("lblab-shell"))
        .and_then(|e| e.text_content())
    else {
        return Vec::new();
    };
    let Ok(data) = js_sys::JSON::parse(&text) else {
        return Vec::new();
    };
    let field = |v: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).ok();
    let Some(labs) = field(&data, "labs").and_then(|l| l.dyn_into::<js_sys::Array>().ok()) else {
        return Vec::new();
    };
    labs.iter()
        .filter_map(|lab| {
            let id = field(&lab, "id")?.as_string()?;
            let intro = field(&lab, "intro")?.as_string()?;
            Some((id, intro))
        })
        .collect()
}
