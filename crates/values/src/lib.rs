//! Helm values: the `--set` family of flags (`strvals`), the user's value flags merged as
//! Helm does (`user`) and Helm's coalescing with chart defaults (`coalesce`). Provenance
//! of each leaf (`provenance`) is computed on demand, off the hot path.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod coalesce;
pub mod provenance;
pub mod strvals;
pub mod user;

pub use coalesce::{coalesce_values, merge_tables, merge_values, ChartValues, TypeMismatch};
pub use strvals::{parse_into, Flag, ReadError, SetError};
pub use user::{merge_set_json, UserValues, ValuesError};
