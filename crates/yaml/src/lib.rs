//! YAML ⇄ `Value`, byte-compatible with the Go libraries Helm and helmfile use.
//!
//! - [`decode_helm`]: Helm's `loader.LoadValues` (yaml.v2 rules, YAML 1.1 booleans, every
//!   number a float64 after the JSON round trip of `sigs.k8s.io/yaml`).
//! - [`decode_helmfile`]: helmfile's yaml.v3 `Unmarshal` (ints stay ints, dates are times),
//!   then [`stringify_keys`] for its key cast.
//! - [`encode_helm`] / [`encode_helmfile`]: `sigs.k8s.io/yaml.Marshal` and helmfile's
//!   v3 encoder with two-space indentation, byte for byte.
//! - [`spans`]: the source position of every node, for errors and provenance.
//!
//! The event parser is `libyaml-safer`, a Rust port of libyaml, which go-yaml itself is a
//! port of; scalar resolution, composition, decoding and emission are ours.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod compose;
mod compose_lines;
mod emit;
mod encode;
mod error;
mod head;
mod head_events;
mod head_lines;
mod helm;
mod helmfile;
mod nodes;
mod resolve;
pub mod roundtrip;
mod scalars;
mod spans;
#[cfg(test)]
mod test_files;
mod traps;
mod utf8;
mod walk;

pub use compose::{compose_first, Document, Generation, Node, NodeKind};

/// Whether the line composer ([`compose_lines`]) builds what libyaml's events build for
/// `text` (a text ending with a line break), or leaves it to them: the check of the
/// `compose_lines` fuzz target.
#[doc(hidden)]
pub fn compose_lines_agrees(text: &str) -> bool {
    match compose_lines::compose_lines(text) {
        None => true,
        Some(fast) => match compose::compose_events(text, Generation::V2) {
            Ok(Some(slow)) => format!("{fast:?}") == format!("{slow:?}"),
            _ => false,
        },
    }
}
pub use emit::ENode;
pub use encode::{encode_helm, encode_helmfile};
pub use error::{CastError, YamlError};
pub use head::ManifestHead;
pub use helm::{
    decode_helm, decode_helm_direct, decode_helm_explained, decode_helm_value, split_documents,
};
pub use helmfile::{decode_helmfile, decode_helmfile_value, stringify_keys};
pub use resolve::{resolve, Scalar};
pub use scalars::{written_scalars, WrittenScalar};
pub use spans::{spans, SpanTree};
pub use traps::{number_traps, printed_number, spans_and_number_traps, NumberTrap};
pub use utf8::{yaml_documents_text, yaml_text};

/// The head of `doc`, or `None` when only a full decode can tell (see [`head`]):
/// read line by line when the document is in [`crate::head_lines`]' subset, else from the
/// parser's events.
pub fn manifest_head(doc: &str) -> Option<ManifestHead> {
    head_lines::line_head(doc).or_else(|| head_events::event_head(doc))
}
