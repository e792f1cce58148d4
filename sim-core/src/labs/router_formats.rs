//! The router configurations the lab reads and writes (article §14): which
//! formats there are and which lab each belongs to. Only the table lives
//! here, so the page can list the formats without their parsers; the
//! `router-config` crate reads and writes them, in the simulation worker
//! and the CLI.

/// One format of router configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// Identifier (`--export-config`, the page's menu).
    pub id: &'static str,
    /// What the page calls it.
    pub title: &'static str,
    /// The lab its settings belong to.
    pub lab: &'static str,
    /// File name extension of an export.
    pub ext: &'static str,
}

/// Every format, in the order the page lists them.
pub const FORMATS: &[Format] = &[
    Format {
        id: "sglang",
        title: "SGLang router, Python launcher",
        lab: "routing",
        ext: "sh",
    },
    Format {
        id: "sglang-gateway",
        title: "SGLang gateway, Rust binary",
        lab: "routing",
        ext: "sh",
    },
    Format {
        id: "llmd",
        title: "llm-d EndpointPickerConfig",
        lab: "routing",
        ext: "yaml",
    },
    Format {
        id: "litellm",
        title: "LiteLLM router",
        lab: "providers",
        ext: "yaml",
    },
    Format {
        id: "apim-bicep",
        title: "API Management pool, Bicep",
        lab: "providers",
        ext: "bicep",
    },
    Format {
        id: "apim-arm",
        title: "API Management pool, ARM JSON",
        lab: "providers",
        ext: "json",
    },
];

/// The formats of `lab`'s settings.
pub fn formats_for(lab: &str) -> impl Iterator<Item = &'static Format> + '_ {
    FORMATS.iter().filter(move |f| f.lab == lab)
}

/// The format with `id`.
pub fn format(id: &str) -> Option<&'static Format> {
    FORMATS.iter().find(|f| f.id == id)
}
