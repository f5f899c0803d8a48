//! Helm values: (so far) the `--set` family of flags (`strvals`). Coalescing, merging and
//! provenance come with the rest of the Helm values issue.

pub mod strvals;

pub use strvals::{parse_into, Flag};
