//! Go standard-library behaviour that capstan must reproduce exactly.
//!
//! Everything here is pure: no I/O, no clock. Each module mirrors one Go package
//! (`strconv`, `encoding/hex`, the number and string parts of `encoding/json`, `time` formatting,
//! `regexp`'s RE2, `encoding/base64`) or one Go library Helm and helmfile build on
//! (Masterminds/semver, gobwas/glob), so that what capstan prints and decides is
//! byte-identical to what Helm and helmfile print and decide.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod base64;
pub mod glob;
pub mod hex;
pub mod json;
pub mod quote;
pub mod regexp;
pub mod semver;
pub mod strconv;
pub mod time;
pub mod timefmt;

pub use strconv::{format_float, parse_float, parse_int, parse_uint, NumError, NumErrorKind};
