//! What the page needs of the browser and of the outside world, and nothing
//! about how it looks: the simulation worker's client, the URL as the state
//! of a view, embedding in another page, the clock, trace files and exports.
//! Nothing here imports the UI (`crate::ui`), the page template or a lab.

pub mod clip;
pub mod clock;
pub mod embed;
pub mod exports;
pub mod shell;
pub mod traces;
pub mod url;
pub mod worker;

pub use clip::clip;
