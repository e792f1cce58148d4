//! The static shell: what `index.html` shows before the wasm arrives. On a
//! slow connection the page's module takes seconds to download; until then
//! `assets/shell.js` draws, from the data here, the lab's title and
//! introduction, its controls with their values, and placeholders where the
//! results go (an embed posts its height at once, so the host sizes the
//! frame before the lab runs). The app removes the shell as it mounts.
//!
//! The data is generated from the registry and the page descriptions by the
//! test below into `assets/shell.html` (a JSON data block that Trunk pastes
//! into `index.html`), so the shell never drifts from the labs: a change
//! that alters it writes `assets/shell-changed.html` for review, as the
//! goldens do.

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};
    use sim_core::params::{Shape, Tier, When};

    use crate::labs;
    use crate::ui::controls::show_value;
    use crate::ui::{ControlKind, ControlSpec};

    /// A control's value at the lab's defaults, as its control shows it.
    fn value(spec: &sim_core::params::Spec, c: &ControlSpec) -> String {
        match (&c.kind, &spec.shape) {
            (ControlKind::Range { show, unit, .. }, _) => {
                let x = spec.default.parse::<f64>().ok();
                let text = x.map_or_else(|| spec.default.clone(), |x| show_value(x, *show));
                match *unit {
                    "" => text,
                    "%" => format!("{text}%"),
                    unit => format!("{text} {unit}"),
                }
            }
            (ControlKind::Radio(opts) | ControlKind::Select(opts), _) => opts
                .iter()
                .find(|o| o.name == spec.default)
                .map_or_else(|| spec.default.clone(), |o| o.title.to_string()),
            (ControlKind::Check, _) => if spec.default == "1" { "on" } else { "off" }.to_string(),
            (_, Shape::Text { .. }) if spec.default.is_empty() => "none".to_string(),
            _ => spec.default.clone(),
        }
    }

    /// Every lab's shell: title, introduction, controls, panels.
    fn data() -> Value {
        let labs: Vec<Value> = sim_core::labs::LABS
            .iter()
            .map(|l| {
                let page = labs::page(l.info.id).expect("every lab has a page");
                let specs = (l.params)();
                let controls: Vec<Value> = specs
                    .iter()
                    .filter(|s| s.tier == Tier::Main && s.when != When::Ms)
                    .map(|s| {
                        let c = ControlSpec::from_spec(s);
                        json!([s.key, s.label, value(s, &c)])
                    })
                    .chain(l.focus.map(|f| {
                        let title = (f.options)()
                            .iter()
                            .find(|o| o.name == (f.default)())
                            .map_or("", |o| o.title);
                        json!([f.key, f.label, title])
                    }))
                    .collect();
                let mut panels: Vec<&str> = Vec::new();
                if page.player().is_some() {
                    panels.push("player");
                }
                if page.has_cards() {
                    panels.push("cards");
                }
                panels.extend(page.charts().iter().map(|_| "chart"));
                panels.extend((0..page.table_count()).map(|_| "table"));
                json!({
                    "id": l.info.id,
                    "title": l.info.title,
                    "summary": l.info.summary,
                    "units": l.info.units,
                    "intro": page.intro().as_str(),
                    "inputs": page.inputs(),
                    "embed": l.info.embed_view.iter().map(|p| p.name()).collect::<Vec<_>>(),
                    "panels": panels,
                    "controls": controls,
                })
            })
            .collect();
        json!({ "labs": labs })
    }

    /// The data block Trunk pastes into `index.html` (`</` escaped, so no
    /// text in it can close the block).
    fn block() -> String {
        let text = serde_json::to_string(&data())
            .expect("json")
            .replace("</", "<\\/");
        format!("<script type=\"application/json\" id=\"lblab-shell\">{text}</script>\n")
    }

    #[test]
    fn the_static_shell_is_current() {
        let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets");
        let (path, changed) = (dir.join("shell.html"), dir.join("shell-changed.html"));
        let now = block();
        match std::fs::read_to_string(&path) {
            Ok(kept) if kept == now => {
                let _ = std::fs::remove_file(&changed);
            }
            _ => {
                std::fs::write(&changed, &now).expect("write shell-changed.html");
                panic!("the static shell changed: review assets/shell-changed.html, then copy it over assets/shell.html");
            }
        }
        // Every lab has a title, an introduction and a control to show.
        let data = data();
        for lab in data["labs"].as_array().expect("labs") {
            assert!(
                lab["intro"].as_str().is_some_and(|s| s.contains("<h1>")),
                "{lab}"
            );
            assert!(
                !lab["controls"].as_array().expect("controls").is_empty(),
                "{lab}"
            );
        }
    }
}
