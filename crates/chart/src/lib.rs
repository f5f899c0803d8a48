//! Helm charts: loading a chart directory, dependency processing (aliases, conditions,
//! tags, import-values), Helm's template functions and engine, manifest sorting and the
//! in-process `helm template` (`template::template`).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod archive;
pub mod cache;
pub mod capabilities;
pub mod dependencies;
mod engine_errors;
pub mod explain;
pub mod files;
pub mod fs;
pub mod funcs;
pub mod load;
pub mod manifests;
pub mod model;
mod options;
mod parallel_render;
pub mod patch;
pub mod postrender;
pub mod render;
pub mod schema;
pub mod template;
pub mod toml;

pub use funcs::{helm_funcs, helm_templates};
pub use template::{template, Rendered, TemplateError, TemplateOptions};
