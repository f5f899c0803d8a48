//! helmfile state: loading state files (parts, bases, sub-helmfiles), environments and
//! their values, releases (templates, inheritance, selectors, needs) and helmfile's
//! template functions. All I/O goes through a [`host::Host`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod app;
pub mod charts;
pub mod commands;
pub mod environment;
pub mod envvals;
pub mod error;
pub mod funcs;
pub mod host;
pub mod load;
pub mod lockfile;
pub mod merge;
pub mod release;
pub mod release_values;
pub mod render;
/// The secret values this process decrypted (for hiding them in printed text).
pub use capstan_secrets::known as known_secrets;
pub mod secrets;
pub mod select;
pub mod shape;
pub mod spec;
pub mod status;
mod template_chain;
pub mod tenant;
pub mod tenant_host;
mod vals;
pub mod written;

pub use error::StateError;
pub use funcs::{helmfile_funcs, helmfile_templates};

use capstan_value::Value;

/// The HCL evaluator: helmfile's loader over `crates/hcl`.
pub fn hcl_evaluator() -> envvals::HclEvaluator {
    capstan_hcl::render
}

/// A scalar as Go's `%v` prints it (strings as they are).
pub fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Nil => String::new(),
        other => other.to_string(),
    }
}

/// The YAML kind helmfile's decoder names in type errors.
pub(crate) fn go_kind(v: &Value) -> &'static str {
    match v {
        Value::List(_) => "!!seq",
        Value::Map(_) | Value::AnyMap(_) => "!!map",
        Value::String(_) => "!!str",
        Value::Bool(_) => "!!bool",
        Value::Int(_) | Value::Int64(_) | Value::Uint64(_) => "!!int",
        Value::Float64(_) | Value::Float32(_) => "!!float",
        _ => "!!null",
    }
}

pub use capstan_source::Location;

/// The first place `needle` occurs in a file's text.
pub fn locate_text(text: &str, file: &str, needle: &str) -> Option<Location> {
    if needle.is_empty() {
        return None;
    }
    for (i, line) in text.lines().enumerate() {
        if let Some(c) = line.find(needle) {
            return Some(Location {
                file: file.to_string(),
                line: i as u32 + 1,
                column: line[..c].chars().count() as u32 + 1,
            });
        }
    }
    None
}
