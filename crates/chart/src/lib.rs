//! Helm charts: (so far) Helm's template functions and the engine configuration Helm
//! renders with. Chart loading, values coalescing and rendering come with the Helm issue.

pub mod funcs;
pub mod toml;

pub use funcs::{helm_funcs, helm_templates};
