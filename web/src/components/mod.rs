//! Widgets shared by every lab (DESIGN.md "One vocabulary across labs").

mod controls;
mod notice;
mod player;
mod result_card;
mod share_bar;

pub use controls::{ControlKind, ControlSpec, Controls, Getter, Setter};
pub use notice::Notice;
pub use player::Player;
pub use result_card::ResultCard;
pub use share_bar::ShareBar;
