//! What every lab looks like, and nothing about any one lab (DESIGN.md "One
//! vocabulary across labs"): the shared widgets (controls, player, stage,
//! chart canvas, share bar, notices), the chart renderer (`plot`), the
//! stage's drawing helpers (`scene`), safe HTML (`html`), number formats and
//! the theme. The page template (`crate::page`) hands the widgets getters,
//! setters and signals. Below it only `crate::platform`.

pub mod chart;
mod config_panel;
pub mod controls;
mod embed_builder;
pub mod format;
mod hover;
pub mod html;
mod measure;
mod notice;
mod player;
pub mod plot;
mod run_status;
pub mod scene;
mod share_bar;
pub mod stage;
pub mod table;
pub mod theme;
mod timer;
mod trace_editor;
mod trace_panel;

pub use config_panel::ConfigPanel;
pub use controls::{Allows, ControlKind, ControlSpec, Controls, Deferred, Getter, Setter};
pub use embed_builder::EmbedBuilder;
pub use measure::observe_size;
pub use notice::{ErrorLine, Notice};
pub use player::Player;
pub use run_status::{RunState, RunStatus};
pub use share_bar::{EmbedFooter, ShareBar};
pub use stage::{Lit, Mark, Palette, Place, Rect, Scene, SceneFn, Spotlight, Stage};
pub use trace_editor::editor_click;
pub use trace_panel::TracePanel;
