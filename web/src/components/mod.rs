//! Widgets shared by every lab (DESIGN.md "One vocabulary across labs"). They
//! know nothing of any lab: the page template (`crate::page`) hands them
//! getters, setters and signals.

pub mod chart;
pub mod controls;
mod embed_builder;
mod hover;
mod measure;
mod notice;
mod player;
mod run_status;
mod share_bar;
pub mod stage;
mod timer;
mod trace_editor;
mod trace_panel;

pub use controls::{Allows, ControlKind, ControlSpec, Controls, Deferred, Getter, Setter};
pub use embed_builder::EmbedBuilder;
pub use measure::observe_size;
pub use notice::{ErrorLine, Notice};
pub use player::Player;
pub use run_status::{RunState, RunStatus};
pub use share_bar::{EmbedFooter, ShareBar};
pub use stage::{Mark, Palette, Rect, Scene, SceneFn, Stage};
pub use trace_editor::editor_click;
pub use trace_panel::TracePanel;
