//! helmfile state: (so far) helmfile's pure template functions and the engine
//! configuration helmfile renders with. Loading state files comes with the state issue.

pub mod funcs;

pub use funcs::{helmfile_funcs, helmfile_templates};
