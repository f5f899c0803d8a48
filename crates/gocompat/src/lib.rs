//! Go standard-library behaviour that capstan must reproduce exactly.
//!
//! Everything here is pure: no I/O, no clock. Each module mirrors one Go package
//! (`strconv`, the number and string parts of `encoding/json`, `time` formatting) so that
//! output printed by capstan is byte-identical to what Helm and helmfile print.

pub mod base64;
pub mod json;
pub mod regexp;
pub mod strconv;
pub mod time;
pub mod timefmt;

pub use strconv::{format_float, parse_float, parse_int, parse_uint, NumError, NumErrorKind};
