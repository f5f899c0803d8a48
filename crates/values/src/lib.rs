//! Helm values: (so far) the `--set` family of flags (`strvals`). Coalescing, merging and
//! provenance come with the rest of the Helm values issue.

pub mod coalesce;
pub mod strvals;

pub use coalesce::{coalesce_values, ChartValues};
pub use strvals::{parse_into, Flag};
