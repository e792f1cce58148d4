//! Widgets shared by every lab (DESIGN.md "One vocabulary across labs").

mod controls;
mod notice;
mod player;
mod share_bar;
mod trace_editor;

pub use controls::{ControlKind, ControlSpec, Controls, Deferred, Getter, Setter};
pub use notice::{ChartError, ErrorLine, Notice};
pub use player::Player;
pub use share_bar::ShareBar;
pub use trace_editor::editor_click;
