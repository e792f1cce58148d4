//! Widgets shared by every lab (DESIGN.md "One vocabulary across labs").

mod controls;
mod embed_builder;
mod notice;
mod player;
mod run_status;
mod share_bar;
pub mod stage;
mod trace_editor;
mod trace_panel;

pub use controls::{ControlKind, ControlSpec, Controls, Deferred, Getter, Setter};
pub use embed_builder::EmbedBuilder;
pub use notice::{ChartError, ErrorLine, Notice};
pub use player::Player;
pub use run_status::RunStatus;
pub use share_bar::{EmbedFooter, ShareBar};
pub use stage::{Mark, Palette, Rect, Scene, SceneFn, Stage};
pub use trace_editor::editor_click;
pub use trace_panel::TracePanel;
