//! Widgets shared by every lab (DESIGN.md "One vocabulary across labs").

mod notice;
mod result_card;
mod slider;

pub use notice::Notice;
pub use result_card::ResultCard;
pub use slider::Slider;
